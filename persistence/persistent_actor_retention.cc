// PersistentActor's snapshot retention (retention_criteria.h): a snapshot
// after every N-th event, then the deletes that keep the newest K.

#include <cstdint>
#include <optional>
#include <utility>

#include "persistence/internal/persistent_actor_protocol.h"
#include "persistence/persistent_actor.h"

namespace cairn::persistence {

void PersistentActor::SnapshotIfDue(int64_t sequence_nr) {
  if (retention_ == nullptr || !retention_->criteria.SnapshotWhen(sequence_nr))
    return;
  std::optional<serialization::Payload> snapshot = RetentionSnapshot();
  if (snapshot.has_value()) SaveSnapshotPayload(*std::move(snapshot));
}

void PersistentActor::OnRetentionOutcome(const actor::MessageView& message) {
  if (retention_ == nullptr) return;
  RetentionCriteria& criteria = retention_->criteria;
  int64_t& deleting_events_to = retention_->deleting_events_to;
  if (const auto* saved = message.As<SaveSnapshotSuccess>()) {
    if (saved->metadata.persistence_id != persistence_id_) return;
    const int64_t bound =
        criteria.DeleteUpperSequenceNr(saved->metadata.sequence_nr);
    if (bound <= 0) return;
    if (criteria.delete_events_on_snapshot) {
      // Akka's order: the events first, the snapshots once that succeeded.
      deleting_events_to = bound;
      DeleteMessages(bound);
    } else {
      DeleteSnapshots(SnapshotSelectionCriteria{bound, kMaxSequenceNr, 0, 0});
    }
    return;
  }
  if (const auto* deleted = message.As<DeleteMessagesSuccess>()) {
    if (deleting_events_to == 0 ||
        deleted->to_sequence_nr != deleting_events_to) {
      return;
    }
    const int64_t bound = std::exchange(deleting_events_to, 0);
    DeleteSnapshots(SnapshotSelectionCriteria{bound, kMaxSequenceNr, 0, 0});
    return;
  }
  if (const auto* failed = message.As<DeleteMessagesFailure>()) {
    // The snapshots stay: without the events' delete they are still the way
    // to the older state. The next snapshot tries again.
    if (failed->to_sequence_nr == deleting_events_to) {
      deleting_events_to = 0;
    }
  }
}

}  // namespace cairn::persistence
