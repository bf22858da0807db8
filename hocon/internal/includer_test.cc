#include "hocon/internal/includer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_replace.h"
#include "base/status_testing.h"
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
    EXPECT_OK(v);
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

// Something that exists under an included name but cannot be read is an
// error that says why, whether or not the include is required.
TEST_F(IncluderTest, ADirectoryIsNotAnIncludedFile) {
  fs::create_directories(dir_ / "d.conf");
  for (const char* statement :
       {"include \"d.conf\"", "include required(\"d.conf\")",
        "include file(\"DIR/d.conf\")", "include \"d\""}) {
    std::string text = absl::StrReplaceAll(statement, {{"DIR", dir_.string()}});
    Write("main.conf", text);
    absl::Status s = Error("main.conf");
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    EXPECT_NE(s.message().find((dir_ / "d.conf").string() + ": is a directory"),
              std::string::npos)
        << s;
    EXPECT_NE(s.message().find("(included at "), std::string::npos) << s;
  }
  absl::StatusOr<ValuePtr> top = LoadFile((dir_ / "d.conf").string(), {});
  EXPECT_EQ(top.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(top.status().message().find("is a directory"), std::string::npos)
      << top.status();
}

TEST_F(IncluderTest, ARequiredIncludeOfADirectorySaysSo) {
  // `include "d"` looks for d.conf, d.json and d.properties; a directory d
  // is none of them, so an optional include stays empty.
  fs::create_directories(dir_ / "d");
  Write("main.conf", "include \"d\"\na = 1");
  EXPECT_EQ(Json("main.conf"), R"({"a":1})");
  Write("main.conf", "include required(\"d\")");
  absl::Status s = Error("main.conf");
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_NE(s.message().find((dir_ / "d").string() + " is a directory"),
            std::string::npos)
      << s;
}

// Reading a FIFO would wait for a writer forever: it is refused before it
// is opened.
TEST_F(IncluderTest, AFifoIsNotAnIncludedFile) {
  std::string fifo = (dir_ / "f.conf").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  Write("main.conf", "include \"f.conf\"");
  absl::Status s = Error("main.conf");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find(fifo + ": is not a regular file"),
            std::string::npos)
      << s;
  absl::StatusOr<ValuePtr> top = LoadFile(fifo, {});
  EXPECT_EQ(top.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(IncluderTest, AnUnreadableFileIsPermissionDenied) {
  std::string file = Write("secret.conf", "a = 1");
  fs::permissions(file, fs::perms::none);
  Write("main.conf", "include \"secret.conf\"");
  if (geteuid() == 0) {
    GTEST_SKIP() << "running as root, where permission checks do not apply";
  }
  absl::Status s = Error("main.conf");
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  EXPECT_NE(s.message().find(file + ": permission denied"), std::string::npos)
      << s;
  // A file below a directory that may not be searched.
  std::string hidden = Write("locked/x.conf", "a = 1");
  fs::permissions(dir_ / "locked", fs::perms::owner_read);
  Write("main.conf", "include \"locked/x.conf\"");
  s = Error("main.conf");
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  EXPECT_NE(s.message().find(hidden + ": permission denied"), std::string::npos)
      << s;
  fs::permissions(dir_ / "locked", fs::perms::owner_all);
}

TEST(LoadTextTest, RelativeIncludesUseTheWorkingDirectory) {
  absl::StatusOr<ValuePtr> v = LoadText("include \"nope\"\na = 1", "s", {});
  ASSERT_OK(v);
  EXPECT_EQ(RenderJson(**v, false), R"({"a":1})");
}

}  // namespace
}  // namespace cairn::hocon::internal
