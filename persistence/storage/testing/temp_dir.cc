#include "persistence/storage/testing/temp_dir.h"

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

std::string TempDir::Root() {
  for (const char* name : {"TEST_TMPDIR", "TMPDIR"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return value;
  }
  return "/tmp";
}

absl::StatusOr<TempDir> TempDir::Make(std::string_view prefix) {
  std::string pattern = absl::StrCat(
      Root(), "/", absl::string_view(prefix.data(), prefix.size()), "-XXXXXX");
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
