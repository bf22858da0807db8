#include "hocon/config.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "hocon/reference_registry.h"

namespace cairn::hocon {
namespace {

Config Parse(std::string_view text) {
  absl::StatusOr<Config> c = Config::ParseString(text);
  EXPECT_TRUE(c.ok()) << c.status();
  absl::StatusOr<Config> r = c->Resolve();
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

TEST(ConfigTest, JsonIsHocon) {
  Config c = Parse(R"({"a": {"b": 1, "c": [true, null, "x"]}})");
  EXPECT_EQ(*c.GetInt("a.b"), 1);
  EXPECT_EQ(c.GetStringList("a.c").status().code(),
            absl::StatusCode::kInvalidArgument);  // null is not a string
  EXPECT_FALSE(c.HasPath("a.d"));
}

TEST(ConfigTest, BracelessRootSeparatorsAndComments) {
  Config c = Parse(R"(
    # a comment
    a = 1          // another
    b : "two",
    c {
      d = 3,
    }
    e.f.g = 4
  )");
  EXPECT_EQ(*c.GetInt("a"), 1);
  EXPECT_EQ(*c.GetString("b"), "two");
  EXPECT_EQ(*c.GetInt("c.d"), 3);
  EXPECT_EQ(*c.GetInt("e.f.g"), 4);
}

TEST(ConfigTest, DuplicateKeysMergeObjectsAndLaterScalarsWin) {
  Config c = Parse(R"(
    a { x = 1, y = 2 }
    a { y = 3, z = 4 }
    b = 1
    b = 2
    c { x = 1 }
    c = null
  )");
  EXPECT_EQ(*c.GetInt("a.x"), 1);
  EXPECT_EQ(*c.GetInt("a.y"), 3);
  EXPECT_EQ(*c.GetInt("a.z"), 4);
  EXPECT_EQ(*c.GetInt("b"), 2);
  EXPECT_FALSE(c.HasPath("c"));
}

TEST(ConfigTest, UnquotedStringsAndConcatenation) {
  Config c = Parse(R"(
    a = hello world
    b = 10 s
    c = "quoted" and unquoted
    d = [1, 2] [3]
    e = { x = 1 } { y = 2 }
    f = .33
  )");
  EXPECT_EQ(*c.GetString("a"), "hello world");
  EXPECT_EQ(*c.GetDuration("b"), absl::Seconds(10));
  EXPECT_EQ(*c.GetString("c"), "quoted and unquoted");
  EXPECT_EQ(*c.GetLongList("d"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(*c.GetInt("e.x"), 1);
  EXPECT_EQ(*c.GetInt("e.y"), 2);
  EXPECT_EQ(*c.GetString("f"), ".33");
}

TEST(ConfigTest, QuotedAndTripleQuotedStrings) {
  Config c = Parse(
      "a = \"tab\\tnew\\nline \\u00e9\"\n"
      "b = \"\"\"raw \\n \"quoted\" \n text\"\"\"\"\n"
      "\"x.y\" = 5\n");
  EXPECT_EQ(*c.GetString("a"), "tab\tnew\nline \xC3\xA9");
  EXPECT_EQ(*c.GetString("b"), "raw \\n \"quoted\" \n text\"");
  EXPECT_EQ(*c.GetInt("\"x.y\""), 5);
}

TEST(ConfigTest, SubstitutionsLookForwardAndFallBack) {
  Config c = Parse(R"(
    a = ${b}
    b = { x = 1 }
    c = ${b.x}
    d = ${?not.there}
    e = "prefix-"${b.x}
  )");
  EXPECT_EQ(*c.GetInt("a.x"), 1);
  EXPECT_EQ(*c.GetInt("c"), 1);
  EXPECT_FALSE(c.HasPath("d"));
  EXPECT_EQ(*c.GetString("e"), "prefix-1");
}

TEST(ConfigTest, SelfReferenceAndAppend) {
  Config c = Parse(R"(
    path = "a"
    path = ${path}":b"
    list = [1]
    list += 2
    fresh += 7
  )");
  EXPECT_EQ(*c.GetString("path"), "a:b");
  EXPECT_EQ(*c.GetLongList("list"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(*c.GetLongList("fresh"), (std::vector<int64_t>{7}));
}

TEST(ConfigTest, EnvironmentVariablesAreTheLastResort) {
  setenv("CAIRN_HOCON_TEST_VAR", "from-env", 1);
  Config c = Parse("a = ${CAIRN_HOCON_TEST_VAR}");
  EXPECT_EQ(*c.GetString("a"), "from-env");
}

TEST(ConfigTest, ErrorsSayWhereAndWhat) {
  absl::StatusOr<Config> bad = Config::ParseString("a = {\n b = 1\n", "f.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("f.conf:3:"), std::string::npos)
      << bad.status();
  bad = Config::ParseString("a = [1,,2]");
  EXPECT_FALSE(bad.ok());
  absl::StatusOr<Config> cycle =
      Config::ParseString("a = ${b}\nb = ${a}")->Resolve();
  ASSERT_FALSE(cycle.ok());
  EXPECT_NE(cycle.status().message().find("cycle"), std::string::npos);
  absl::StatusOr<Config> missing =
      Config::ParseString("a = ${nope}")->Resolve();
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("${nope}"), std::string::npos);

  Config c = Parse("a = hello\nb { c = 1 }");
  absl::StatusOr<int> wrong = c.GetInt("a");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("<string>:1:5"), std::string::npos)
      << wrong.status();
  EXPECT_EQ(c.GetString("b.x").status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(c.GetString("b.x").status().message().find("b.x"),
            std::string::npos);
}

TEST(ConfigTest, BooleansDurationsAndSizes) {
  Config c = Parse(R"(
    y = yes, n = off, t = true
    ms = 250, s = 2s, m = "1.5 minutes", d = 1d, ns = 10ns
    b = 100, k = 1kB, ki = 1KiB, m2 = 2M
  )");
  EXPECT_TRUE(*c.GetBool("y"));
  EXPECT_FALSE(*c.GetBool("n"));
  EXPECT_TRUE(*c.GetBool("t"));
  EXPECT_EQ(*c.GetDuration("ms"), absl::Milliseconds(250));
  EXPECT_EQ(*c.GetDuration("s"), absl::Seconds(2));
  EXPECT_EQ(*c.GetDuration("m"), absl::Seconds(90));
  EXPECT_EQ(*c.GetDuration("d"), absl::Hours(24));
  EXPECT_EQ(*c.GetDuration("ns"), absl::Nanoseconds(10));
  EXPECT_EQ(*c.GetBytes("b"), 100);
  EXPECT_EQ(*c.GetBytes("k"), 1000);
  EXPECT_EQ(*c.GetBytes("ki"), 1024);
  EXPECT_EQ(*c.GetBytes("m2"), 2 * 1024 * 1024);
  EXPECT_FALSE(c.GetDuration("y").ok());
}

TEST(ConfigTest, FallbacksFillInWhatIsNotSet) {
  Config app = Parse("a { x = 1 }");
  Config defaults = Parse("a { x = 0, y = 2 }, b = 3");
  Config merged = app.WithFallback(defaults);
  EXPECT_EQ(*merged.GetInt("a.x"), 1);
  EXPECT_EQ(*merged.GetInt("a.y"), 2);
  EXPECT_EQ(*merged.GetInt("b"), 3);
}

TEST(ConfigTest, LoadPutsTheApplicationOverRegisteredReferences) {
  RegisterReferenceConf("zz-test-module",
                        "test-module { a = 1, b = ${test-module.a} }");
  absl::StatusOr<Config> loaded =
      Config::Load(*Config::ParseString("test-module.a = 5"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded->GetInt("test-module.a"), 5);
  EXPECT_EQ(*loaded->GetInt("test-module.b"), 5);  // resolved after merging
}

// The checkout's shared/ folder sits beside the workspace. A runfile is a
// link into the workspace, so following it finds the real location.
std::string SharedDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  if (srcdir == nullptr) return "";
  std::string link = std::string(srcdir) + "/cairn/hocon/BUILD.bazel";
  char* real = realpath(link.c_str(), nullptr);
  if (real == nullptr) return "";
  std::string path(real);
  free(real);
  // .../<workspace>/hocon/BUILD.bazel -> .../shared
  for (int up = 0; up < 3; ++up) path = path.substr(0, path.rfind('/'));
  return path + "/shared";
}

TEST(ConfigTest, ParsesAkkaReferenceConfiguration) {
  // Akka.NET's own defaults, read from the shared conformance data.
  const std::string path = SharedDir() + "/conformance/hocon/akka/akka.conf";
  absl::StatusOr<Config> c = Config::ParseFile(path);
  if (absl::IsNotFound(c.status())) {
    GTEST_SKIP() << "conformance data not found at " << path;
  }
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<Config> r = c->Resolve();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r->GetInt("akka.actor.default-dispatcher.throughput"), 30);
  EXPECT_EQ(
      *r->GetDuration("akka.actor.default-mailbox.mailbox-push-timeout-time"),
      absl::Seconds(10));
}

TEST(ConfigTest, JsonOutputIsSortedAndStable) {
  Config c = Parse("b = 1, a { d = \"x\", c = [true] }");
  EXPECT_EQ(c.ToJson(),
            "{\n  \"a\": {\n    \"c\": [\n      true\n    ],\n    \"d\": "
            "\"x\"\n  },\n  \"b\": 1\n}");
}

}  // namespace
}  // namespace cairn::hocon
