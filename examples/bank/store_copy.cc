#include "examples/bank/store_copy.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace cairn::examples::bank {
namespace {

namespace fs = std::filesystem;

// RocksDB's lock and its human-readable logs: not part of the data.
bool IsDatabaseFile(const std::string& name) {
  return name != "LOCK" && name != "LOG" && !absl::StartsWith(name, "LOG.old");
}

}  // namespace

absl::StatusOr<StoreCopy> StoreCopy::Make(const std::string& dir) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat((tmp != nullptr && *tmp != '\0') ? tmp : "/tmp",
                   "/cairn-bank-read-XXXXXX");
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot make a directory like ", pattern));
  }
  StoreCopy copy{std::string(buffer.data())};
  std::error_code error;
  fs::directory_iterator it(dir, error);
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    const std::string name = it->path().filename().string();
    std::error_code not_regular;
    if (!it->is_regular_file(not_regular) || !IsDatabaseFile(name)) continue;
    fs::copy_file(it->path(), fs::path(copy.path_) / name, error);
    if (error) break;
  }
  if (error) {
    return absl::UnavailableError(absl::StrCat("copying the store in ", dir,
                                               " to ", copy.path_, ": ",
                                               error.message()));
  }
  return copy;
}

StoreCopy::StoreCopy(StoreCopy&& other) noexcept
    : path_(std::exchange(other.path_, "")) {}

StoreCopy& StoreCopy::operator=(StoreCopy&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = std::exchange(other.path_, "");
  }
  return *this;
}

StoreCopy::~StoreCopy() { Remove(); }

void StoreCopy::Remove() {
  if (path_.empty()) return;
  std::error_code ignored;  // a leftover in $TMPDIR is no reason to fail
  fs::remove_all(path_, ignored);
  path_.clear();
}

}  // namespace cairn::examples::bank
