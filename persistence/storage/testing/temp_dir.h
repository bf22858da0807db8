#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_TEMP_DIR_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_TEMP_DIR_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace cairn::persistence::testing {

// A new, empty directory under Root(), removed with everything in it when
// the TempDir is destroyed. Each Make() gives a directory no other test or
// test case shares, so a store on disk starts empty in every test.
//
// Thread safety: a TempDir is a value; Make may be called from any thread.
class TempDir {
 public:
  // Where the directories go: $TEST_TMPDIR (Bazel's per-test scratch
  // space), else $TMPDIR, else /tmp.
  static std::string Root();
  // A directory named `prefix` and a unique suffix. Unavailable if it
  // cannot be created.
  [[nodiscard]] static absl::StatusOr<TempDir> Make(
      std::string_view prefix = "cairn-store");

  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  void Remove();

  std::string path_;  // empty once moved from
};

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_TEMP_DIR_H_
