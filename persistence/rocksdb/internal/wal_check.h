#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_WAL_CHECK_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_WAL_CHECK_H_

// The write-ahead logs of a store, read before RocksDB replays them, to
// tell a write cut short by a crash (normal: its record was never
// acknowledged, and replay drops it) from damage that replay would turn
// into silent loss.
//
// RocksDB (7.8) replays the logs in file-number order. Each record is a
// write batch stamped with the database sequence number of its first
// entry; the records of all logs together take consecutive sequence
// numbers, and a write that failed takes none. So:
//   - damage with a readable record after it in the same log is
//     corruption: replay would drop or refuse the records after it;
//   - database sequence numbers that no log holds, between the end of one
//     log and the start of the next, are records lost from the first
//     (a log cut short, or a damaged end of a log that is not the newest);
//   - damage at the end of the newest log, with nothing readable after
//     it, is what a crash during a write leaves, and is not a problem. A
//     log cut short at any point looks the same, and cannot be told from
//     it.
// A log the store no longer needs (its records are in table files, and
// RocksDB deletes it on the next open) is checked like the others: one
// left behind by a crash during that deletion and damaged since is
// reported too.
//
// Thread safety: the functions share no state.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/rocksdb/internal/wal_file.h"
#include "rocksdb/env.h"

namespace cairn::persistence::rocksdb_internal {

struct WalLog {
  std::string name;  // "000004.log"
  std::string path;  // directory + "/" + name
  uint64_t number = 0;
  WalFileScan scan;
};

struct WalReport {
  std::vector<WalLog> logs;  // ascending log number
  // Each DataLoss, naming the log file, the offset, and what is wrong.
  std::vector<absl::Status> problems;
  // The newest log ends in a record cut short (not a problem): where, and
  // why it cannot be read.
  std::optional<std::string> cut_short_end;
  int64_t records = 0;
};

// Reads every log file ("NNNNNN.log") in the store directory `dir`,
// calling `on_record` for each readable record, and applies the rules
// above. Unavailable if the directory or a log cannot be read.
[[nodiscard]] absl::StatusOr<WalReport> CheckWalFiles(
    rocksdb::Env* env, const std::string& dir,
    absl::FunctionRef<void(const WalLog& log, const WalRecord& record)>
        on_record);
[[nodiscard]] absl::StatusOr<WalReport> CheckWalFiles(rocksdb::Env* env,
                                                      const std::string& dir);

// OK if `report` has no problems; otherwise one DataLoss for the store at
// `dir` naming the first problem and the number of others, and what to do.
absl::Status WalProblemsStatus(const std::string& dir, const WalReport& report);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_WAL_CHECK_H_
