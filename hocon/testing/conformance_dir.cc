#include "hocon/testing/conformance_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace cairn::hocon::testing {
namespace {

namespace fs = std::filesystem;

// The workspace directory: BUILD_WORKSPACE_DIRECTORY under `bazel run`;
// under `bazel test` a runfile is a symlink into the real workspace.
std::string WorkspaceDir() {
  if (const char* dir = std::getenv("BUILD_WORKSPACE_DIRECTORY")) return dir;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "";
  std::error_code ec;
  fs::path marker =
      fs::canonical(fs::path(srcdir) / workspace / "hocon" / "BUILD.bazel", ec);
  if (ec) return "";
  return marker.parent_path().parent_path().string();
}

std::vector<std::string> Candidates() {
  std::vector<std::string> candidates;
  if (const char* dir = std::getenv("CAIRN_CONFORMANCE_DIR")) {
    candidates.push_back(dir);
  }
  if (std::string ws = WorkspaceDir(); !ws.empty()) {
    candidates.push_back(ws + "/../shared/conformance");
  }
  return candidates;
}

}  // namespace

std::string ConformanceDir() {
  for (const std::string& c : Candidates()) {
    std::error_code ec;
    if (fs::is_directory(fs::path(c) / "hocon", ec)) {
      return fs::weakly_canonical(c, ec).string();
    }
  }
  return "";
}

std::string ConformanceDirSearched() {
  std::string searched;
  for (const std::string& c : Candidates()) {
    if (!searched.empty()) searched += ", ";
    searched += c;
  }
  if (searched.empty()) {
    return "no workspace found (neither BUILD_WORKSPACE_DIRECTORY nor a "
           "test runfile) and CAIRN_CONFORMANCE_DIR is not set";
  }
  return "looked for <dir>/hocon in " + searched +
         " (set CAIRN_CONFORMANCE_DIR to the data's directory)";
}

}  // namespace cairn::hocon::testing
