#ifndef CAIRN_PERSISTENCE_STORAGE_SNAPSHOT_STORE_H_
#define CAIRN_PERSISTENCE_STORAGE_SNAPSHOT_STORE_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/storage/write_fence.h"
#include "serialization/payload.h"

namespace cairn::persistence {

// Identifies a snapshot: one per (persistence_id, sequence_nr).
struct SnapshotMetadata {
  std::string persistence_id;
  int64_t sequence_nr = 0;
  // Milliseconds since the Unix epoch, set by the writer, stored as given.
  int64_t timestamp = 0;
};

// Which snapshots a load or a delete selects: those with
// min_sequence_nr <= sequence_nr <= max_sequence_nr and
// min_timestamp <= timestamp <= max_timestamp (bounds inclusive, as Akka's).
struct SnapshotSelectionCriteria {
  int64_t max_sequence_nr = std::numeric_limits<int64_t>::max();
  int64_t max_timestamp = std::numeric_limits<int64_t>::max();
  int64_t min_sequence_nr = 0;
  int64_t min_timestamp = 0;

  // Every snapshot (so a load finds the newest).
  static SnapshotSelectionCriteria Latest() { return {}; }
  // No snapshot at all.
  static SnapshotSelectionCriteria None() { return {0, 0, 0, 0}; }

  bool Matches(const SnapshotMetadata& metadata) const {
    return metadata.sequence_nr <= max_sequence_nr &&
           metadata.timestamp <= max_timestamp &&
           metadata.sequence_nr >= min_sequence_nr &&
           metadata.timestamp >= min_timestamp;
  }

  // These criteria with max_sequence_nr lowered to `to_sequence_nr` (Akka's
  // `limit`), for a recovery that stops at `to_sequence_nr`.
  SnapshotSelectionCriteria Limit(int64_t to_sequence_nr) const {
    SnapshotSelectionCriteria limited = *this;
    if (to_sequence_nr < limited.max_sequence_nr) {
      limited.max_sequence_nr = to_sequence_nr;
    }
    return limited;
  }
};

struct SelectedSnapshot {
  SnapshotMetadata metadata;
  serialization::Payload snapshot;
};

// What a load found. `to_sequence_nr` echoes the request's, so a recovery
// knows where its replay must stop (Akka's LoadSnapshotResult).
// `unreadable`: the matching snapshots newer than `snapshot` (all of them if
// there is none) that could not be read, newest first, each error naming
// the persistence id and sequence number. A recovery that falls back past
// one must replay the events it covered.
struct LoadSnapshotResult {
  std::optional<SelectedSnapshot> snapshot;
  int64_t to_sequence_nr = 0;
  std::vector<absl::Status> unreadable;
};

// The snapshot store plugin interface (Akka's SnapshotStore).
//
// Threading contract: the same as Journal's (journal.h): any thread may call,
// calls return at once, each callback runs exactly once on a plugin thread,
// never on the calling thread inside the call and never under a plugin
// lock; callbacks must be cheap; the destructor completes what was
// submitted. Operations are applied and completed in submission order.
//
// Fences: a save or delete with a `fence` (write_fence.h), as a journal
// write with one: a store that keeps leases (PostgreSQL) applies it only
// if, when it commits, the lease is held by the fence's owner with the
// fence's token, checked in the same transaction; otherwise it fails with
// FailedPrecondition naming the lease, and nothing is saved or deleted.
// Stores of one process's own storage (RocksDB, in memory), which no other
// process can change, ignore fences.
class SnapshotStore {
 public:
  using LoadCallback =
      absl::AnyInvocable<void(absl::StatusOr<LoadSnapshotResult> result) &&>;
  using DoneCallback = absl::AnyInvocable<void(absl::Status status) &&>;

  virtual ~SnapshotStore() = default;

  // The newest readable snapshot (highest sequence number) of
  // `persistence_id` matching `criteria.Limit(to_sequence_nr)`; none if
  // nothing matches or nothing matching can be read. A snapshot that cannot
  // be read (its record is corrupt, or no serializer knows its serializer
  // id or manifest) is passed over for the next older one, as Akka's local
  // snapshot store does, and reported in `unreadable`, not silently
  // dropped: the recovery replays more events instead and fails if they
  // are deleted. Not OK only if the store itself failed (a read error, a
  // damaged key or table file).
  virtual void AsyncLoad(std::string persistence_id,
                         SnapshotSelectionCriteria criteria,
                         int64_t to_sequence_nr, LoadCallback done) = 0;

  // Names the storage the snapshots are kept in, for a journal on the same
  // storage: a journal that recognises it in AsyncStartRecovery
  // (journal.h) may read the snapshot itself, in one visit with the events,
  // rather than call AsyncLoad. It must then see what AsyncLoad would
  // (the saves and deletes submitted before), which the two plugins agree
  // on between themselves. nullptr (the default): loads go through
  // AsyncLoad. A wrapper that does not forward it keeps seeing every load.
  virtual const void* ColocationKey() const { return nullptr; }

  // Stores `snapshot` under (metadata.persistence_id, metadata.sequence_nr),
  // replacing one stored there before. InvalidArgument if it cannot be
  // serialized; other codes if the store failed.
  virtual void AsyncSave(SnapshotMetadata metadata,
                         serialization::Payload snapshot,
                         std::optional<WriteFence> fence,
                         DoneCallback done) = 0;

  // Deletes the snapshot at (metadata.persistence_id, metadata.sequence_nr);
  // the timestamp is not compared. OK if there was none.
  virtual void AsyncDelete(SnapshotMetadata metadata,
                           std::optional<WriteFence> fence,
                           DoneCallback done) = 0;

  // Deletes every snapshot of `persistence_id` matching `criteria`.
  virtual void AsyncDeleteByCriteria(std::string persistence_id,
                                     SnapshotSelectionCriteria criteria,
                                     std::optional<WriteFence> fence,
                                     DoneCallback done) = 0;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_SNAPSHOT_STORE_H_
