#include "persistence/persistent_actor.h"

#include <algorithm>
#include <atomic>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/payload.h"
#include "persistence/internal/recovery_permitter.h"

namespace cairn::persistence {

namespace internal {

// Every reply of the stores and the permitter reaches the actor as one of
// these, through its mailbox, tagged with the incarnation it is for: a
// reply to an incarnation that has since restarted is dropped.
struct Protocol {
  enum class Kind {
    kPermitGranted,
    kSnapshotLoaded,
    kReplayed,
    kReplayDone,
    kHighestRead,
    kRecoveryTick,
    kWritten,
    kRejected,
    kWriteFailed,
    kLooped,
    kBatchDone,
  };
  uint64_t instance = 0;
  Kind kind = Kind::kPermitGranted;
  absl::Status status;
  std::optional<LoadSnapshotResult> snapshot;  // kSnapshotLoaded
  Payload payload;                             // an event
  int64_t sequence_nr = 0;                     // of the event; the highest
};

}  // namespace internal

namespace {

using Kind = internal::Protocol::Kind;
using Phase = internal::RecoveryPhase;
using internal::OutgoingEvent;
using internal::PendingInvocation;
using internal::RecoveryHandler;

uint64_t NextInstance() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// Identifies this incarnation's writes in the journal (Akka's writerUuid).
std::string NewWriterUuid(uint64_t instance) {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  return absl::StrFormat("%016x-%d", random(), instance);
}

int64_t UnixMillisNow() { return absl::ToUnixMillis(absl::Now()); }

internal::Protocol Reply(uint64_t instance, Kind kind) {
  internal::Protocol p;
  p.instance = instance;
  p.kind = kind;
  return p;
}

}  // namespace

PersistentActor::PersistentActor()
    : instance_(NextInstance()), writer_uuid_(NewWriterUuid(instance_)) {
  UnstashThroughInternalStash();
}

PersistentActor::~PersistentActor() = default;

std::string PersistentActor::Describe() const {
  return absl::StrCat("persistent actor ", Self().Path().ToString(),
                      " (persistence id \"", persistence_id_, "\")");
}

// --- Lifecycle ---------------------------------------------------------------

void PersistentActor::AroundPreStart() {
  StartRecovery();
  Actor::AroundPreStart();
}

void PersistentActor::AroundPostRestart(const std::exception_ptr& reason) {
  StartRecovery();
  Actor::AroundPostRestart(reason);
}

void PersistentActor::AroundPreRestart(const std::exception_ptr& reason,
                                       const actor::AnyMessage& message) {
  OnIncarnationEnd();
  ReleaseRecoveryResources();
  ReleasePersistenceId();
  Actor::AroundPreRestart(reason, message);
}

void PersistentActor::AroundPostStop() {
  OnIncarnationEnd();
  ReleaseRecoveryResources();
  ReleasePersistenceId();
  Actor::AroundPostStop();
}

void PersistentActor::ReleasePersistenceId() {
  if (!claims_id_) return;
  claims_id_ = false;
  persistence_->ReleasePersistenceId(JournalPluginId(), persistence_id_,
                                     Self());
}

void PersistentActor::ReleaseRecoveryResources() {
  recovery_timer_.Cancel();
  if (holds_permit_) {
    holds_permit_ = false;
    persistence_->Permitter().Return(instance_);
  }
}

// --- Recovery ----------------------------------------------------------------

void PersistentActor::StartRecovery() {
  persistence_id_ = PersistenceId();
  if (persistence_id_.empty()) {
    throw std::invalid_argument(absl::StrCat(
        "PersistenceId() of ", Self().Path().ToString(), " is empty"));
  }
  persistence_ = &Persistence::Get(Context().System());
  if (absl::Status claimed = persistence_->ClaimPersistenceId(
          JournalPluginId(), persistence_id_, Self());
      !claimed.ok()) {
    return FailRecovery(claimed, nullptr);
  }
  claims_id_ = true;
  recovery_ = GetRecovery();
  recovery_timeout_ = persistence_->RecoveryEventTimeout(JournalPluginId());
  state_ = Phase::kWaitingPermit;
  holds_permit_ = true;
  persistence_->Permitter().Request(
      instance_, [self = Self(), instance = instance_] {
        self.Tell(Reply(instance, Kind::kPermitGranted), actor::ActorRef());
      });
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
  event_seen_ = false;
  recovery_timer_ = Context().System().Scheduler().ScheduleTellRepeatedly(
      recovery_timeout_, recovery_timeout_, Self(),
      Reply(instance_, Kind::kRecoveryTick));
  snapshot_store_->AsyncLoad(
      persistence_id_, recovery_.from_snapshot, recovery_.to_sequence_nr,
      [self = Self(), instance = instance_](
          absl::StatusOr<LoadSnapshotResult> result) mutable {
        internal::Protocol p = Reply(instance, Kind::kSnapshotLoaded);
        if (result.ok()) {
          p.snapshot = *std::move(result);
        } else {
          p.status = result.status();
        }
        self.Tell(std::move(p), actor::ActorRef());
      });
}

void PersistentActor::OnSnapshotLoaded(
    absl::StatusOr<LoadSnapshotResult> result) {
  if (!result.ok()) return FailRecovery(result.status(), nullptr);
  if (result->snapshot.has_value()) {
    const SelectedSnapshot& selected = *result->snapshot;
    const SnapshotOffer offer_value{selected.metadata, selected.snapshot};
    const Payload offer = Payload::Of(offer_value);
    if (FindRecoveryHandler(offer) != nullptr) {
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
  const int64_t to = std::min(result->to_sequence_nr, recovery_.to_sequence_nr);
  journal_->AsyncReplayMessages(
      persistence_id_, last_sequence_nr_ + 1, to, recovery_.replay_max,
      [self = Self(), instance = instance_](const PersistentRepr& event) {
        internal::Protocol p = Reply(instance, Kind::kReplayed);
        p.payload = event.payload;
        p.sequence_nr = event.sequence_nr;
        self.Tell(std::move(p), actor::ActorRef());
      },
      [self = Self(), instance = instance_](absl::Status status) {
        internal::Protocol p = Reply(instance, Kind::kReplayDone);
        p.status = std::move(status);
        self.Tell(std::move(p), actor::ActorRef());
      });
}

void PersistentActor::OnReplayed(const Payload& event, int64_t sequence_nr) {
  last_sequence_nr_ = sequence_nr;
  RunRecoveryHandler(event, "event");
}

void PersistentActor::OnReplayDone(const absl::Status& status) {
  if (!status.ok()) return FailRecovery(status, nullptr);
  state_ = Phase::kReadingHighest;
  journal_->AsyncReadHighestSequenceNr(
      persistence_id_, last_sequence_nr_,
      [self = Self(), instance = instance_](absl::StatusOr<int64_t> highest) {
        internal::Protocol p = Reply(instance, Kind::kHighestRead);
        if (highest.ok()) {
          p.sequence_nr = *highest;
        } else {
          p.status = highest.status();
        }
        self.Tell(std::move(p), actor::ActorRef());
      });
}

void PersistentActor::OnHighestRead(absl::StatusOr<int64_t> highest) {
  if (!highest.ok()) return FailRecovery(highest.status(), nullptr);
  // Akka's rule: go on after the journal's highest, also when the recovery
  // stopped short of it (to_sequence_nr, replay_max), so no number is
  // written twice.
  last_sequence_nr_ = std::max(last_sequence_nr_, *highest);
  next_sequence_nr_ = last_sequence_nr_ + 1;
  OnReplaySuccess();
  FinishRecovery();
}

void PersistentActor::FinishRecovery() {
  ReleaseRecoveryResources();
  state_ = Phase::kProcessing;
  // The handler may persist (Akka allows it here): its events go out like a
  // command's.
  try {
    const Payload completed = Payload::Of(RecoveryCompleted{});
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
  AfterUserCode(/*threw=*/false);
}

internal::RecoveryHandler* PersistentActor::FindRecoveryHandler(
    const Payload& payload) {
  for (RecoveryHandler& h : recovery_handlers_) {
    if (h.type == payload.type()) return &h;
  }
  return nullptr;
}

bool PersistentActor::RunRecoveryHandler(const Payload& payload,
                                         const char* what) {
  try {
    // No handler: skipped, as Akka's unhandled recovery events.
    if (RecoveryHandler* h = FindRecoveryHandler(payload)) h->handler(payload);
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
  if (event_seen_) {
    event_seen_ = false;
    return;
  }
  FailRecovery(absl::DeadlineExceededError(absl::StrCat(
                   "recovery timed out: nothing from the journal or the "
                   "snapshot store for ",
                   absl::FormatDuration(recovery_timeout_),
                   " (recovery-event-timeout)")),
               nullptr);
}

void PersistentActor::FailRecovery(const absl::Status& cause,
                                   const Payload* event) {
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
                                        const Payload*) {
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Error(std::string(cause.message()));
}

// --- Messages ----------------------------------------------------------------

bool PersistentActor::AroundReceive(const actor::internal::Payload& payload) {
  if (InterceptMessage(payload)) return true;
  if (payload.type() == typeid(internal::Protocol)) {
    const auto& p = *static_cast<const internal::Protocol*>(payload.raw());
    if (p.instance != instance_ || state_ == Phase::kFailed) return true;
    switch (p.kind) {
      case Kind::kPermitGranted:
        OnPermitGranted();
        break;
      case Kind::kSnapshotLoaded:
        event_seen_ = true;
        if (p.snapshot.has_value()) {
          OnSnapshotLoaded(*p.snapshot);
        } else {
          OnSnapshotLoaded(p.status);
        }
        break;
      case Kind::kReplayed:
        event_seen_ = true;
        OnReplayed(p.payload, p.sequence_nr);
        break;
      case Kind::kReplayDone:
        event_seen_ = true;
        OnReplayDone(p.status);
        break;
      case Kind::kHighestRead:
        event_seen_ = true;
        if (p.status.ok()) {
          OnHighestRead(p.sequence_nr);
        } else {
          OnHighestRead(p.status);
        }
        break;
      case Kind::kRecoveryTick:
        if (IsRecovering()) OnRecoveryTick();
        break;
      case Kind::kWritten:
      case Kind::kRejected:
      case Kind::kWriteFailed:
      case Kind::kLooped:
        OnWritten(p);
        break;
      case Kind::kBatchDone:
        OnWriteBatchDone();
        break;
    }
    return true;
  }
  if (state_ != Phase::kProcessing || pending_stashing_ > 0) {
    StashInternally();
    return true;
  }
  bool handled = false;
  try {
    handled = Dispatch(payload);
  } catch (...) {
    // What the command persisted before it threw is still written (Akka).
    AfterUserCode(/*threw=*/true);
    throw;
  }
  AfterUserCode(/*threw=*/false);
  return handled;
}

// --- Persisting --------------------------------------------------------------

void PersistentActor::PersistAllPayloads(std::vector<Payload> events,
                                         internal::EventHandler handler,
                                         bool stashing) {
  if (state_ != Phase::kProcessing) {
    throw actor::IllegalActorStateException(absl::StrCat(
        "cannot persist during recovery of ", Describe(),
        ": a recovery handler must only apply the events it is given"));
  }
  if (events.empty()) return;
  const actor::ActorRef sender = Sender();
  for (Payload& event : events) {
    pending_invocations_.push_back(PendingInvocation{handler, stashing});
    if (stashing) ++pending_stashing_;
    event_batch_.push_back(OutgoingEvent{std::move(event), next_sequence_nr_++,
                                         sender, batch_writes_});
  }
  ++batch_writes_;
}

void PersistentActor::DeferPayload(Payload event,
                                   internal::EventHandler handler,
                                   bool stashing) {
  if (state_ != Phase::kProcessing) {
    throw actor::IllegalActorStateException(
        absl::StrCat("cannot defer during recovery of ", Describe()));
  }
  if (pending_invocations_.empty()) {
    handler(event);
    return;
  }
  pending_invocations_.push_back(
      PendingInvocation{std::move(handler), stashing});
  if (stashing) ++pending_stashing_;
  event_batch_.push_back(OutgoingEvent{std::move(event), 0, Sender(), -1});
}

void PersistentActor::AfterUserCode(bool threw) {
  if (!event_batch_.empty() && !write_in_flight_) FlushBatch();
  if (state_ == Phase::kProcessing && pending_stashing_ == 0) {
    if (threw) {
      UnstashAllInternally();
    } else {
      UnstashOneInternally();
    }
  }
}

void PersistentActor::FlushBatch() {
  std::vector<OutgoingEvent> batch = std::exchange(event_batch_, {});
  const int writes_count = std::exchange(batch_writes_, 0);
  write_in_flight_ = true;
  const actor::ActorRef self = Self();
  const uint64_t instance = instance_;

  // First one kBatchDone, then a reply per entry, with the entry's sender,
  // so that each handler runs with Sender() the sender of its command.
  // kBatchDone goes first (Akka's WriteMessagesSuccessful before the
  // per-event replies): while the handlers run, no write is in flight, so
  // what a command persists before it throws is written on its way out
  // (AfterUserCode) instead of waiting for a kBatchDone that a restart
  // would discard along with it.
  auto complete = [self, instance](const std::vector<OutgoingEvent>& entries,
                                   const absl::Status& batch_status,
                                   const std::vector<absl::Status>& per_write) {
    self.Tell(Reply(instance, Kind::kBatchDone), actor::ActorRef());
    for (const OutgoingEvent& e : entries) {
      internal::Protocol p;
      p.instance = instance;
      p.payload = e.payload;
      p.sequence_nr = e.sequence_nr;
      if (e.sequence_nr == 0) {
        p.kind = Kind::kLooped;
      } else if (!batch_status.ok()) {
        p.kind = Kind::kWriteFailed;
        // Own copies: a shared absl::Status reference count, released on
        // the journal's thread, is invisible to TSan (absl uninstrumented).
        p.status = absl::Status(batch_status.code(), batch_status.message());
      } else if (e.write_index < static_cast<int>(per_write.size()) &&
                 !per_write[e.write_index].ok()) {
        p.kind = Kind::kRejected;
        const absl::Status& rejected = per_write[e.write_index];
        p.status = absl::Status(rejected.code(), rejected.message());
      } else {
        p.kind = Kind::kWritten;
      }
      self.Tell(std::move(p), e.sender);
    }
  };

  if (writes_count == 0) {  // only deferred calls: nothing to write
    complete(batch, absl::OkStatus(), {});
    return;
  }
  std::vector<AtomicWrite> writes(writes_count);
  const int64_t now = UnixMillisNow();
  for (const OutgoingEvent& e : batch) {
    if (e.sequence_nr == 0) continue;
    PersistentRepr repr;
    repr.persistence_id = persistence_id_;
    repr.sequence_nr = e.sequence_nr;
    repr.payload = e.payload;
    repr.writer_uuid = writer_uuid_;
    repr.timestamp = now;
    writes[e.write_index].events.push_back(std::move(repr));
  }
  journal_->AsyncWriteMessages(
      std::move(writes),
      [batch = std::move(batch), complete](
          absl::Status status, std::vector<absl::Status> per_write) {
        complete(batch, status, per_write);
      });
}

void PersistentActor::OnWritten(const internal::Protocol& p) {
  if (pending_invocations_.empty()) return;  // cannot happen; be safe
  PendingInvocation invocation = std::move(pending_invocations_.front());
  pending_invocations_.pop_front();
  if (invocation.stashing) --pending_stashing_;
  if (p.kind == Kind::kWriteFailed) {
    state_ = Phase::kFailed;
    pending_invocations_.clear();
    pending_stashing_ = 0;
    absl::Status cause(
        p.status.code(),
        absl::StrCat("failed to persist event ", p.payload.TypeName(), " of ",
                     Describe(), " at sequence number ", p.sequence_nr, ": ",
                     p.status.message()));
    try {
      OnPersistFailure(cause, p.payload, p.sequence_nr);
    } catch (...) {
      Context()
          .System()
          .Log(Self().Path().ToString())
          .Error(
              absl::StrCat("OnPersistFailure threw: ",
                           actor::DescribeException(std::current_exception())));
    }
    Context().Stop(Self());
    return;
  }
  try {
    switch (p.kind) {
      case Kind::kWritten:
        last_sequence_nr_ = p.sequence_nr;
        RunPersistHandler(invocation, p.payload);
        break;
      case Kind::kLooped:
        RunPersistHandler(invocation, p.payload);
        break;
      case Kind::kRejected:
        last_sequence_nr_ = p.sequence_nr;  // never reused
        OnPersistRejected(
            absl::Status(
                p.status.code(),
                absl::StrCat("journal rejected event ", p.payload.TypeName(),
                             " of ", Describe(), " at sequence number ",
                             p.sequence_nr, ": ", p.status.message())),
            p.payload, p.sequence_nr);
        break;
      default:
        break;
    }
  } catch (...) {
    AfterUserCode(/*threw=*/true);
    throw;
  }
  AfterUserCode(/*threw=*/false);
}

void PersistentActor::RunPersistHandler(internal::PendingInvocation& invocation,
                                        const Payload& event) {
  in_persist_handler_ = true;
  try {
    invocation.handler(event);
  } catch (...) {
    in_persist_handler_ = false;
    throw;
  }
  in_persist_handler_ = false;
}

void PersistentActor::BeforeStash() {
  if (in_persist_handler_) {
    throw actor::IllegalActorStateException(absl::StrCat(
        "do not call Stash inside a persist, persist-async or defer handler (",
        Describe(),
        "): the message being handled there is the journal's reply, not a "
        "command; stash in the command handler instead"));
  }
}

void PersistentActor::OnWriteBatchDone() {
  write_in_flight_ = false;
  if (!event_batch_.empty()) FlushBatch();
}

void PersistentActor::OnPersistFailure(const absl::Status& cause,
                                       const Payload&, int64_t) {
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Error(std::string(cause.message()));
}

void PersistentActor::OnPersistRejected(const absl::Status& cause,
                                        const Payload&, int64_t) {
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Warning(std::string(cause.message()));
}

// --- Snapshots and deletes ---------------------------------------------------

void PersistentActor::SaveSnapshotPayload(Payload snapshot) {
  if (snapshot_store_ == nullptr) {
    throw actor::IllegalActorStateException(
        absl::StrCat("SaveSnapshot before recovery started: ", Describe()));
  }
  SnapshotMetadata metadata{persistence_id_, last_sequence_nr_,
                            UnixMillisNow()};
  snapshot_store_->AsyncSave(
      metadata, std::move(snapshot),
      [self = Self(), metadata](absl::Status status) {
        if (status.ok()) {
          self.Tell(SaveSnapshotSuccess{metadata}, self);
        } else {
          self.Tell(SaveSnapshotFailure{metadata, std::move(status)}, self);
        }
      });
}

void PersistentActor::DeleteSnapshot(int64_t sequence_nr) {
  if (snapshot_store_ == nullptr) {
    throw actor::IllegalActorStateException(
        absl::StrCat("DeleteSnapshot before recovery started: ", Describe()));
  }
  SnapshotMetadata metadata{persistence_id_, sequence_nr, 0};
  snapshot_store_->AsyncDelete(
      metadata, [self = Self(), metadata](absl::Status status) {
        if (status.ok()) {
          self.Tell(DeleteSnapshotSuccess{metadata}, self);
        } else {
          self.Tell(DeleteSnapshotFailure{metadata, std::move(status)}, self);
        }
      });
}

void PersistentActor::DeleteSnapshots(SnapshotSelectionCriteria criteria) {
  if (snapshot_store_ == nullptr) {
    throw actor::IllegalActorStateException(
        absl::StrCat("DeleteSnapshots before recovery started: ", Describe()));
  }
  snapshot_store_->AsyncDeleteByCriteria(
      persistence_id_, criteria,
      [self = Self(), criteria](absl::Status status) {
        if (status.ok()) {
          self.Tell(DeleteSnapshotsSuccess{criteria}, self);
        } else {
          self.Tell(DeleteSnapshotsFailure{criteria, std::move(status)}, self);
        }
      });
}

void PersistentActor::DeleteMessages(int64_t to_sequence_nr) {
  if (journal_ == nullptr) {
    throw actor::IllegalActorStateException(
        absl::StrCat("DeleteMessages before recovery started: ", Describe()));
  }
  if (to_sequence_nr == kMaxSequenceNr) to_sequence_nr = last_sequence_nr_;
  if (to_sequence_nr > last_sequence_nr_) {
    Self().Tell(
        DeleteMessagesFailure{
            absl::InvalidArgumentError(absl::StrCat(
                "DeleteMessages(", to_sequence_nr, ") of ", Describe(),
                " is above its last sequence number ", last_sequence_nr_)),
            to_sequence_nr},
        Self());
    return;
  }
  journal_->AsyncDeleteMessagesTo(
      persistence_id_, to_sequence_nr,
      [self = Self(), to_sequence_nr](absl::Status status) {
        if (status.ok()) {
          self.Tell(DeleteMessagesSuccess{to_sequence_nr}, self);
        } else {
          self.Tell(DeleteMessagesFailure{std::move(status), to_sequence_nr},
                    self);
        }
      });
}

}  // namespace cairn::persistence
