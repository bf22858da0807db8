#ifndef CAIRN_EXAMPLES_BANK_STORE_COPY_H_
#define CAIRN_EXAMPLES_BANK_STORE_COPY_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "examples/bank/remove_on_signal.h"

namespace cairn::examples::bank {

// A private copy of the store in a directory, for reading it without
// changing it. The persistence plugins open RocksDB for reading and
// writing only, and such an open writes to the directory even when nothing
// is persisted (a new MANIFEST, OPTIONS and info LOG; the write-ahead log
// of a killed process replayed into a table file). `bank balances` must
// leave the store as it found it, so it opens a copy.
//
// The copy lives in a directory cairn-bank-read-XXXXXX under $TMPDIR
// (/tmp without), holding the copied store and a file `in-use` that this
// object keeps locked (flock). It is removed when this object is
// destroyed, and also when SIGINT, SIGTERM or SIGHUP ends the process
// (RemoveOnSignal). Copies left by processes that ended otherwise (killed
// with SIGKILL, crashed) are found by their unlocked `in-use` file and
// removed by the next Make.
//
// Call it only while no process writes the store (CheckNotInUse): a copy
// taken during a compaction may miss files.
class StoreCopy {
 public:
  // Copies the database files of `dir` (not its LOCK and info logs).
  // InvalidArgument, naming $TMPDIR and why, if the copy cannot be made
  // there (it does not exist, is not a writable directory, has too little
  // room); Unavailable if the store cannot be read.
  [[nodiscard]] static absl::StatusOr<StoreCopy> Make(const std::string& dir);

  StoreCopy(StoreCopy&& other) noexcept;
  StoreCopy& operator=(StoreCopy&& other) noexcept;
  StoreCopy(const StoreCopy&) = delete;
  StoreCopy& operator=(const StoreCopy&) = delete;
  ~StoreCopy();

  // The copied store's directory.
  const std::string& path() const { return path_; }

  // `status`, an error from reading the copy of the store in `dir`, as the
  // user should see it: a copy that ran out of room in $TMPDIR is said to
  // have (InvalidArgument); otherwise the copy's path is replaced by `dir`,
  // whose files the copy's are.
  absl::Status Explain(const absl::Status& status,
                       const std::string& dir) const;

 private:
  StoreCopy(std::string root, int lock_fd);
  void Remove();

  std::string root_;  // cairn-bank-read-XXXXXX; empty once moved from
  std::string path_;  // root_/store
  int lock_fd_ = -1;  // root_/in-use, locked
  std::unique_ptr<RemoveOnSignal> remove_on_signal_;
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_STORE_COPY_H_
