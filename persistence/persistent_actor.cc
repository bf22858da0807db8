#include "persistence/persistent_actor.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "persistence/internal/persistent_actor_protocol.h"
#include "persistence/internal/recovery_permitter.h"
#include "persistence/internal/recovery_watchdog.h"

namespace cairn::persistence {
namespace {

using Kind = internal::Protocol::Kind;
using Phase = internal::RecoveryPhase;
using internal::UnixMillisNow;

uint64_t NextInstance() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// Identifies this incarnation's writes in the journal (Akka's writerUuid).

}  // namespace

PersistentActor::PersistentActor() : instance_(NextInstance()) {
  UnstashThroughInternalStash();
}

PersistentActor::~PersistentActor() = default;

std::string PersistentActor::Describe() const {
  return absl::StrCat("persistent actor ", Self().Path().ToString(),
                      " (persistence id \"", persistence_id_, "\")");
}

// --- Lifecycle ---------------------------------------------------------------

// A permit granted at once is used after the user's PreStart (PostRestart)
// has run, as one granted later by message is: the user's code sees the
// actor as it would otherwise.
void PersistentActor::AroundPreStart() {
  const bool permitted = StartRecovery();
  Actor::AroundPreStart();
  if (permitted) OnPermitGranted();
}

void PersistentActor::AroundPostRestart(const std::exception_ptr& reason) {
  const bool permitted = StartRecovery();
  Actor::AroundPostRestart(reason);
  if (permitted) OnPermitGranted();
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
  if (run_ != nullptr) {
    if (run_->watched)
      persistence_->Watchdog().Unwatch(instance_, run_->timeout);
    run_.reset();
  }
  if (holds_permit_) {
    holds_permit_ = false;
    persistence_->Permitter().Return(instance_);
  }
}

// --- Messages ----------------------------------------------------------------

bool PersistentActor::AroundReceive(const actor::MessageView& message) {
  if (InterceptMessage(message)) return true;
  if (const auto* protocol = message.As<internal::Protocol>()) {
    const internal::Protocol& p = *protocol;
    if (p.instance != instance_ || state_ == Phase::kFailed) return true;
    // A recovery's replies find it recovering (run_ set): nothing else
    // asks for them.
    if (p.kind != Kind::kWriteDone && run_ == nullptr) return true;
    switch (p.kind) {
      case Kind::kPermitGranted:
        OnPermitGranted();
        break;
      case Kind::kRecoveryStarted:
        run_->event_seen = true;
        OnRecoveryStarted(*p.start, *p.page);
        break;
      case Kind::kReplayed:
        run_->event_seen = true;
        OnReplayed(p.page, p.status, p.range_from);
        break;
      case Kind::kRecoveryTick:
        if (IsRecovering()) OnRecoveryTick();
        break;
      case Kind::kWriteDone:
        OnWriteDone(p.write);
        break;
    }
    return true;
  }
  if (state_ != Phase::kProcessing || pending_stashing_ > 0) {
    StashInternally();
    return true;
  }
  OnRetentionOutcome(message);
  bool handled = false;
  try {
    handled = RunBehavior(message);
  } catch (...) {
    // What the command persisted before it threw is still written (Akka).
    AfterUserCode(/*threw=*/true);
    throw;
  }
  AfterUserCode(/*threw=*/false);
  return handled;
}

bool PersistentActor::AroundPoisonPill() {
  // Behind the commands held back by recovery or a Persist, as those sent
  // before it are (Akka stops at once and drops them).
  if (state_ == Phase::kFailed) return true;
  if (state_ != Phase::kProcessing || pending_stashing_ > 0) {
    StashInternally();
    return false;
  }
  return true;
}

// --- Snapshots and deletes ---------------------------------------------------

void PersistentActor::SaveSnapshotPayload(serialization::Payload snapshot) {
  if (snapshot_store_ == nullptr) {
    throw actor::IllegalActorStateException(
        absl::StrCat("SaveSnapshot before recovery started: ", Describe()));
  }
  SnapshotMetadata metadata{persistence_id_, last_sequence_nr_,
                            UnixMillisNow()};
  absl::StatusOr<std::optional<WriteFence>> fence = CurrentFence("saved");
  if (!fence.ok()) {
    Self().Tell(SaveSnapshotFailure{metadata, fence.status()}, Self());
    return;
  }
  snapshot_store_->AsyncSave(
      metadata, std::move(snapshot), *std::move(fence),
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
  absl::StatusOr<std::optional<WriteFence>> fence = CurrentFence("deleted");
  if (!fence.ok()) {
    Self().Tell(DeleteSnapshotFailure{metadata, fence.status()}, Self());
    return;
  }
  snapshot_store_->AsyncDelete(
      metadata, *std::move(fence),
      [self = Self(), metadata](absl::Status status) {
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
  absl::StatusOr<std::optional<WriteFence>> fence = CurrentFence("deleted");
  if (!fence.ok()) {
    Self().Tell(DeleteSnapshotsFailure{criteria, fence.status()}, Self());
    return;
  }
  snapshot_store_->AsyncDeleteByCriteria(
      persistence_id_, criteria, *std::move(fence),
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
  absl::StatusOr<std::optional<WriteFence>> fence = CurrentFence("deleted");
  if (!fence.ok()) {
    Self().Tell(DeleteMessagesFailure{fence.status(), to_sequence_nr}, Self());
    return;
  }
  journal_->AsyncDeleteMessagesTo(
      persistence_id_, to_sequence_nr, *std::move(fence),
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
