#include "persistence/testing/temp_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace cairn::persistence::testing {

absl::StatusOr<TempDir> TempDir::Make() {
  const char* root = std::getenv("TEST_TMPDIR");
  std::string pattern = absl::StrCat(
      root != nullptr && *root != '\0' ? root : "/tmp", "/cairn-store-XXXXXX");
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "creating a directory like ", pattern, ": ", std::strerror(errno)));
  }
  return TempDir(std::string(buffer.data()));
}

TempDir::TempDir(TempDir&& other) noexcept
    : path_(std::exchange(other.path_, std::string())) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = std::exchange(other.path_, std::string());
  }
  return *this;
}

TempDir::~TempDir() { Remove(); }

void TempDir::Remove() {
  if (path_.empty()) return;
  // Best effort: a leftover directory under TEST_TMPDIR harms nothing.
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  path_.clear();
}

}  // namespace cairn::persistence::testing
