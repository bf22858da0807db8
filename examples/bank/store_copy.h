#ifndef CAIRN_EXAMPLES_BANK_STORE_COPY_H_
#define CAIRN_EXAMPLES_BANK_STORE_COPY_H_

#include <string>

#include "absl/status/statusor.h"

namespace cairn::examples::bank {

// A private copy of the store in a directory, for reading it without
// changing it. The persistence plugins open RocksDB for reading and
// writing only, and such an open writes to the directory even when nothing
// is persisted (a new MANIFEST, OPTIONS and info LOG; the write-ahead log
// of a killed process replayed into a table file). `bank balances` must
// leave the store as it found it, so it opens a copy. The copy lives under
// $TMPDIR (/tmp) and is removed with this object.
//
// Call it only while no process writes the store (CheckNotInUse): a copy
// taken during a compaction may miss files.
class StoreCopy {
 public:
  // Copies the database files of `dir` (not its LOCK and info logs).
  // Unavailable if the copy cannot be made.
  [[nodiscard]] static absl::StatusOr<StoreCopy> Make(const std::string& dir);

  StoreCopy(StoreCopy&& other) noexcept;
  StoreCopy& operator=(StoreCopy&& other) noexcept;
  StoreCopy(const StoreCopy&) = delete;
  StoreCopy& operator=(const StoreCopy&) = delete;
  ~StoreCopy();

  const std::string& path() const { return path_; }

 private:
  explicit StoreCopy(std::string path) : path_(std::move(path)) {}
  void Remove();

  std::string path_;  // empty once moved from
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_STORE_COPY_H_
