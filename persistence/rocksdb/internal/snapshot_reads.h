#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_SNAPSHOT_READS_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_SNAPSHOT_READS_H_

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/rocksdb/internal/bounded_iterator.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/snapshot_codec.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence::rocksdb_internal {

// Reads of the snapshots column family: the snapshot store's, and those of
// a journal that loads a recovery's snapshot itself
// (RocksDbJournal::AsyncStartRecovery).
//
// `shared`, where a function takes one, is an iterator of `view.snapshots`
// that the reads of one visit share (bounded_iterator.h: the read bounds
// it to its range, positions it and leaves it anywhere); null: the read
// takes one of its own.

// Visits the stored snapshots of `persistence_id` whose sequence numbers
// `criteria` admits, newest first, until `visit` returns false. A record
// that fails verification is visited with its error (naming the stream and
// sequence number), so that the caller decides whether to go past it; a
// damaged key or a failing read ends the scan with an error.
absl::Status ForEachCandidate(
    const Db::View& view, BoundedIterator* shared,
    const std::string& persistence_id,
    const SnapshotSelectionCriteria& criteria,
    absl::FunctionRef<bool(int64_t sequence_nr,
                           const absl::StatusOr<SnapshotView>&)>
        visit);

// What SnapshotStore::AsyncLoad gives (snapshot_store.h): the newest
// readable snapshot matching `criteria.Limit(to_sequence_nr)`, the ones
// passed over in `unreadable`; not OK only if the store failed.
absl::StatusOr<LoadSnapshotResult> LoadSnapshot(
    const Db::View& view, BoundedIterator* shared,
    const serialization::SerializationRegistry& registry,
    const std::string& persistence_id,
    const SnapshotSelectionCriteria& criteria, int64_t to_sequence_nr);

// `cause` (a serializer's error) for the snapshot `metadata` names.
absl::Status Unserializable(const SnapshotMetadata& metadata,
                            const absl::Status& cause);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_SNAPSHOT_READS_H_
