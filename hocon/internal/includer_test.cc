#include "hocon/internal/includer.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "hocon/internal/json_writer.h"
#include "hocon/internal/resolver.h"

namespace cairn::hocon::internal {
namespace {

namespace fs = std::filesystem;

class IncluderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = fs::path(tmp ? tmp : "/tmp") /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  std::string Write(const std::string& name, std::string_view text) {
    fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

  // The file, loaded and resolved (no environment), as compact JSON.
  std::string Json(const std::string& name, LoadOptions options = {}) {
    absl::StatusOr<ValuePtr> v = LoadFile((dir_ / name).string(), options);
    if (v.ok()) v = Resolve(*v, nullptr);
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? RenderJson(**v, false) : "";
  }

  absl::Status Error(const std::string& name) {
    absl::StatusOr<ValuePtr> v = LoadFile((dir_ / name).string(), {});
    if (v.ok()) v = Resolve(*v, nullptr);
    EXPECT_FALSE(v.ok());
    return v.status();
  }

  fs::path dir_;
};

TEST_F(IncluderTest, IncludesAreRelativeToTheIncludingFile) {
  Write("main.conf",
        "a = 1\ninclude \"sub/one.conf\"\nb { include \"sub/two\" }");
  Write("sub/one.conf", "one = 1\ninclude \"deeper/three.conf\"");
  Write("sub/deeper/three.conf", "three = 3");
  Write("sub/two.conf", "two = 2");
  EXPECT_EQ(Json("main.conf"), R"({"a":1,"b":{"two":2},"one":1,"three":3})");
}

TEST_F(IncluderTest, ABasenameMergesConfJsonAndProperties) {
  Write("main.conf", "include \"x\"");
  Write("x.conf", "a = conf, c.fromConf = 1");
  Write("x.json", R"({"a": "json", "b": "json", "c": {"fromJson": 2}})");
  Write("x.properties", "a=props\nb=props\nd=props\nc.fromProps=3");
  EXPECT_EQ(Json("main.conf"),
            R"({"a":"conf","b":"json","c":{"fromConf":1,"fromJson":2,)"
            R"("fromProps":"3"},"d":"props"})");
}

TEST_F(IncluderTest, IncludedFieldsMergeWithTheIncludingObject) {
  Write("main.conf", "a { x = 1, y = 1 }\ninclude \"i.conf\"\na.y = 3");
  Write("i.conf", "a { y = 2, z = 2 }");
  EXPECT_EQ(Json("main.conf"), R"({"a":{"x":1,"y":3,"z":2}})");
}

TEST_F(IncluderTest, SubstitutionsInIncludedFilesLookBelowTheIncludePoint) {
  Write("main.conf",
        "bar = outer\nfoo = outer\n"
        "sub { include \"i.conf\" }\ninclude \"i.conf\"");
  Write("i.conf", "foo = inner\na = ${foo}\nb = ${bar}");
  EXPECT_EQ(Json("main.conf"),
            R"({"a":"inner","b":"outer","bar":"outer","foo":"inner",)"
            R"("sub":{"a":"inner","b":"outer","foo":"inner"}})");
}

TEST_F(IncluderTest, MissingIncludesAreEmptyUnlessRequired) {
  Write("main.conf",
        "a = 1\ninclude \"nope\"\ninclude \"nope.conf\"\n"
        "include file(\"nope.json\")");
  EXPECT_EQ(Json("main.conf"), R"({"a":1})");
  Write("req.conf", "include required(\"nope\")");
  absl::Status s = Error("req.conf");
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_NE(s.message().find("req.conf:1:1: required include \"nope\" not "
                             "found"),
            std::string::npos)
      << s;
}

TEST_F(IncluderTest, ErrorsInIncludedFilesNameBothPlaces) {
  Write("main.conf", "a = 1\ninclude \"bad.conf\"");
  Write("bad.conf", "x = [");
  absl::Status s = Error("main.conf");
  EXPECT_NE(s.message().find("bad.conf:1:6:"), std::string::npos) << s;
  EXPECT_NE(s.message().find("(included at "), std::string::npos) << s;
  EXPECT_NE(s.message().find("main.conf:2:1)"), std::string::npos) << s;
}

TEST_F(IncluderTest, CyclesAreErrors) {
  Write("a.conf", "include \"b.conf\"");
  Write("b.conf", "include \"a.conf\"");
  EXPECT_NE(Error("a.conf").message().find("include cycle"), std::string::npos);
}

TEST_F(IncluderTest, FileIncludesAreRelativeToTheWorkingDirectory) {
  std::string target = Write("elsewhere/t.conf", "t = 1");
  Write("main.conf", "include file(\"" + target +
                         "\")\n"
                         "include file(\"t.conf\")");
  Write("t.conf", "not = included");
  EXPECT_EQ(Json("main.conf"), R"({"t":1})");
}

TEST_F(IncluderTest, ResourceDirectoriesStandInForTheClasspath) {
  Write("lib/res.conf", "lib = 1");
  Write("main.conf", "include \"res.conf\"\ninclude classpath(\"/res.conf\")");
  LoadOptions options;
  options.resource_dirs.push_back((dir_ / "lib").string());
  EXPECT_EQ(Json("main.conf", options), R"({"lib":1})");
  EXPECT_EQ(Json("main.conf"), R"({})");
}

TEST_F(IncluderTest, UrlIncludesAreNotSupported) {
  Write("main.conf", "include url(\"http://example.com/x.conf\")");
  absl::Status s = Error("main.conf");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("url() includes are not supported"),
            std::string::npos);
}

TEST_F(IncluderTest, PropertiesAndJsonFilesByExtension) {
  Write("p.properties", "a.b=1");
  Write("j.json", R"({"a": {"c": 2}})");
  Write("main.conf", "include \"p.properties\"\ninclude \"j.json\"");
  EXPECT_EQ(Json("main.conf"), R"({"a":{"b":"1","c":2}})");
  EXPECT_EQ(Json("p.properties"), R"({"a":{"b":"1"}})");
}

TEST_F(IncluderTest, MissingTopLevelFileIsNotFound) {
  absl::StatusOr<ValuePtr> v = LoadFile((dir_ / "none.conf").string(), {});
  EXPECT_TRUE(absl::IsNotFound(v.status()));
}

TEST(LoadTextTest, RelativeIncludesUseTheWorkingDirectory) {
  absl::StatusOr<ValuePtr> v = LoadText("include \"nope\"\na = 1", "s", {});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(RenderJson(**v, false), R"({"a":1})");
}

}  // namespace
}  // namespace cairn::hocon::internal
