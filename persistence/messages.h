#ifndef CAIRN_PERSISTENCE_MESSAGES_H_
#define CAIRN_PERSISTENCE_MESSAGES_H_

// What a PersistentActor receives from its recovery and from its journal and
// snapshot store (the names are Akka's). Recovery handlers get
// SnapshotOffer and RecoveryCompleted (Recover<SnapshotOffer>(...));
// command handlers get the outcomes of SaveSnapshot, DeleteSnapshot(s) and
// DeleteMessages (Command<SaveSnapshotSuccess>(...)). A failure carries the
// store's absl::Status, whose message names the persistence id.

#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/payload.h"

namespace cairn::persistence {

// How a PersistentActor recovers (Akka's Recovery): from the newest snapshot
// matching `from_snapshot`, then the events after it up to
// `to_sequence_nr`, at most `replay_max` of them (with event adapters, of
// the events they make; the events of one stored event come together, so
// the last stored event's may go past it).
struct Recovery {
  SnapshotSelectionCriteria from_snapshot = SnapshotSelectionCriteria::Latest();
  int64_t to_sequence_nr = kMaxSequenceNr;
  int64_t replay_max = kMaxSequenceNr;

  // No snapshot and no events: the actor starts empty, and its sequence
  // numbers still go on after the journal's highest.
  static Recovery None() {
    return Recovery{SnapshotSelectionCriteria::None(), 0, 0};
  }
};

// Offered to the recovery handlers before the events that follow it.
// `snapshot` holds the value saved with SaveSnapshot (snapshot.As<T>()).
struct SnapshotOffer {
  SnapshotMetadata metadata;
  serialization::Payload snapshot;
};

// Delivered to the recovery handlers exactly once, after the last replayed
// event, also when there was nothing to replay.
struct RecoveryCompleted {};

struct SaveSnapshotSuccess {
  SnapshotMetadata metadata;
};
struct SaveSnapshotFailure {
  SnapshotMetadata metadata;
  absl::Status cause;
};
struct DeleteSnapshotSuccess {
  SnapshotMetadata metadata;
};
struct DeleteSnapshotFailure {
  SnapshotMetadata metadata;
  absl::Status cause;
};
struct DeleteSnapshotsSuccess {
  SnapshotSelectionCriteria criteria;
};
struct DeleteSnapshotsFailure {
  SnapshotSelectionCriteria criteria;
  absl::Status cause;
};
struct DeleteMessagesSuccess {
  int64_t to_sequence_nr = 0;
};
struct DeleteMessagesFailure {
  absl::Status cause;
  int64_t to_sequence_nr = 0;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_MESSAGES_H_
