// PersistentActor's write pipeline: Persist*, Defer*, one write in flight,
// the journal's replies and the handlers they run (kProcessing in the table
// in persistent_actor.h).

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

void PersistentActor::PersistAllPayloads(
    std::vector<serialization::Payload> events, internal::EventHandler handler,
    bool stashing) {
  if (state_ != Phase::kProcessing) {
    throw actor::IllegalActorStateException(absl::StrCat(
        "cannot persist during recovery of ", Describe(),
        ": a recovery handler must only apply the events it is given"));
  }
  if (events.empty()) return;
  const actor::ActorRef sender = Sender();
  for (serialization::Payload& event : events) {
    pending_invocations_.push_back(PendingInvocation{handler, stashing});
    if (stashing) ++pending_stashing_;
    event_batch_.push_back(OutgoingEvent{std::move(event), next_sequence_nr_++,
                                         sender, batch_writes_});
  }
  ++batch_writes_;
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
  absl::StatusOr<std::optional<WriteFence>> fence = CurrentFence("written");
  if (!fence.ok()) {
    complete(batch, fence.status(), {});
    return;
  }
  std::vector<AtomicWrite> writes(writes_count);
  if (fence->has_value()) {
    for (AtomicWrite& write : writes) write.fence = **fence;
  }
  const int64_t now = UnixMillisNow();
  // Made on the first write: an actor that only recovers needs none.
  if (writer_uuid_.empty()) writer_uuid_ = NewWriterUuid();
  for (const OutgoingEvent& e : batch) {
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
        SnapshotIfDue(p.sequence_nr);
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

void PersistentActor::OnWriteBatchDone() {
  write_in_flight_ = false;
  if (!event_batch_.empty()) FlushBatch();
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
