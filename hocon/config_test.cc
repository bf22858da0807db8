#include "hocon/config.h"

#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/reference_registry.h"

namespace cairn::hocon {
namespace {

Config Parse(std::string_view text) {
  absl::StatusOr<Config> c = Config::ParseString(text);
  EXPECT_OK(c);
  absl::StatusOr<Config> r = c->Resolve();
  EXPECT_OK(r);
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
  ASSERT_OK(loaded);
  EXPECT_EQ(*loaded->GetInt("test-module.a"), 5);
  EXPECT_EQ(*loaded->GetInt("test-module.b"), 5);  // resolved after merging
}

TEST(ConfigTest, JsonOutputIsSortedAndStable) {
  Config c = Parse("b = 1, a { d = \"x\", c = [true] }");
  EXPECT_EQ(c.ToJson(),
            "{\n  \"a\": {\n    \"c\": [\n      true\n    ],\n    \"d\": "
            "\"x\"\n  },\n  \"b\": 1\n}");
}

ResolveOptions NoEnvironment() {
  ResolveOptions options;
  options.use_environment = false;
  return options;
}

TEST(ConfigTest, GettersConvertAsTheSpecRecommends) {
  Config c = Parse(R"(
    n = 42, d = 1.5, s = "42", sd = "2.5", b = true, sb = yes, off = off
    big = 3000000000, e = 1e3, t = "text"
  )");
  EXPECT_EQ(*c.GetString("n"), "42");
  EXPECT_EQ(*c.GetString("d"), "1.5");
  EXPECT_EQ(*c.GetString("b"), "true");
  EXPECT_EQ(*c.GetInt("s"), 42);
  EXPECT_EQ(*c.GetDouble("sd"), 2.5);
  EXPECT_EQ(*c.GetInt("d"), 1);  // truncated, as the reference does
  EXPECT_EQ(*c.GetInt("e"), 1000);
  EXPECT_TRUE(*c.GetBool("sb"));
  EXPECT_FALSE(*c.GetBool("off"));
  EXPECT_EQ(*c.GetLong("big"), 3000000000);
  absl::StatusOr<int> range = c.GetInt("big");
  EXPECT_EQ(range.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(range.status().message().find("out of the range of int"),
            std::string::npos);
  EXPECT_EQ(c.GetBool("n").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.GetDouble("t").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.GetString("missing").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(ConfigTest, ErrorsNameTheOriginAndThePath) {
  Config c = Parse("a {\n  b = [1, x]\n  c = {}\n  n = null\n}");
  absl::Status wrong = c.GetInt("a.c").status();
  EXPECT_EQ(std::string(wrong.message()),
            "<string>:3:7: path 'a.c': expected a number, found an object");
  absl::Status element = c.GetIntList("a.b").status();
  EXPECT_EQ(std::string(element.message()),
            "<string>:2:11: path 'a.b': element 1: expected a number, found "
            "a string (\"x\")");
  absl::Status missing = c.GetInt("a.z").status();
  EXPECT_TRUE(absl::IsNotFound(missing));
  EXPECT_EQ(std::string(missing.message()),
            "<string>:1:3: path 'a.z' is not set (no setting 'z')");
  absl::Status through = c.GetInt("a.b.x").status();
  EXPECT_NE(through.message().find("'b' is a list, not an object"),
            std::string::npos)
      << through;
  absl::Status null = c.GetString("a.n").status();
  EXPECT_TRUE(absl::IsNotFound(null));
  EXPECT_NE(null.message().find("<string>:4:7: path 'a.n' is set to null"),
            std::string::npos);
  absl::Status bad_path = c.GetInt("a..b").status();
  EXPECT_EQ(bad_path.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_path.message().find("invalid path 'a..b'"), std::string::npos);
}

TEST(ConfigTest, UnresolvedValuesAreFailedPrecondition) {
  Config c = *Config::ParseString("a = ${b}, b = 1, o = ${p} { x = 1 }");
  EXPECT_FALSE(c.IsResolved());
  EXPECT_EQ(c.GetInt("a").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(c.GetInt("o.x").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(*c.GetInt("b"), 1);
  EXPECT_TRUE(c.HasPath("a"));
  EXPECT_EQ(c.Root().Get("a")->type(), ValueType::kUnresolved);
}

TEST(ConfigTest, HasPathKeysAndValues) {
  Config c = Parse("a { b = 1, n = null }, \"x.y\" = 2, l = [1, {z = 3}]");
  EXPECT_TRUE(c.HasPath("a.b"));
  EXPECT_FALSE(c.HasPath("a.n"));
  EXPECT_FALSE(c.HasPath("a.nope"));
  EXPECT_FALSE(c.HasPath("a.b.c"));
  EXPECT_TRUE(c.HasPath("\"x.y\""));
  EXPECT_FALSE(c.HasPath("x.y"));
  EXPECT_FALSE(c.HasPath(""));
  EXPECT_EQ(c.Keys(), (std::vector<std::string>{"a", "l", "x.y"}));
  EXPECT_TRUE(c.GetValue("a.n")->IsNull());
  EXPECT_EQ(c.GetValue("a.b")->Origin(), "<string>:1:9");
  EXPECT_EQ(c.GetObject("a")->Keys(), (std::vector<std::string>{"b", "n"}));
  EXPECT_FALSE(c.GetObject("a.b").ok());
  std::vector<ConfigValue> l = *c.GetList("l");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(*l[1].Get("z")->AsLong(), 3);
  EXPECT_FALSE(Config().HasPath("a"));
  EXPECT_TRUE(Config().IsEmpty());
}

TEST(ConfigTest, ListsOfEveryType) {
  Config c = Parse(R"(
    s = [a, 1, true], b = [yes, false], i = [1, "2"], d = [1.5, 2]
    t = [10ms, 1, "2 s"], z = [1k, 512], c = [{x = 1}, {x = 2}]
  )");
  EXPECT_EQ(*c.GetStringList("s"),
            (std::vector<std::string>{"a", "1", "true"}));
  EXPECT_EQ(*c.GetBoolList("b"), (std::vector<bool>{true, false}));
  EXPECT_EQ(*c.GetIntList("i"), (std::vector<int>{1, 2}));
  EXPECT_EQ(*c.GetDoubleList("d"), (std::vector<double>{1.5, 2}));
  EXPECT_EQ(
      *c.GetDurationList("t"),
      (std::vector<absl::Duration>{absl::Milliseconds(10),
                                   absl::Milliseconds(1), absl::Seconds(2)}));
  EXPECT_EQ(*c.GetBytesList("z"), (std::vector<int64_t>{1024, 512}));
  std::vector<Config> configs = *c.GetConfigList("c");
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(*configs[1].GetInt("x"), 2);
  EXPECT_FALSE(c.GetConfigList("s").ok());
  EXPECT_FALSE(c.GetStringList("c").ok());
}

TEST(ConfigTest, NumericallyIndexedObjectsReadAsLists) {
  Config c = Parse("l.0 = a, l.2 = c, l.1 = b, l.x = ignored, o { x = 1 }");
  EXPECT_EQ(*c.GetStringList("l"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(c.GetStringList("o").ok());  // no numeric keys: not a list
  EXPECT_OK(c.GetConfig("l"));              // still an object, too
}

TEST(ConfigTest, DefaultsOnlyForMissingPaths) {
  Config c = Parse("a = 1, n = null, s = text, t = 5s");
  EXPECT_EQ(*c.GetIntOr("a", 7), 1);
  EXPECT_EQ(*c.GetIntOr("b", 7), 7);
  EXPECT_EQ(*c.GetIntOr("n", 7), 7);
  EXPECT_EQ(c.GetIntOr("s", 7).status().code(),
            absl::StatusCode::kInvalidArgument);  // a typo is not a default
  EXPECT_EQ(*c.GetStringOr("x", "dflt"), "dflt");
  EXPECT_EQ(*c.GetBoolOr("x", true), true);
  EXPECT_EQ(*c.GetLongOr("x", 9), 9);
  EXPECT_EQ(*c.GetDoubleOr("x", 0.5), 0.5);
  EXPECT_EQ(*c.GetDurationOr("t", absl::Seconds(1)), absl::Seconds(5));
  EXPECT_EQ(*c.GetDurationOr("x", absl::Seconds(1)), absl::Seconds(1));
  EXPECT_EQ(*c.GetBytesOr("x", 64), 64);
}

// The spec's example: merging is pairwise, so a non-object between two
// objects keeps them apart.
TEST(ConfigTest, FallbackChainsMergeOnlyAdjacentObjects) {
  Config x = Parse("a { x = 1 }");
  Config n = Parse("a = 42");
  Config y = Parse("a { y = 2 }");
  EXPECT_EQ(x.WithFallback(n).WithFallback(y).ToJson(JsonFormat::kCompact),
            R"({"a":{"x":1}})");
  EXPECT_EQ(x.WithFallback(y).WithFallback(n).ToJson(JsonFormat::kCompact),
            R"({"a":{"x":1,"y":2}})");
}

TEST(ConfigTest, FallbacksMergeBeforeResolving) {
  Config app = *Config::ParseString("a = overridden");
  Config reference = *Config::ParseString("a = x, b = ${a}");
  Config merged = *app.WithFallback(reference).Resolve();
  EXPECT_EQ(*merged.GetString("b"), "overridden");
}

TEST(ConfigTest, TheEnvironmentIsInjectable) {
  Config c = *Config::ParseString("a = ${?CAIRN_TEST_X}, b = ${?HOME}");
  ResolveOptions options;
  options.environment =
      std::map<std::string, std::string>{{"CAIRN_TEST_X", "injected"}};
  Config r = *c.Resolve(options);
  EXPECT_EQ(*r.GetString("a"), "injected");
  EXPECT_FALSE(r.HasPath("b"));
  EXPECT_TRUE(c.Resolve(NoEnvironment())->IsEmpty());
  EXPECT_FALSE(
      Config::ParseString("a = ${HOME}")->Resolve(NoEnvironment()).ok());
}

// As lightbend/config's resolve() with its environment fallback: the
// variables are read like a properties file, so names with dots form
// objects, which substitutions reach through their paths.
TEST(ConfigTest, DottedEnvironmentVariablesFormObjects) {
  ResolveOptions options;
  options.environment =
      std::map<std::string, std::string>{{"app.db.host", "db.internal"},
                                         {"app.db.port", "5432"},
                                         {"app", "hidden by the object"},
                                         {"HOME", "/home/me"}};
  Config c = *Config::ParseString(
      "host = ${app.db.host}\n"
      "db = ${app.db}\n"
      "port = ${app.db.port}\n"
      "home = ${HOME}\n"
      "none = ${?app.db.user}\n"
      "deeper = ${?HOME.x}\n"
      "local { db.port = 1, port = ${app.db.port} }\n");
  absl::StatusOr<Config> r = c.Resolve(options);
  ASSERT_OK(r);
  EXPECT_EQ(*r->GetString("host"), "db.internal");
  EXPECT_EQ(*r->GetInt("port"), 5432);
  EXPECT_EQ(*r->GetString("db.host"), "db.internal");
  EXPECT_EQ(*r->GetString("db.port"), "5432");
  EXPECT_EQ(*r->GetString("home"), "/home/me");
  EXPECT_FALSE(r->HasPath("none"));
  EXPECT_FALSE(r->HasPath("deeper"));
  EXPECT_EQ(*r->GetString("local.port"), "5432");
  // The config comes first, key by key: a path it sets is not looked up
  // in the environment, one it does not set is.
  Config app = *Config::ParseString(
      "app.db.host = mine, h = ${app.db.host}, p = ${app.db.port}");
  absl::StatusOr<Config> mixed = app.Resolve(options);
  ASSERT_OK(mixed);
  EXPECT_EQ(*mixed->GetString("h"), "mine");
  EXPECT_EQ(*mixed->GetString("p"), "5432");
  // An object wins over a variable at its path ("app" above); a variable
  // alone is a string, not an object.
  EXPECT_FALSE(Config::ParseString("x = ${HOME.y}")->Resolve(options).ok());
  absl::StatusOr<Config> missing =
      Config::ParseString("x = ${app.db.user}")->Resolve(options);
  EXPECT_NE(missing.status().message().find("nor is an environment variable"),
            std::string::npos);
}

TEST(ConfigTest, ParseFileErrors) {
  absl::StatusOr<Config> missing = Config::ParseFile("/no/such/file.conf");
  EXPECT_TRUE(absl::IsNotFound(missing.status()));
  EXPECT_NE(missing.status().message().find("/no/such/file.conf"),
            std::string::npos);
}

TEST(ConfigTest, ConfigValueConversions) {
  Config c = Parse("v { s = \"5 s\", n = 2, l = [1], o { k = v } }");
  ConfigValue v = *c.GetValue("v");
  EXPECT_EQ(v.type(), ValueType::kObject);
  EXPECT_EQ(*v.Get("s")->AsDuration(), absl::Seconds(5));
  EXPECT_EQ(*v.Get("n")->AsDuration(), absl::Milliseconds(2));
  EXPECT_EQ(*v.Get("n")->AsBytes(), 2);
  EXPECT_EQ(v.Get("l")->AsList()->size(), 1u);
  EXPECT_FALSE(v.Get("missing").has_value());
  EXPECT_FALSE(v.Get("n")->Get("x").has_value());
  absl::Status s = v.Get("o")->AsString().status();
  EXPECT_EQ(std::string(s.message()),
            "<string>:1:34: expected a string, found an object");
  EXPECT_EQ(v.Get("o")->ToJson(), R"({"k":"v"})");
  EXPECT_EQ(ValueTypeName(v.Get("l")->type()), "list");
  EXPECT_TRUE(ConfigValue().IsNull());
}

TEST(ConfigTest, ConcurrentReadersShareOneTree) {
  Config c = Parse("a { b = [1, 2, 3], c = 5s, d { e = x } }");
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([c] {
      for (int i = 0; i < 200; ++i) {
        Config copy = c;
        EXPECT_EQ(copy.GetLongList("a.b")->size(), 3u);
        EXPECT_EQ(*copy.GetDuration("a.c"), absl::Seconds(5));
        EXPECT_EQ(*copy.GetConfig("a.d")->GetString("e"), "x");
        EXPECT_FALSE(copy.ToJson().empty());
      }
    });
  }
  for (std::thread& t : readers) t.join();
}

}  // namespace
}  // namespace cairn::hocon
