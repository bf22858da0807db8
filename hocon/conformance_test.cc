// Runs every case of the lightbend/config conformance data
// (conformance/hocon/lightbend/cases.json; see its MANIFEST.md) through
// Config::ParseFile and Resolve, comparing with the expected JSON: numbers
// by value, object keys in any order. Each case is reported on its own
// line; the test fails if any case fails.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hocon/config.h"
#include "hocon/testing/conformance_dir.h"
#include "hocon/testing/json.h"

namespace cairn::hocon {
namespace {

using testing::Json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The environment a case resolves with: "none" (no environment at all),
// {} (environment fallback on, nothing set) or the listed variables.
ResolveOptions EnvironmentOf(const Json& c) {
  ResolveOptions options;
  const Json* env = c.Find("env");
  if (env == nullptr || env->type == Json::Type::kString) {
    options.use_environment = false;
    return options;
  }
  std::map<std::string, std::string> vars;
  for (const auto& [name, value] : env->object) vars[name] = value.string;
  options.environment = std::move(vars);
  return options;
}

class Conformance {
 public:
  explicit Conformance(std::string root) : root_(std::move(root)) {}

  // Runs one case; returns "" when it passes, else why not.
  std::string Run(const Json& c) {
    const std::string kind = c.Find("kind")->string;
    ParseOptions parse;
    if (const Json* cp = c.Find("classpath_root")) {
      parse.resource_dirs.push_back(root_ + "/" + cp->string);
    }
    absl::StatusOr<Config> config;
    if (kind == "merge") {
      Config merged;
      for (const Json& file : c.Find("files_highest_priority_first")->array) {
        absl::StatusOr<Config> one =
            Config::ParseFile(root_ + "/" + file.string, parse);
        if (!one.ok()) return "parse failed: " + one.status().ToString();
        merged = merged.WithFallback(*one);
      }
      config = merged;
    } else {
      config = Config::ParseFile(root_ + "/" + c.Find("file")->string, parse);
    }
    if (config.ok()) config = config->Resolve(EnvironmentOf(c));
    if (kind == "error") {
      if (config.ok()) return "expected an error, got " + config->ToJson();
      return "";
    }
    if (!config.ok()) return "failed: " + config.status().ToString();
    std::string why;
    if (const Json* expect = c.Find("expect_file")) {
      std::string error;
      std::optional<Json> expected =
          testing::ParseJson(ReadFile(root_ + "/" + expect->string), &error);
      if (!expected) return "bad expected file: " + error;
      if (!testing::SameValue(config->Root(), *expected, "", &why)) return why;
    }
    if (const Json* assertions = c.Find("upstream_assertions")) {
      for (const auto& [path, value] : assertions->object) {
        absl::StatusOr<ConfigValue> v = config->GetValue(path);
        if (!v.ok()) return v.status().ToString();
        if (!testing::SameValue(*v, value, path, &why)) return why;
      }
    }
    if (const Json* quoted = c.Find("upstream_assertions_quoted")) {
      for (const auto& [path, value] : quoted->object) {
        absl::StatusOr<ConfigValue> v = config->GetValue(path);
        if (!v.ok()) return v.status().ToString();
        if (!testing::SameValue(*v, value, path, &why)) return why;
      }
    }
    // file() includes are relative to the working directory (the runfiles
    // here), as in the reference, so these stay absent.
    if (const Json* absent = c.Find("absent_reference_only")) {
      for (const Json& path : absent->array) {
        if (config->HasPath(path.string)) {
          return "expected '" + path.string + "' to be absent";
        }
      }
    }
    return "";
  }

 private:
  std::string root_;
};

TEST(ConformanceTest, LightbendCases) {
  std::string dir = testing::ConformanceDir();
  if (dir.empty()) {
    GTEST_SKIP() << "conformance data not found: "
                 << testing::ConformanceDirSearched();
  }
  std::string root = dir + "/hocon/lightbend";
  std::string error;
  std::optional<Json> cases =
      testing::ParseJson(ReadFile(root + "/cases.json"), &error);
  ASSERT_TRUE(cases) << error;
  Conformance conformance(root);
  int passed = 0;
  int failed = 0;
  for (const Json& c : cases->Find("cases")->array) {
    std::string why = conformance.Run(c);
    const std::string& id = c.Find("id")->string;
    if (why.empty()) {
      ++passed;
      std::cout << "PASS " << id << "\n";
    } else {
      ++failed;
      ADD_FAILURE() << id << ": " << why;
    }
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  EXPECT_EQ(passed, static_cast<int>(cases->Find("cases")->array.size()));
}

}  // namespace
}  // namespace cairn::hocon
