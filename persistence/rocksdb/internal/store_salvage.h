#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STORE_SALVAGE_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STORE_SALVAGE_H_

// Salvage of a store whose write-ahead logs are damaged (wal_check.h): it
// keeps every record that can be read and says what was lost. Nothing
// calls it but `journal_tool salvage --confirm`: an open never does.
//
// What it does:
//  1. holding the store's lock, reads every log as an open's check does;
//     with no problem found it changes nothing;
//  2. copies each damaged log, as it is, into a new directory
//     `salvaged-<seconds since the epoch>` inside the store directory;
//  3. replaces each damaged log (write, sync, rename) with one holding only
//     its readable records, unchanged: the records after damage too, which
//     RocksDB's own recovery would drop;
//  4. releases the lock and opens the store (WalRecovery::kTrustLogs):
//     RocksDB replays the logs into table files and deletes them, so the
//     gaps salvage found no longer stop an open;
//  5. reads the store for what is missing (FindMissingEvents), and names
//     the events the damaged bytes still seem to hold.
//
// What it can tell: the events missing between stored events of a stream,
// and after a stream's last stored event up to the highest sequence number
// its metadata records. What it cannot: events that were the last ones of
// a stream without such metadata (a stream's highest sequence number is
// recorded only when it deletes), unless the damaged bytes still name
// them; and whether a record cut short at the end of the newest log was
// ever acknowledged (a crash during a write leaves the same).
//
// Another process must not open the store between step 4's release of the
// lock and the open.
//
// Thread safety: the function shares no state.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "persistence/rocksdb/internal/store_inspection.h"
#include "persistence/rocksdb/internal/wal_check.h"
#include "rocksdb/env.h"

namespace cairn::persistence::rocksdb_internal {

struct SalvageResult {
  WalReport logs;  // what the check found
  // False if there was nothing to salvage (and nothing was changed).
  bool changed = false;
  std::string backup_dir;  // where the damaged logs were copied
  // Each replaced log, and how many records it kept.
  std::vector<std::pair<std::string, int64_t>> rewritten;
  // Database sequence numbers (one per entry of a write batch) that no
  // readable record holds, as [from, to] runs; the run after a log cut
  // short at its end is unknown.
  std::vector<std::pair<uint64_t, uint64_t>> lost_sequence_numbers;
  // Events missing from the salvaged store (FindMissingEvents).
  std::vector<MissingEvents> missing_events;
  // Events the damaged bytes appear to hold, not stored after salvage and
  // not among missing_events: unverified, since their checksums failed.
  std::vector<std::pair<std::string, int64_t>> named_by_damage;
};

// Salvages the store at `path`; `env` nullptr means rocksdb::Env::Default().
// Unavailable if the store is in use or a file cannot be read or written
// (the damaged logs' originals are kept in backup_dir whatever fails after
// step 2); the errors of Db::Open otherwise.
[[nodiscard]] absl::StatusOr<SalvageResult> SalvageStore(
    const std::string& path, rocksdb::Env* env);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STORE_SALVAGE_H_
