// PersistentActor's write pipeline: Persist*, Defer*, one write in flight,
// the journal's replies and the handlers they run (kProcessing in the table
// in persistent_actor.h).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "persistence/internal/persistent_actor_protocol.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/tagged.h"

namespace cairn::persistence {
namespace {

using Kind = internal::Protocol::Kind;
using Phase = internal::RecoveryPhase;
using internal::OutgoingEvent;
using internal::PendingInvocation;
using internal::Reply;
using internal::UnixMillisNow;

// A random (version 4) UUID in its canonical text, as Akka's writerUuid:
// the RocksDB journal stores one in 16 bytes.
std::string NewWriterUuid() {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  uint64_t high = random();
  uint64_t low = random();
  high = (high & ~uint64_t{0xf000}) | 0x4000;                // version 4
  low = (low & ~(uint64_t{3} << 62)) | (uint64_t{2} << 62);  // RFC 4122
  return absl::StrFormat("%08x-%04x-%04x-%04x-%012x", high >> 32,
                         (high >> 16) & 0xffff, high & 0xffff, low >> 48,
                         low & 0xffffffffffffULL);
}

}  // namespace

// --- Persisting --------------------------------------------------------------

internal::WriteOutcome& PersistentActor::WriteBeingGathered() {
  if (batch_ == nullptr) {
    batch_ = std::make_shared<internal::WriteOutcome>();
    batch_->self = Self();
    batch_->instance = instance_;
  }
  return *batch_;
}

void PersistentActor::RequireProcessing() const {
  if (state_ != Phase::kProcessing) {
    throw actor::IllegalActorStateException(absl::StrCat(
        "cannot persist during recovery of ", Describe(),
        ": a recovery handler must only apply the events it is given"));
  }
}

void PersistentActor::GatherEvent(serialization::Payload event,
                                  internal::EventHandler handler, bool stashing,
                                  const actor::ActorRef& sender) {
  internal::WriteOutcome& batch = WriteBeingGathered();
  pending_invocations_.push_back(
      PendingInvocation{std::move(handler), stashing});
  if (stashing) ++pending_stashing_;
  batch.entries.push_back(OutgoingEvent{std::move(event), next_sequence_nr_++,
                                        sender, batch.writes});
}

void PersistentActor::PersistAllPayloads(
    std::vector<serialization::Payload> events, internal::EventHandler handler,
    bool stashing) {
  RequireProcessing();
  if (events.empty()) return;
  const actor::ActorRef sender = Sender();
  for (serialization::Payload& event : events) {
    GatherEvent(std::move(event), handler, stashing, sender);
  }
  ++batch_->writes;  // once its entries are in: no AtomicWrite without events
}

void PersistentActor::PersistPayload(serialization::Payload event,
                                     internal::EventHandler handler,
                                     bool stashing) {
  RequireProcessing();
  GatherEvent(std::move(event), std::move(handler), stashing, Sender());
  ++batch_->writes;
}

void PersistentActor::DeferPayload(serialization::Payload event,
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
  WriteBeingGathered().entries.push_back(
      OutgoingEvent{std::move(event), 0, Sender(), -1});
}

void PersistentActor::AfterUserCode(bool threw) {
  // A write goes out when none is in flight, so that the journal groups
  // what gathers meanwhile into one; or, for PersistAsync and Defer only,
  // once kEventsPerWriteAhead have gathered: a long run of them then goes
  // out in writes the journal stores while the actor gathers the next,
  // instead of one ever larger write stored while the actor waits. Writes
  // of an actor are stored in the order sent (journal.h), and one that
  // follows a failed write fails the sequence rule: no gap can be stored.
  // A Persist's write waits for the writes in flight (at most one stashing
  // write is in flight, and WriteMessagesNowOrLater has nothing of this
  // actor's to overtake).
  if (batch_ != nullptr &&
      (writes_in_flight_ == 0 ||
       (pending_stashing_ == 0 && batch_->writes > 0 &&
        batch_->entries.size() >= internal::kEventsPerWriteAhead))) {
    FlushBatch();
  }
  if (state_ == Phase::kProcessing && pending_stashing_ == 0) {
    if (threw) {
      UnstashAllInternally();
    } else {
      UnstashOneInternally();
    }
  }
}

absl::StatusOr<std::optional<WriteFence>> PersistentActor::CurrentFence(
    const char* done) const {
  if (fence_scope_ == nullptr) return std::nullopt;
  std::shared_ptr<const WriteFence> fence = fence_scope_->Current();
  if (fence == nullptr) {
    // A scope without a fence has lost, or not yet got, the right to
    // change the store (persistence.h).
    return absl::FailedPreconditionError(absl::StrCat(
        "the write fence scope ", fence_scope_->path(),
        " holds no fence (its lease is lost or not yet held): nothing is ",
        done));
  }
  return *fence;
}

namespace {

// The one reply of a write, whatever its number of events: the writer
// thread's only hand-off to the actor.
void SendWriteDone(std::shared_ptr<internal::WriteOutcome> outcome) {
  internal::Protocol p = Reply(outcome->instance, Kind::kWriteDone);
  const actor::ActorRef self = outcome->self;
  p.write = std::move(outcome);
  self.Tell(std::move(p), actor::ActorRef());
}

}  // namespace

void PersistentActor::FlushBatch() {
  std::shared_ptr<internal::WriteOutcome> outcome = std::move(batch_);
  ++writes_in_flight_;

  if (outcome->writes == 0) {  // only deferred calls: nothing to write
    SendWriteDone(std::move(outcome));
    return;
  }
  absl::StatusOr<std::optional<WriteFence>> fence = CurrentFence("written");
  if (!fence.ok()) {
    if (writes_in_flight_ > 1) {
      // Answered here, the failure would overtake the replies of the
      // writes in flight: the write waits for them, and fails then.
      --writes_in_flight_;
      batch_ = std::move(outcome);
      return;
    }
    outcome->status = fence.status();
    SendWriteDone(std::move(outcome));
    return;
  }
  std::vector<AtomicWrite> writes(outcome->writes);
  if (fence->has_value()) {
    for (AtomicWrite& write : writes) write.fence = **fence;
  }
  const int64_t now = UnixMillisNow();
  // Made on the first write: an actor that only recovers needs none.
  if (writer_uuid_.empty()) writer_uuid_ = NewWriterUuid();
  for (const OutgoingEvent& e : outcome->entries) {
    if (e.sequence_nr == 0) continue;
    PersistentRepr repr;
    repr.persistence_id = persistence_id_;
    repr.sequence_nr = e.sequence_nr;
    repr.payload = e.payload;
    repr.writer_uuid = writer_uuid_;
    repr.timestamp = now;
    UnwrapTagged(repr);  // Persist(Tagged{event, tags}): store the event
    writes[e.write_index].events.push_back(std::move(repr));
  }
  // Holds only the outcome, so that the journal keeps it without an
  // allocation of its own (AnyInvocable's inline storage).
  auto done = [outcome = std::move(outcome)](
                  absl::Status status,
                  std::vector<absl::Status> per_write) mutable {
    // Own copies: a shared absl::Status reference count, released on
    // the journal's thread, is invisible to TSan (absl uninstrumented).
    outcome->status = absl::Status(status.code(), status.message());
    const bool all_accepted =
        std::all_of(per_write.begin(), per_write.end(),
                    [](const absl::Status& s) { return s.ok(); });
    if (all_accepted) {
      // OK statuses share nothing: the vector itself goes to the actor,
      // freed on its thread rather than here, where it would contend for
      // the allocator of the thread that made it.
      outcome->per_write = std::move(per_write);
    } else {
      outcome->per_write.reserve(per_write.size());
      for (const absl::Status& s : per_write) {
        outcome->per_write.emplace_back(s.code(), s.message());
      }
    }
    SendWriteDone(std::move(outcome));
  };
  if (pending_stashing_ > 0) {
    // A Persist holds this actor until its reply anyway: the journal may
    // commit it here, on this thread, the reply a message to this actor,
    // with no hand-off (journal.h). PersistAsync writes go to the journal's
    // writer, which groups those that queue while it commits.
    journal_->WriteMessagesNowOrLater(std::move(writes), std::move(done));
  } else {
    journal_->AsyncWriteMessages(std::move(writes), std::move(done));
  }
}

void PersistentActor::OnWriteDone(
    const std::shared_ptr<internal::WriteOutcome>& outcome) {
  // The write is over once its reply is here, before any handler runs
  // (Akka's WriteMessagesSuccessful comes before the per-event replies):
  // what a handler persists, also one that throws, goes out as the next
  // write on its way out (AfterUserCode) instead of waiting for a reply
  // that a restart would discard.
  if (outcome->next == 0) --writes_in_flight_;
  // A failed write sends nothing more: the actor stops at its first event.
  const bool failed = !outcome->status.ok();
  int handled = 0;
  try {
    while (outcome->next < outcome->entries.size()) {
      if (handled > 0 && SystemMessagePending()) {
        // As separate replies would: a Stop(Self()) (or a stop, a restart
        // by the parent) in a handler keeps the later handlers from
        // running. The rest comes first once the system messages are
        // handled, ahead of every other message, so nothing overtakes it.
        ProcessAgainFirst();
        break;
      }
      const OutgoingEvent& entry = outcome->entries[outcome->next++];
      ++handled;
      if (!OnEntryDone(entry, *outcome)) return;  // failed: stopping
    }
  } catch (...) {
    // The rest comes first after a resume (a restart's next incarnation
    // drops it): each handler owes its entry a run.
    if (outcome->next < outcome->entries.size()) ProcessAgainFirst();
    if (!failed) AfterUserCode(/*threw=*/true);
    throw;
  }
  if (!failed) AfterUserCode(/*threw=*/false);
}

bool PersistentActor::OnEntryDone(const OutgoingEvent& entry,
                                  const internal::WriteOutcome& outcome) {
  if (pending_invocations_.empty()) return true;  // cannot happen; be safe
  PendingInvocation invocation = std::move(pending_invocations_.front());
  pending_invocations_.pop_front();
  if (invocation.stashing) --pending_stashing_;
  // Each handler sees the sender of the command that persisted its event.
  SenderOverride sender(entry.sender);
  if (entry.sequence_nr == 0) {  // a deferred call
    RunPersistHandler(invocation, entry.payload);
    return true;
  }
  if (!outcome.status.ok()) {
    state_ = Phase::kFailed;
    pending_invocations_.clear();
    pending_stashing_ = 0;
    absl::Status cause(
        outcome.status.code(),
        absl::StrCat("failed to persist event ", entry.payload.TypeName(),
                     " of ", Describe(), " at sequence number ",
                     entry.sequence_nr, ": ", outcome.status.message()));
    try {
      OnPersistFailure(cause, entry.payload, entry.sequence_nr);
    } catch (...) {
      Context()
          .System()
          .Log(Self().Path().ToString())
          .Error(
              absl::StrCat("OnPersistFailure threw: ",
                           actor::DescribeException(std::current_exception())));
    }
    Context().Stop(Self());
    return false;
  }
  last_sequence_nr_ = entry.sequence_nr;  // a rejected one's is not reused
  if (entry.write_index < static_cast<int>(outcome.per_write.size()) &&
      !outcome.per_write[entry.write_index].ok()) {
    const absl::Status& rejected = outcome.per_write[entry.write_index];
    OnPersistRejected(
        absl::Status(
            rejected.code(),
            absl::StrCat("journal rejected event ", entry.payload.TypeName(),
                         " of ", Describe(), " at sequence number ",
                         entry.sequence_nr, ": ", rejected.message())),
        entry.payload, entry.sequence_nr);
    return true;
  }
  RunPersistHandler(invocation, entry.payload);
  SnapshotIfDue(entry.sequence_nr);
  return true;
}

void PersistentActor::RunPersistHandler(internal::PendingInvocation& invocation,
                                        const serialization::Payload& event) {
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

void PersistentActor::OnPersistFailure(const absl::Status& cause,
                                       const serialization::Payload&, int64_t) {
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Error(std::string(cause.message()));
}

void PersistentActor::OnPersistRejected(const absl::Status& cause,
                                        const serialization::Payload&,
                                        int64_t) {
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Warning(std::string(cause.message()));
}

}  // namespace cairn::persistence
