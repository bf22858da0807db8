// Hostile input gets bounded work and a short error: long append chains
// resolve in linear time, errors quote at most an excerpt of the input.
#include <string>
#include <vector>

#include "base/status_testing.h"
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
  ASSERT_OK(c);
  for (const std::string& path : {big, many_keys, big + "..x"}) {
    absl::Status s = c->GetString(path).status();
    ASSERT_FALSE(s.ok());
    EXPECT_LT(s.message().size(), kShortError) << s.message().substr(0, 300);
  }
}

// `a += 1` is `a = ${?a} [1]`: N of them append N ones. Once refused at a
// few hundred lines (the chain was resolved recursively) and quadratic.
TEST(HostileInputTest, AppendsResolveToAListOfEveryElement) {
  for (int n : {1, 2, 1000, 100000}) {
    std::string text;
    for (int i = 0; i < n; ++i) text += "a += 1\n";
    absl::StatusOr<Config> c = Config::ParseString(text);
    ASSERT_OK(c);
    absl::StatusOr<Config> r = c->Resolve();
    ASSERT_OK(r);
    absl::StatusOr<std::vector<int>> list = r->GetIntList("a");
    ASSERT_OK(list);
    EXPECT_EQ(list->size(), static_cast<std::size_t>(n));
    EXPECT_EQ(std::vector<int>(list->size(), 1), *list);
  }
}

TEST(HostileInputTest, AppendsKeepTheirOrderAndWhatTheyAppendTo) {
  std::string text = "base = [b]\nx.y = ${base}\n";
  for (int i = 0; i < 2000; ++i) text += "x.y += " + std::to_string(i) + "\n";
  text += "x { y += last }\n";
  absl::StatusOr<Config> c = Config::ParseString(text);
  ASSERT_OK(c);
  absl::StatusOr<Config> r = c->Resolve();
  ASSERT_OK(r);
  absl::StatusOr<std::vector<std::string>> list = r->GetStringList("x.y");
  ASSERT_OK(list);
  ASSERT_EQ(list->size(), 2002u);
  EXPECT_EQ(list->front(), "b");
  EXPECT_EQ((*list)[1], "0");
  EXPECT_EQ((*list)[2000], "1999");
  EXPECT_EQ(list->back(), "last");
}

TEST(HostileInputTest, ManyKeysBelowOneObjectParseInLinearTime) {
  // Each `a.kN = N` merges into `a`; merging them one by one was quadratic.
  std::string text;
  for (int i = 0; i < 200000; ++i) {
    text += "a.k" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  }
  absl::StatusOr<Config> c = Config::ParseString(text);
  ASSERT_OK(c);
  EXPECT_EQ(c->GetObject("a")->Keys().size(), 200000u);
  EXPECT_EQ(*c->GetInt("a.k199999"), 199999);
}

}  // namespace
}  // namespace cairn::hocon
