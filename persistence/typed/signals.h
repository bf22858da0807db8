#ifndef CAIRN_PERSISTENCE_TYPED_SIGNALS_H_
#define CAIRN_PERSISTENCE_TYPED_SIGNALS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "persistence/messages.h"
#include "persistence/storage/snapshot_store.h"

namespace cairn::persistence::typed {

// What happens to an EventSourcedBehavior besides its commands (Akka
// typed's signals), given to its ReceiveSignal handler with the state.
// Value types.

// The recovery is over: the snapshot and the events after it are applied.
// Once per incarnation, before the first command.
using persistence::RecoveryCompleted;

// The recovery failed (the store, a corrupt record, an event handler that
// threw); the actor stops after this signal.
struct RecoveryFailed {
  absl::Status cause;
};

// A snapshot (SnapshotWhen, or retention) is saved, or failed to be.
struct SnapshotCompleted {
  SnapshotMetadata metadata;
};
struct SnapshotFailed {
  SnapshotMetadata metadata;
  absl::Status cause;
};

// Retention's deletes of older snapshots and events.
struct DeleteSnapshotsCompleted {
  SnapshotSelectionCriteria criteria;
};
struct DeleteSnapshotsFailed {
  SnapshotSelectionCriteria criteria;
  absl::Status cause;
};
struct DeleteEventsCompleted {
  int64_t to_sequence_nr = 0;
};
struct DeleteEventsFailed {
  int64_t to_sequence_nr = 0;
  absl::Status cause;
};

}  // namespace cairn::persistence::typed

#endif  // CAIRN_PERSISTENCE_TYPED_SIGNALS_H_
