// PersistentActor's recovery: permit, snapshot, replay, highest sequence
// number, RecoveryCompleted (the states before kProcessing in the table in
// persistent_actor.h).

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "base/status_copy.h"
#include "persistence/internal/persistent_actor_protocol.h"
#include "persistence/internal/recovery_permitter.h"
#include "persistence/internal/recovery_watchdog.h"
#include "persistence/persistent_actor.h"

namespace cairn::persistence {
namespace {

using Kind = internal::Protocol::Kind;

// Events the first page has room for before it grows.
constexpr int64_t kFirstPageReserve = 16;

// The statuses of `start` as copies of their own: the plugin may keep the
// ones it handed out, and a shared representation's reference count is
// invisible to ThreadSanitizer (absl is not instrumented).
void OwnStatuses(RecoveryStart& start) {
  if (!start.snapshot.ok()) {
    start.snapshot = base::OwnCopy(start.snapshot.status());
  } else {
    for (absl::Status& unreadable : start.snapshot->unreadable) {
      unreadable = base::OwnCopy(unreadable);
    }
  }
  if (!start.highest.ok())
    start.highest = base::OwnCopy(start.highest.status());
  if (start.replay.has_value()) *start.replay = base::OwnCopy(*start.replay);
}
using Phase = internal::RecoveryPhase;
using internal::RecoveryHandler;
using internal::Reply;

}  // namespace

// --- Recovery ----------------------------------------------------------------

bool PersistentActor::StartRecovery() {
  persistence_id_ = PersistenceId();
  if (persistence_id_.empty()) {
    throw std::invalid_argument(absl::StrCat(
        "PersistenceId() of ", Self().Path().ToString(), " is empty"));
  }
  run_ = std::make_unique<internal::RecoveryRun>();
  persistence_ = &Persistence::Get(Context().System());
  fence_scope_ = persistence_->WriteFenceScopeOf(Self());
  const std::string journal_plugin_id = JournalPluginId();
  const Persistence::RecoverySettings& settings =
      persistence_->RecoverySettingsFor(journal_plugin_id);
  std::optional<RetentionCriteria> retention = GetRetention();
  if (!retention.has_value()) {
    if (!settings.retention.ok()) {
      FailRecovery(settings.retention.status(), nullptr);
      return false;
    }
    retention = *settings.retention;
  }
  retention_ = nullptr;
  if (retention->enabled()) {
    retention_ = std::make_unique<internal::RetentionRun>();
    retention_->criteria = *retention;
  }
  run_->unreadable_snapshot = absl::OkStatus();
  if (absl::Status claimed = persistence_->ClaimPersistenceId(
          journal_plugin_id, persistence_id_, Self());
      !claimed.ok()) {
    FailRecovery(claimed, nullptr);
    return false;
  }
  claims_id_ = true;
  run_->recovery = GetRecovery();
  run_->timeout = settings.event_timeout;
  if (!settings.replay_batch_size.ok()) {
    FailRecovery(settings.replay_batch_size.status(), nullptr);
    return false;
  }
  run_->replay_batch_size = *settings.replay_batch_size;
  state_ = Phase::kWaitingPermit;
  holds_permit_ = true;
  if (persistence_->Permitter().TryAcquire(instance_)) return true;
  persistence_->Permitter().Request(
      instance_, [self = Self(), instance = instance_] {
        self.Tell(Reply(instance, Kind::kPermitGranted), actor::ActorRef());
      });
  return false;
}

void PersistentActor::OnPermitGranted() {
  absl::StatusOr<Journal*> journal =
      persistence_->JournalFor(JournalPluginId());
  if (!journal.ok()) return FailRecovery(journal.status(), nullptr);
  absl::StatusOr<SnapshotStore*> store =
      persistence_->SnapshotStoreFor(SnapshotPluginId());
  if (!store.ok()) return FailRecovery(store.status(), nullptr);
  journal_ = *journal;
  snapshot_store_ = *store;
  state_ = Phase::kLoadingSnapshot;
  // The watchdog's first tick may come at once: it passes (event_seen).
  run_->event_seen = true;
  persistence_->Watchdog().Watch(instance_, Self(), run_->timeout);
  run_->watched = true;
  // One request for the snapshot, the highest sequence number and (where
  // the journal reads it) the first batch: the recovery waits for one
  // answer, not three. The highest is read beside the snapshot, not after
  // the replay: the number is the same (nothing else writes this stream
  // while it recovers, and the journal's read-after-write rule covers this
  // incarnation's predecessors). Akka reads it before the replay too.
  RecoveryStartRequest request;
  request.persistence_id = persistence_id_;
  request.snapshots = snapshot_store_;
  request.criteria = run_->recovery.from_snapshot;
  request.to_sequence_nr = run_->recovery.to_sequence_nr;
  // An offer nobody takes replays from the first event (OnSnapshotLoaded,
  // which goes by the same answer, taken once).
  run_->offers_taken =
      FindRecoveryHandler(serialization::Payload::Of(SnapshotOffer{})) !=
      nullptr;
  request.replay_after_snapshot = run_->offers_taken;
  request.page_max =
      std::min(run_->recovery.replay_max, run_->replay_batch_size);
  auto page = std::make_shared<ReplayPage>();
  // Room for a small actor's events at once, not grown one doubling at a
  // time (most entities have a few events after their snapshot).
  page->Reserve(static_cast<size_t>(std::clamp<int64_t>(request.page_max, 0,
                                                        kFirstPageReserve)),
                0);
  journal_->AsyncStartRecovery(
      std::move(request),
      [page](const PersistentRepr& event) {
        page->AddPayload(event.sequence_nr, event.payload);
      },
      [self = Self(), instance = instance_, page](RecoveryStart start) {
        internal::Protocol p = Reply(instance, Kind::kRecoveryStarted);
        OwnStatuses(start);
        p.start = std::make_shared<RecoveryStart>(std::move(start));
        p.page = page;
        self.Tell(std::move(p), actor::ActorRef());
      });
}

void PersistentActor::OnRecoveryStarted(RecoveryStart& start,
                                        const ReplayPage& events) {
  if (!start.snapshot.ok())
    return FailRecovery(start.snapshot.status(), nullptr);
  run_->journal_highest = std::move(start.highest);
  OnSnapshotLoaded(*start.snapshot,
                   start.replay.has_value() ? &*start.replay : nullptr, events);
}

void PersistentActor::OnSnapshotLoaded(const LoadSnapshotResult& result,
                                       const absl::Status* first_batch,
                                       const ReplayPage& events) {
  if (!result.unreadable.empty() && run_->offers_taken) {
    for (const absl::Status& unreadable : result.unreadable) {
      Context()
          .System()
          .Log(Self().Path().ToString())
          .Warning(absl::StrCat(
              "recovery of ", Describe(), " passes over a snapshot: ",
              unreadable.message(), "; replaying the events it covered"));
    }
    run_->unreadable_snapshot = result.unreadable.front();
  }
  if (result.snapshot.has_value()) {
    const SelectedSnapshot& selected = *result.snapshot;
    const SnapshotOffer offer_value{selected.metadata, selected.snapshot};
    const serialization::Payload offer =
        serialization::Payload::Of(offer_value);
    if (run_->offers_taken) {
      last_sequence_nr_ = selected.metadata.sequence_nr;
      snapshot_sequence_nr_ = selected.metadata.sequence_nr;
      if (!RunRecoveryHandler(offer, "SnapshotOffer")) return;
    } else {
      // Nobody took the snapshot's state, so the events it covers are the
      // only way to rebuild it: replay starts from the first (Akka's
      // unhandled offer). Starting after the snapshot would silently drop
      // them.
      Unhandled(actor::AnyMessage::Of(offer_value));
    }
  }
  state_ = Phase::kReplaying;
  run_->replay_to =
      std::min(result.to_sequence_nr, run_->recovery.to_sequence_nr);
  run_->replay_remaining = run_->recovery.replay_max;
  if (run_->replay_remaining <= 0 || last_sequence_nr_ >= run_->replay_to) {
    return OnBatchReplayed(ReplayPage(), absl::OkStatus());
  }
  if (first_batch == nullptr) return RequestReplay(last_sequence_nr_ + 1);
  // The journal read it as RequestReplay would have asked: the same
  // start (after the snapshot if offers are taken) and size.
  run_->replay_requested =
      std::min(run_->replay_remaining, run_->replay_batch_size);
  run_->replay_remaining -= run_->replay_requested;
  OnBatchReplayed(events, *first_batch);
}

void PersistentActor::RequestReplay(int64_t from) {
  run_->replay_requested =
      std::min(run_->replay_remaining, run_->replay_batch_size);
  run_->replay_remaining -= run_->replay_requested;
  AskPage(from, run_->replay_to, run_->replay_requested, /*range_from=*/0);
}

void PersistentActor::AskPage(int64_t from, int64_t to, int64_t max,
                              int64_t range_from) {
  // The batch comes as one message: its events reach the handlers in
  // order, and the mailbox holds one message per batch, not one per event.
  // The journal may leave them serialized: they are deserialized here, in
  // this actor's turn, while the journal reads the next batch.
  journal_->AsyncReplayPage(
      persistence_id_, from, to, max,
      [self = Self(), instance = instance_, range_from](absl::Status status,
                                                        ReplayPage page) {
        internal::Protocol p = Reply(instance, Kind::kReplayed);
        p.page = std::make_shared<const ReplayPage>(std::move(page));
        p.status = base::OwnCopy(status);
        p.range_from = range_from;
        self.Tell(std::move(p), actor::ActorRef());
      });
}

void PersistentActor::OnReplayed(std::shared_ptr<const ReplayPage> page,
                                 absl::Status status, int64_t range_from) {
  if (range_from == 0) return OnBatchReplayed(*page, status);
  if (range_from != run_->applying_from) {
    run_->early_page = std::move(page);
    run_->early_status = std::move(status);
    run_->early_from = range_from;
    return;
  }
  while (OnRangeReplayed(*page, status, range_from)) {
    if (run_->early_page == nullptr ||
        run_->early_from != run_->applying_from) {
      return;
    }
    page = std::move(run_->early_page);
    status = std::move(run_->early_status);
    range_from = run_->early_from;
  }
}

void PersistentActor::OnBatchReplayed(const ReplayPage& events,
                                      const absl::Status& status) {
  const auto size = static_cast<int64_t>(events.size());
  // What adapters made beyond the request counts against replay_max too.
  run_->replay_remaining -=
      std::min(run_->replay_remaining,
               std::max<int64_t>(0, size - run_->replay_requested));
  // A full batch short of the bound: the journal may have more. Asking for
  // them now lets it read them while the handlers run these. Event adapters
  // may make a batch longer than asked (never shorter unless it is the
  // last, EventAdaptingJournal).
  const bool more = status.ok() && size > 0 && size >= run_->replay_requested &&
                    events.last_sequence_nr() < run_->replay_to &&
                    run_->replay_remaining > 0;
  if (more) {
    // By range when nothing but the stream's end bounds the replay and a
    // whole range lies before it: the highest, read at the start, says
    // where the ranges stop.
    const int64_t from = events.last_sequence_nr() + 1;
    if (run_->recovery.replay_max == kMaxSequenceNr &&
        run_->journal_highest.ok() &&
        from <= std::min(run_->replay_to, *run_->journal_highest) -
                    run_->replay_batch_size) {
      StartRanges(from);
    } else {
      RequestReplay(from);
    }
  }
  if (!ApplyReplayed(events, status) || more) return;
  EndReplay();
}

void PersistentActor::StartRanges(int64_t from) {
  run_->replay_end = std::min(run_->replay_to, *run_->journal_highest);
  run_->next_range_from = from;
  run_->applying_from = from;
  run_->tail_requested = false;
  run_->ranges_in_flight = 0;
  RequestRanges();
}

void PersistentActor::RequestRanges() {
  const int64_t size = run_->replay_batch_size;
  while (run_->ranges_in_flight < 2 && !run_->tail_requested) {
    const int64_t from = run_->next_range_from;
    // The range that reaches the highest is the tail: it goes to the
    // replay's bound, counted, as a batch would. The highest only sets
    // where the ranges stop; it does not hide an event after it.
    // A range before the tail is bounded by its numbers alone: a count
    // would cut it short where event adapters split events, and the next
    // range starts after it whatever came.
    run_->tail_requested = RangeIsTail(from);
    if (run_->tail_requested) {
      AskPage(from, run_->replay_to, size, from);
    } else {
      AskPage(from, from + size - 1, kMaxSequenceNr, from);
      run_->next_range_from = from + size;
    }
    ++run_->ranges_in_flight;
  }
}

bool PersistentActor::RangeIsTail(int64_t from) const {
  return from > run_->replay_end - run_->replay_batch_size;
}

bool PersistentActor::OnRangeReplayed(const ReplayPage& events,
                                      const absl::Status& status,
                                      int64_t range_from) {
  const int64_t size = run_->replay_batch_size;
  --run_->ranges_in_flight;
  const bool tail = RangeIsTail(range_from);
  run_->applying_from = tail ? 0 : range_from + size;
  bool more = false;
  if (tail) {
    // The tail was full: events written after the highest was read (by an
    // earlier incarnation's write that was still landing): counted batches
    // go on from here, as without ranges.
    more = status.ok() && static_cast<int64_t>(events.size()) >= size &&
           events.last_sequence_nr() < run_->replay_to;
    if (more) RequestReplay(events.last_sequence_nr() + 1);
  } else if (status.ok()) {
    RequestRanges();
  }
  if (!ApplyReplayed(events, status)) return false;
  if (!tail) return true;
  if (!more) EndReplay();
  return false;
}

bool PersistentActor::ApplyReplayed(const ReplayPage& events,
                                    const absl::Status& status) {
  bool stopped = false;  // the recovery failed in a handler, or a check
  const absl::Status deserialized = events.ForEach(
      persistence_id_, [this, &stopped](const serialization::Payload& payload,
                                        int64_t sequence_nr) {
        if (!CheckReplayFollowsSnapshot(sequence_nr)) {
          stopped = true;
          return false;
        }
        last_sequence_nr_ = sequence_nr;
        if (!RunRecoveryHandler(payload, "event")) {
          stopped = true;
          return false;
        }
        return true;
      });
  if (stopped) return false;
  if (!deserialized.ok()) {
    FailRecovery(deserialized, nullptr);
    return false;
  }
  if (!status.ok()) {
    FailRecovery(status, nullptr);
    return false;
  }
  return true;
}

void PersistentActor::EndReplay() {
  state_ = Phase::kReadingHighest;
  OnHighestRead(
      std::exchange(run_->journal_highest, absl::StatusOr<int64_t>(0)));
}

void PersistentActor::OnHighestRead(absl::StatusOr<int64_t> highest) {
  if (!highest.ok()) return FailRecovery(highest.status(), nullptr);
  // No event came although the journal has some after the snapshot, and the
  // recovery asked for them: they are deleted.
  if (!run_->unreadable_snapshot.ok() && *highest > last_sequence_nr_ &&
      run_->recovery.to_sequence_nr > last_sequence_nr_ &&
      run_->recovery.replay_max > 0 && !CheckReplayFollowsSnapshot(0)) {
    return;
  }
  run_->unreadable_snapshot = absl::OkStatus();
  // Akka's rule: go on after the journal's highest, also when the recovery
  // stopped short of it (to_sequence_nr, replay_max), so no number is
  // written twice.
  last_sequence_nr_ = std::max(last_sequence_nr_, *highest);
  next_sequence_nr_ = last_sequence_nr_ + 1;
  OnReplaySuccess();
  FinishRecovery();
}

bool PersistentActor::CheckReplayFollowsSnapshot(int64_t first_replayed) {
  if (run_->unreadable_snapshot.ok()) return true;
  const absl::Status unreadable = std::exchange(run_->unreadable_snapshot, {});
  if (first_replayed == last_sequence_nr_ + 1) return true;
  FailRecovery(
      absl::DataLossError(absl::StrCat(
          "no snapshot can stand in for the one that cannot be loaded (",
          unreadable.message(), "): ",
          last_sequence_nr_ == 0
              ? std::string("no older snapshot could be loaded")
              : absl::StrCat("recovering from the snapshot at sequence nr ",
                             last_sequence_nr_),
          ", the events from sequence nr ", last_sequence_nr_ + 1,
          " are needed, but they are deleted (",
          first_replayed == 0
              ? std::string("none is left")
              : absl::StrCat("the replay starts at sequence nr ",
                             first_replayed),
          ")")),
      nullptr);
  return false;
}

void PersistentActor::FinishRecovery() {
  ReleaseRecoveryResources();
  state_ = Phase::kProcessing;
  // The handler may persist (Akka allows it here): its events go out like a
  // command's.
  try {
    const serialization::Payload completed =
        serialization::Payload::Of(RecoveryCompleted{});
    if (RecoveryHandler* h = FindRecoveryHandler(completed)) {
      h->handler(completed);
    }
  } catch (...) {
    state_ = Phase::kReadingHighest;  // still recovering, for FailRecovery
    FailRecovery(absl::InternalError(absl::StrCat(
                     "RecoveryCompleted handler threw: ",
                     actor::DescribeException(std::current_exception()))),
                 nullptr);
    return;
  }
  // No handler of this incarnation runs again (a restart makes a new
  // instance, which declares its own).
  std::vector<RecoveryHandler>().swap(recovery_handlers_);
  AfterUserCode(/*threw=*/false);
}

internal::RecoveryHandler* PersistentActor::FindRecoveryHandler(
    const serialization::Payload& payload) {
  for (RecoveryHandler& h : recovery_handlers_) {
    if (h.type == payload.type()) return &h;
  }
  return nullptr;
}

bool PersistentActor::RunRecoveryHandler(const serialization::Payload& payload,
                                         const char* what) {
  try {
    if (RecoveryHandler* h = FindRecoveryHandler(payload)) {
      h->handler(payload);
    } else {
      // Skipped by default, as Akka's unhandled recovery events.
      OnUnhandledRecoveryEvent(payload);
    }
    return true;
  } catch (...) {
    FailRecovery(absl::InternalError(absl::StrCat(
                     "recovery handler for ", what, " ", payload.TypeName(),
                     " at sequence number ", last_sequence_nr_, " threw: ",
                     actor::DescribeException(std::current_exception()))),
                 &payload);
    return false;
  }
}

void PersistentActor::OnRecoveryTick() {
  if (run_->event_seen) {
    run_->event_seen = false;
    return;
  }
  FailRecovery(
      absl::DeadlineExceededError(absl::StrCat(
          "recovery timed out: nothing from the journal or the "
          "snapshot store for ",
          absl::FormatDuration(run_->timeout), " (recovery-event-timeout)")),
      nullptr);
}

void PersistentActor::FailRecovery(const absl::Status& cause,
                                   const serialization::Payload* event) {
  ReleaseRecoveryResources();
  state_ = Phase::kFailed;
  absl::Status described(
      cause.code(),
      absl::StrCat("recovery of ", Describe(), " failed: ", cause.message()));
  try {
    OnRecoveryFailure(described, event);
  } catch (...) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Error(
            absl::StrCat("OnRecoveryFailure threw: ",
                         actor::DescribeException(std::current_exception())));
  }
  Context().Stop(Self());
}

void PersistentActor::OnRecoveryFailure(const absl::Status& cause,
                                        const serialization::Payload*) {
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Error(std::string(cause.message()));
}

}  // namespace cairn::persistence
