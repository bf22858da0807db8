#include "persistence/rocksdb/testing/format1_testdata.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace cairn::persistence::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kDataDir[] = "persistence/rocksdb/testdata/format1";

fs::path DataDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return fs::path(srcdir) / workspace / kDataDir;
  }
  return fs::path(kDataDir);
}

}  // namespace

absl::Status CopyFormat1Store(const std::string& to) {
  const fs::path from = DataDir();
  std::error_code error;
  if (!fs::is_directory(from, error)) {
    return absl::NotFoundError(
        absl::StrCat("no format 1 store at ", from.string()));
  }
  if (!fs::create_directory(to, error)) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", to, ": ",
                     error ? error.message() : "it exists already"));
  }
  int copied = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(from, error)) {
    // The runfiles are symlinks into the source tree: copy what they name,
    // writable, as RocksDB finds a store it wrote itself.
    const fs::path target = fs::path(to) / entry.path().filename();
    if (!fs::copy_file(entry.path(), target, error)) {
      return absl::UnavailableError(absl::StrCat(
          "cannot copy ", entry.path().string(), ": ", error.message()));
    }
    fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write,
                    fs::perm_options::add, error);
    if (error) {
      return absl::UnavailableError(absl::StrCat(
          "cannot make ", target.string(), " writable: ", error.message()));
    }
    ++copied;
  }
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot list ", from.string(), ": ", error.message()));
  }
  if (copied == 0) {
    return absl::NotFoundError(
        absl::StrCat("the format 1 store at ", from.string(), " is empty"));
  }
  return absl::OkStatus();
}

}  // namespace cairn::persistence::testing
