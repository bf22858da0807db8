// Hostile input gets bounded work and a short error: errors quote at most
// an excerpt of the input.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::hocon {
namespace {

// The error an input gives when parsed, resolved (without the
// environment) and read at `path` as a duration, an int and a string.
absl::Status ErrorOf(const std::string& text, std::string_view path = "a") {
  absl::StatusOr<Config> c = Config::ParseString(text, "hostile.conf");
  if (!c.ok()) return c.status();
  ResolveOptions options;
  options.use_environment = false;
  absl::StatusOr<Config> r = c->Resolve(options);
  if (!r.ok()) return r.status();
  if (absl::Status s = r->GetDuration(path).status(); !s.ok()) return s;
  if (absl::Status s = r->GetInt(path).status(); !s.ok()) return s;
  return r->GetString(path).status();
}

// Every error message stays this short, whatever the input.
constexpr std::size_t kShortError = 1024;

TEST(HostileInputTest, ANulByteFileGivesAShortError) {
  absl::Status s = ErrorOf(std::string(20 << 20, '\0'));
  ASSERT_FALSE(s.ok());
  EXPECT_LT(s.message().size(), kShortError) << s.message().substr(0, 200);
  EXPECT_NE(s.message().find("(20971520 bytes)"), std::string::npos);
}

TEST(HostileInputTest, AHugeUndefinedSubstitutionGivesAShortError) {
  std::string name(10 << 20, 'x');
  absl::Status s = ErrorOf("a = ${" + name + "}");
  ASSERT_FALSE(s.ok());
  EXPECT_LT(s.message().size(), kShortError) << s.message().substr(0, 200);
  EXPECT_NE(s.message().find("is not set"), std::string::npos) << s;
}

TEST(HostileInputTest, EveryErrorQuotesOnlyAnExcerpt) {
  const std::string big(1 << 20, 'w');
  const std::string digits(1 << 20, '1');
  std::string many_keys = "k";
  while (many_keys.size() < (1u << 20)) many_keys += ".k";
  const std::vector<std::string> inputs = {
      big + " x",                                 // a key, then no '='
      "a = 1+" + digits,                          // a number with '+'
      "{ } \"" + big + "\"",                      // a quoted token
      big + "..b = 1",                            // an invalid path
      "a = ${" + many_keys + "}",                 // a path of many keys
      "a = ${" + big + "}\n" + big + " = ${a}",   // a cycle
      "a = ${?" + big + "} ${" + big + "}",       // an undefined name
      "include " + big,                           // an include keyword
      "include file(\"x\")" + big,                // after an include
      "include required(\"" + big + "\")",        // a missing file
      "include required(\"/" + big + ".conf\")",  // a name too long
      "a = \"" + big + "\"",                      // not a duration
      "a = " + digits,                            // out of range
      "a = 10 " + big,                            // an unknown unit
      "a = ${b}\nb = [1] " + big,                 // a bad concatenation
  };
  for (const std::string& input : inputs) {
    absl::Status s = ErrorOf(input);
    ASSERT_FALSE(s.ok()) << input.substr(0, 40);
    EXPECT_LT(s.message().size(), kShortError)
        << input.substr(0, 40) << " gives " << s.message().substr(0, 300);
  }
  absl::StatusOr<Config> c = Config::ParseString("a = 1");
  ASSERT_TRUE(c.ok());
  for (const std::string& path : {big, many_keys, big + "..x"}) {
    absl::Status s = c->GetString(path).status();
    ASSERT_FALSE(s.ok());
    EXPECT_LT(s.message().size(), kShortError) << s.message().substr(0, 300);
  }
}

}  // namespace
}  // namespace cairn::hocon
