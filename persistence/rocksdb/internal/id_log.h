#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ID_LOG_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ID_LOG_H_

#include "absl/status/status.h"
#include "persistence/rocksdb/internal/db.h"

namespace cairn::persistence::rocksdb_internal {

// Makes sure a store open for writing has a complete id log (the ids
// column family, db.h): the journal's writer appends each new id to it in
// the write that creates the id, the live PersistenceIds query tails it,
// and CurrentPersistenceIds reads it up to its highest id offset. The log
// counts as there once it holds the highest id offset (kHighestIdOffsetKey); a
// new store gets it (0) with its layout version (Db::Open), and this finds it
// there.
//
// A store without it (written before the id log existed, or whose
// back-fill was cut short) is back-filled in one pass over its ids, in the
// key order CurrentPersistenceIds lists them, in batches of a bounded size
// (never all ids in memory): offsets 1..N, then the highest offset, N, in
// the last batch. A back-fill cut short (a crash) leaves no highest offset
// and is redone from the start by the next call; it writes the same
// entries again, since no journal writes meanwhile.
//
// Call before the journal's writer starts (RocksDbStore::NewJournal), on a
// read-write Db; the caller must be the store's only writer of events.
// Not OK: the store failed (Unavailable, ResourceExhausted), a damaged key
// (DataLoss), or a Db that takes no writes (FailedPrecondition).
[[nodiscard]] absl::Status EnsureIdLog(Db& db);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ID_LOG_H_
