#ifndef CAIRN_PERSISTENCE_RETENTION_CRITERIA_H_
#define CAIRN_PERSISTENCE_RETENTION_CRITERIA_H_

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cairn::persistence {

// When a PersistentActor snapshots on its own, and what it deletes after
// (Akka typed's RetentionCriteria.snapshotEvery):
//
//   RetentionCriteria::SnapshotEvery(100, 2).WithDeleteEventsOnSnapshot()
//
// - A snapshot (PersistentActor::RetentionSnapshot) is saved after the
//   handler of every event whose sequence number is a multiple of
//   `snapshot_every` has run.
// - After a snapshot at sequence number s is saved, the snapshots at or
//   below DeleteUpperSequenceNr(s) = s - keep_n_snapshots * snapshot_every
//   are deleted, so the newest `keep_n_snapshots` remain.
// - With `delete_events_on_snapshot`, the events at or below that bound are
//   deleted first, and the snapshots once that has succeeded (Akka's
//   order): the oldest kept snapshot still has every event after it, so a
//   recovery can fall back to it when a newer one cannot be read.
//
// A value type; thread-compatible.
struct RetentionCriteria {
  int64_t snapshot_every = 0;  // 0: retention is off
  int64_t keep_n_snapshots = 0;
  bool delete_events_on_snapshot = false;

  // No snapshots of its own, nothing deleted (the default).
  static RetentionCriteria Disabled() { return {}; }

  // Throws std::invalid_argument unless both are at least 1 (Akka's
  // require).
  static RetentionCriteria SnapshotEvery(int64_t number_of_events,
                                         int64_t keep_n_snapshots) {
    if (number_of_events < 1 || keep_n_snapshots < 1) {
      throw std::invalid_argument(
          "RetentionCriteria::SnapshotEvery(" +
          std::to_string(number_of_events) + ", " +
          std::to_string(keep_n_snapshots) +
          "): both the number of events and the snapshots kept must be at "
          "least 1");
    }
    return RetentionCriteria{number_of_events, keep_n_snapshots, false};
  }

  RetentionCriteria WithDeleteEventsOnSnapshot() const {
    RetentionCriteria criteria = *this;
    criteria.delete_events_on_snapshot = true;
    return criteria;
  }

  bool enabled() const { return snapshot_every > 0; }

  // Whether the event at `sequence_nr` is followed by a snapshot.
  bool SnapshotWhen(int64_t sequence_nr) const {
    return enabled() && sequence_nr > 0 && sequence_nr % snapshot_every == 0;
  }

  // What goes after a snapshot at `snapshot_sequence_nr`: the snapshots (and
  // with delete_events_on_snapshot, the events) at or below it; 0: none.
  int64_t DeleteUpperSequenceNr(int64_t snapshot_sequence_nr) const {
    // Compared by division first: the product may not fit.
    if (!enabled() || snapshot_sequence_nr <= 0 ||
        keep_n_snapshots > snapshot_sequence_nr / snapshot_every) {
      return 0;
    }
    return snapshot_sequence_nr - keep_n_snapshots * snapshot_every;
  }

  bool operator==(const RetentionCriteria&) const = default;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_RETENTION_CRITERIA_H_
