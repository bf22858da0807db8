#include "persistence/storage/journal.h"

#include <atomic>
#include <memory>
#include <utility>

namespace cairn::persistence {

void Journal::AsyncStartRecovery(RecoveryStartRequest request,
                                 ReplayCallback /*on_event*/,
                                 RecoveryStartCallback done) {
  // The two answers meet here; whichever comes last completes the call.
  // The release-acquire count orders each writer's field before the read.
  struct Join {
    std::atomic<int> pending{2};
    RecoveryStart start;
    RecoveryStartCallback done;

    void Arrive() {
      if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::move(done)(std::move(start));
      }
    }
  };
  auto join = std::make_shared<Join>();
  join->done = std::move(done);
  if (request.snapshots == nullptr) {
    // Set before the read is asked for: `done` must not run in this call.
    LoadSnapshotResult none;
    none.to_sequence_nr = request.to_sequence_nr;
    join->start.snapshot = std::move(none);
    join->pending.store(1, std::memory_order_relaxed);
  }
  AsyncReadHighestSequenceNr(request.persistence_id, 0,
                             [join](absl::StatusOr<int64_t> highest) {
                               join->start.highest = std::move(highest);
                               join->Arrive();
                             });
  if (request.snapshots == nullptr) return;
  request.snapshots->AsyncLoad(
      std::move(request.persistence_id), request.criteria,
      request.to_sequence_nr,
      [join](absl::StatusOr<LoadSnapshotResult> loaded) {
        join->start.snapshot = std::move(loaded);
        join->Arrive();
      });
}

void Journal::AsyncReplayPage(std::string persistence_id,
                              int64_t from_sequence_nr, int64_t to_sequence_nr,
                              int64_t max, ReplayPageCallback done) {
  auto page = std::make_shared<ReplayPage>();
  AsyncReplayMessages(
      std::move(persistence_id), from_sequence_nr, to_sequence_nr, max,
      [page](const PersistentRepr& event) {
        page->AddPayload(event.sequence_nr, event.payload);
      },
      [page, done = std::move(done)](absl::Status status) mutable {
        std::move(done)(std::move(status), std::move(*page));
      });
}

}  // namespace cairn::persistence
