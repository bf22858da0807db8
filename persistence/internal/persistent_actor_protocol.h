#ifndef CAIRN_PERSISTENCE_INTERNAL_PERSISTENT_ACTOR_PROTOCOL_H_
#define CAIRN_PERSISTENCE_INTERNAL_PERSISTENT_ACTOR_PROTOCOL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/payload.h"

namespace cairn::persistence::internal {

// One replayed event, as the actor's recovery handlers take it.
struct ReplayedEvent {
  serialization::Payload payload;
  int64_t sequence_nr = 0;
};

// What a write came to, for the one reply it gets: every entry as
// FlushBatch sent it (events and deferred calls, in order), the write's
// status, and each AtomicWrite's (a rejected one fails alone).
struct WriteOutcome {
  std::vector<OutgoingEvent> entries;
  absl::Status status;
  std::vector<absl::Status> per_write;
  // The entries before it have been handled: the actor left the rest to a
  // later turn because a system message came first. Actor thread only.
  size_t next = 0;
};

// Every reply of the stores and the permitter reaches the actor as one of
// these, through its mailbox, tagged with the incarnation it is for: a
// reply to an incarnation that has since restarted is dropped.
struct Protocol {
  enum class Kind {
    kPermitGranted,
    kRecoveryStarted,
    kReplayed,
    kRecoveryTick,
    kWriteDone,
  };
  uint64_t instance = 0;
  Kind kind = Kind::kPermitGranted;
  absl::Status status;
  // kRecoveryStarted: the journal's answer (its first batch's events, if
  // it read them, in `events`). Behind a pointer: every write reply is one
  // of these messages, and the answer is ~200 bytes.
  std::shared_ptr<RecoveryStart> start;
  // kWriteDone: the outcome of every entry of the write, in one message
  // (the writer thread's only reply, whatever the number of events).
  std::shared_ptr<WriteOutcome> write;
  // kReplayed: one replay request's events, in order; `status` says
  // whether the request ended well (events before a bad record come along).
  std::vector<ReplayedEvent> events;
};

inline Protocol Reply(uint64_t instance, Protocol::Kind kind) {
  Protocol p;
  p.instance = instance;
  p.kind = kind;
  return p;
}

inline int64_t UnixMillisNow() { return absl::ToUnixMillis(absl::Now()); }

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_INTERNAL_PERSISTENT_ACTOR_PROTOCOL_H_
