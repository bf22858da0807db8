#ifndef CAIRN_PERSISTENCE_INTERNAL_PERSISTENT_ACTOR_PROTOCOL_H_
#define CAIRN_PERSISTENCE_INTERNAL_PERSISTENT_ACTOR_PROTOCOL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/control_message.h"
#include "persistence/messages.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/payload.h"

namespace cairn::persistence::internal {

// What a PersistentActor keeps only while it recovers.
struct RecoveryRun {
  Recovery recovery;
  absl::Duration timeout;   // recovery-event-timeout
  bool watched = false;     // by Persistence::Watchdog(), ticking it
  bool event_seen = false;  // since the last recovery tick
  // The replay: the bound it goes to, how many events it may still ask
  // for (Recovery::replay_max), how many one request asks for at most, and
  // how many the request in flight asked for.
  int64_t replay_to = 0;
  int64_t replay_remaining = 0;
  int64_t replay_batch_size = 1;
  int64_t replay_requested = 0;
  // Ranged replay (PersistentActor::StartRanges): after the first batch of
  // an unbounded replay, the batches go by sequence-number range, two in
  // flight, so the journal reads the next two while the handlers run one.
  int64_t replay_end = 0;       // where the ranges stop: the highest
  int64_t next_range_from = 0;  // the next range to ask for
  int64_t applying_from = 0;    // the range whose page is applied next
  bool tail_requested = false;  // the range that reaches replay_end is
  int ranges_in_flight = 0;     // asked for, not yet applied
  // The later of the two ranges in flight, when its page came first: held
  // until the earlier one is applied.
  std::shared_ptr<const ReplayPage> early_page;
  absl::Status early_status;
  int64_t early_from = 0;
  // The newest snapshot that could not be loaded, while the replay has yet
  // to show that the events after the one recovered from are there; OK
  // otherwise.
  absl::Status unreadable_snapshot;
  // The journal's highest sequence number, read with the snapshot (one
  // round trip less per recovery), kept until the replay is done.
  absl::StatusOr<int64_t> journal_highest = 0;
  // Whether this recovery takes snapshot offers: decided once, when it asks
  // the journal for the first batch, which starts after the snapshot then.
  bool offers_taken = false;
};

// A PersistentActor's retention, while it is on.
struct RetentionRun {
  RetentionCriteria criteria;
  // The bound of the events retention is deleting (0: none): the snapshots
  // up to it go once that succeeds.
  int64_t deleting_events_to = 0;
};

// While a write is in flight, PersistAsync and Defer calls gather into the
// next one until this many entries wait, then it goes out too (Akka's
// former max-message-batch-size was 200): enough that the journal's work
// per write is shared by many events, few enough that what a write holds
// (entries, records, pending handlers) stays in the CPU's caches.
inline constexpr size_t kEventsPerWriteAhead = 256;

// A write being gathered, then what it came to, for the one reply it
// gets: every entry as FlushBatch sent it (events and deferred calls, in
// order), the write's status, and each AtomicWrite's (a rejected one fails
// alone). One allocation per write: a lone event is inline, and the reply
// goes to `self` from the journal's callback, which holds only this.
struct WriteOutcome {
  absl::InlinedVector<OutgoingEvent, 1> entries;
  int writes = 0;  // AtomicWrites among the entries
  actor::ActorRef self;
  uint64_t instance = 0;  // the incarnation that wrote it
  absl::Status status;
  // Each AtomicWrite's status as the journal gave them; may be empty (a
  // write of deferred calls only, a fence refused): read with a bounds
  // check.
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
  // it read them, in `page`). Behind a pointer: every write reply is one
  // of these messages, and the answer is ~200 bytes.
  std::shared_ptr<RecoveryStart> start;
  // kWriteDone: the outcome of every entry of the write, in one message
  // (the writer thread's only reply, whatever the number of events).
  std::shared_ptr<WriteOutcome> write;
  // kReplayed: one replay request's events, in order (deserialized in the
  // actor's turn, ReplayPage); `status` says whether the request ended
  // well (events before a bad record come along). kRecoveryStarted: the
  // first batch's.
  std::shared_ptr<const ReplayPage> page;
  // kReplayed of a ranged replay: where the page's range starts (pages of
  // two ranges may come in either order); 0 for a counted batch.
  int64_t range_from = 0;
};

inline Protocol Reply(uint64_t instance, Protocol::Kind kind) {
  Protocol p;
  p.instance = instance;
  p.kind = kind;
  return p;
}

inline int64_t UnixMillisNow() { return absl::ToUnixMillis(absl::Now()); }

}  // namespace cairn::persistence::internal

// The stores' replies go ahead of the commands waiting in the actor's
// mailbox: a write's reply lets the actor send the next write (and run the
// handlers of the last) without first working through the commands that
// came while it was in flight, which would only be stashed or gathered
// into an ever larger write; a recovery's pages likewise.
template <>
inline constexpr bool
    cairn::actor::kControlMessage<cairn::persistence::internal::Protocol> =
        true;

#endif  // CAIRN_PERSISTENCE_INTERNAL_PERSISTENT_ACTOR_PROTOCOL_H_
