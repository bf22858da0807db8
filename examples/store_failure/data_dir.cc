#include "examples/store_failure/data_dir.h"

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace cairn::examples::store_failure {

absl::StatusOr<std::string> ParseArgs(int argc, const char* const* argv) {
  constexpr std::string_view kDataIs = "--data=";
  std::string data;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--data" && i + 1 < argc) {
      data = argv[++i];
    } else if (arg.substr(0, kDataIs.size()) == kDataIs) {
      data = std::string(arg.substr(kDataIs.size()));
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", std::string(arg), "'"));
    }
  }
  return data;
}

absl::StatusOr<DataDir> MakeDataDir(const std::string& flag) {
  if (flag.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string path =
        absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                     "/cairn-store-failure.XXXXXX");
    if (mkdtemp(path.data()) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot create a directory like ", path));
    }
    return DataDir{path, /*temporary=*/true};
  }
  std::filesystem::path path(flag);
  const char* started_in = std::getenv("BUILD_WORKING_DIRECTORY");
  if (started_in != nullptr && path.is_relative()) {
    path = std::filesystem::path(started_in) / path;
  }
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create ", path.string(), ": ", error.message()));
  }
  return DataDir{path.string(), /*temporary=*/false};
}

void RemoveIfTemporary(const DataDir& dir) {
  if (!dir.temporary) return;
  std::error_code ignored;  // a leftover temporary directory harms nothing
  std::filesystem::remove_all(dir.path, ignored);
}

}  // namespace cairn::examples::store_failure
