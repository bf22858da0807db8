#ifndef CAIRN_PERSISTENCE_STORAGE_JOURNAL_H_
#define CAIRN_PERSISTENCE_STORAGE_JOURNAL_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/storage/persistent_repr.h"
#include "persistence/storage/read_journal.h"
#include "persistence/storage/replay_page.h"
#include "persistence/storage/snapshot_store.h"
#include "persistence/storage/write_fence.h"

namespace cairn::persistence {

// Sequence-number bound meaning "no upper limit" (Akka's Long.MaxValue).
inline constexpr int64_t kMaxSequenceNr = std::numeric_limits<int64_t>::max();

// What a recovery asks of the stores before its handlers run, in one call
// (Journal::AsyncStartRecovery).
struct RecoveryStartRequest {
  std::string persistence_id;
  // The snapshot to start from: what `snapshots->AsyncLoad(persistence_id,
  // criteria, to_sequence_nr)` gives; none is loaded if it is null.
  // Used during the call only.
  SnapshotStore* snapshots = nullptr;
  SnapshotSelectionCriteria criteria;
  int64_t to_sequence_nr = kMaxSequenceNr;
  // The first page of the replay, if the journal reads it: at most
  // `page_max` events (none if 0 or less), from just after the loaded
  // snapshot (from 1 if none is loaded or `replay_after_snapshot` is false,
  // e.g. when the actor takes no snapshot offers) up to to_sequence_nr.
  bool replay_after_snapshot = true;
  int64_t page_max = 0;
};

// What AsyncStartRecovery found, each part as its own call gives it.
struct RecoveryStart {
  absl::StatusOr<LoadSnapshotResult> snapshot;
  // AsyncReadHighestSequenceNr's answer.
  absl::StatusOr<int64_t> highest;
  // The first page's outcome, as AsyncReplayMessages's `done` gives it
  // (its events went to `on_event`); none if the journal did not read it
  // (then the caller replays from the page's start itself) or the snapshot
  // could not be loaded.
  std::optional<absl::Status> replay;
};

// The journal plugin interface (Akka's AsyncWriteJournal), asynchronous and
// callback-based so that no caller ever blocks on storage.
//
// Threading contract, for every implementation:
// - Every method may be called from any thread, concurrently.
// - Every method returns at once; its callbacks run later on a thread the
//   plugin owns, never on the calling thread inside the call, and never while
//   the plugin holds a lock, so a callback may call the journal again. The
//   one exception is WriteMessagesNowOrLater, whose caller allows it.
// - Callbacks must be cheap (hand the result to someone, e.g. send a
//   message): they run on the plugin's I/O threads and delay the operations
//   queued behind them.
// - Every operation's final callback runs exactly once, also when the
//   journal is being destroyed: the destructor completes the operations
//   already submitted (running their callbacks) before it returns. Calling
//   a method after the destructor started is undefined.
// - Writes and deletes are applied and completed in the order they were
//   submitted (also across persistence ids).
// - Read after write, per persistence id: a replay or highest-sequence-
//   number read of an id sees the outcome of every write (of an AtomicWrite
//   of that id) and every delete of that id submitted before it, also when
//   their callbacks have not run yet. "Before": that call had returned, on
//   this thread or on one that told this one (e.g. by a message). A plugin
//   whose reads can overtake its writes must hold such a read back until
//   those writes and deletes have completed, successfully or not. It must
//   not hold reads of ids with nothing in flight, nor make a read wait for
//   writes submitted after it. Why: a persistent actor restarted (or
//   stopped and made again) while its write is in flight recovers at once;
//   reading from before the write, it would give its next event the
//   sequence number in flight and overwrite that event. Akka's journals
//   keep the same rule. Rejected AtomicWrites store nothing, so they need
//   not be waited for. In particular, a read submitted after a write's (or
//   delete's) callback ran sees it.
//
// Ownership: callers own the journal (std::unique_ptr<Journal>); a journal
// owns its threads and storage handles.
class Journal {
 public:
  // `batch` is the outcome of the whole call; when it is OK, `per_write[i]`
  // is the outcome of `writes[i]`.
  using WriteCallback =
      absl::AnyInvocable<void(absl::Status batch,
                              std::vector<absl::Status> per_write) &&>;
  using ReplayCallback = absl::AnyInvocable<void(const PersistentRepr& event)>;
  using DoneCallback = absl::AnyInvocable<void(absl::Status status) &&>;
  using HighestCallback =
      absl::AnyInvocable<void(absl::StatusOr<int64_t> highest) &&>;
  using RecoveryStartCallback =
      absl::AnyInvocable<void(RecoveryStart start) &&>;
  using ReplayPageCallback =
      absl::AnyInvocable<void(absl::Status status, ReplayPage page) &&>;

  virtual ~Journal() = default;

  // Writes each AtomicWrite all or nothing. Failure and rejection differ:
  // - `batch` not OK: a failure. Either the store could not be written
  //   (e.g. an I/O error, Unavailable): none of the writes may be assumed
  //   stored, whether they were is unknown. Or the call broke the rules
  //   below: nothing of it was stored. `per_write` has one entry per write,
  //   each equal to `batch`.
  // - `batch` OK and `per_write[i]` not OK: writes[i] was rejected (its
  //   events could not be serialized) and none of its events was stored;
  //   the other writes were stored. Its sequence numbers count as used:
  //   the stream's highest sequence number rises to its last, so the
  //   writer goes on after it and no number is ever given to two events.
  // - all OK: every event is stored (durably when the plugin syncs).
  // The rules, checked before anything is stored, each breach failing the
  // whole call: every AtomicWrite has events, one non-empty persistence
  // id, sequence numbers from 1 up rising by one, no empty tag
  // (InvalidArgument);
  // and its first sequence number is the stream's highest so far + 1,
  // counting the writes before it in this call and in earlier calls
  // (FailedPrecondition, naming the id and the expected and offered
  // numbers). The last rule is what keeps two writers of one stream from
  // overwriting each other's events: the second one's write fails.
  // An empty `writes` completes with OK and no entries.
  // A write with a `fence` (persistent_repr.h): a journal on a store that
  // keeps leases (PostgreSQL) stores it only if, when it commits, the lease
  // is held by the fence's owner with the fence's token, checked in the
  // same transaction; otherwise that call fails with FailedPrecondition
  // naming the lease, and nothing of it is stored. Journals of one
  // process's own store (RocksDB, in memory), which no other process can
  // write, ignore fences.
  virtual void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                                  WriteCallback done) = 0;

  // AsyncWriteMessages, except that `done` may also run on the calling
  // thread before this returns: a journal that can store the writes at
  // once (nothing of its own queued before them, no sync, no stall, no
  // lock to wait for) may do so there, and save the hand-offs to and
  // from its I/O thread (issue 35: most of a lone actor's Persist). For a
  // caller whose `done` only hands the outcome on and needs no lock the
  // caller holds (a persistent actor: a message to itself). The rules and
  // the order are AsyncWriteMessages's. Default: AsyncWriteMessages.
  // Wrappers do not forward it, so that their AsyncWriteMessages sees
  // every write.
  virtual void WriteMessagesNowOrLater(std::vector<AtomicWrite> writes,
                                       WriteCallback done) {
    AsyncWriteMessages(std::move(writes), std::move(done));
  }

  // Calls `on_event` for every stored event of `persistence_id` with
  // from_sequence_nr <= sequence_nr <= to_sequence_nr, ascending, at most
  // `max` of them, then `done` once. Deleted events are skipped. `on_event`
  // runs on one plugin thread for the whole replay; the reference is valid
  // during the call only. `done` is not OK if a record cannot be read (a
  // corrupt record, an unknown serializer: DataLoss / NotFound naming the
  // persistence id and sequence number) or the store failed; events before
  // the bad one may already have been delivered. Sees the writes and
  // deletes of `persistence_id` submitted before it (read after write).
  virtual void AsyncReplayMessages(std::string persistence_id,
                                   int64_t from_sequence_nr,
                                   int64_t to_sequence_nr, int64_t max,
                                   ReplayCallback on_event,
                                   DoneCallback done) = 0;

  // AsyncReplayMessages's events gathered in one page, handed to `done`
  // with the replay's status (the events before a bad record come along).
  // A journal may leave their payloads serialized (verified, as the
  // replay would, but for the deserializing, which the page's reader does
  // and whose errors ReplayPage::ForEach reports as the replay would
  // have): the replay's caller then deserializes on its own thread while
  // the journal reads on. For a caller that takes a page at a time (a
  // recovering actor). Default: AsyncReplayMessages into a page of
  // deserialized events. Wrappers do not forward it, so that their
  // AsyncReplayMessages sees every replay.
  virtual void AsyncReplayPage(std::string persistence_id,
                               int64_t from_sequence_nr, int64_t to_sequence_nr,
                               int64_t max, ReplayPageCallback done);

  // The highest sequence number ever written (or rejected) for
  // `persistence_id`, also if those events were deleted since; 0 if
  // nothing was ever written.
  // `from_sequence_nr` is a hint where to start looking (Akka's contract);
  // the result does not depend on it. Sees the writes of `persistence_id`
  // submitted before it (read after write).
  virtual void AsyncReadHighestSequenceNr(std::string persistence_id,
                                          int64_t from_sequence_nr,
                                          HighestCallback done) = 0;

  // A recovery's first reads in one call: loads the snapshot, reads the
  // highest sequence number and may replay the first page, calling
  // `on_event` for its events (as AsyncReplayMessages does: in order, on
  // one plugin thread, the reference valid during the call) and then
  // `done` once with the rest, on a plugin thread (the journal's or,
  // with the default, possibly the snapshot store's). Reads after writes
  // as the calls it stands for. Why one call: a recovery then waits for
  // one answer, not three, and a journal that reads the snapshots' storage
  // itself (RocksDB with its own snapshot store) serves it in one visit.
  // The default loads the snapshot and reads the highest at once, through
  // the calls above, and leaves the replay to the caller (`replay` none):
  // plugins need not implement it. A wrapper that does not override it
  // sees the calls the default makes.
  virtual void AsyncStartRecovery(RecoveryStartRequest request,
                                  ReplayCallback on_event,
                                  RecoveryStartCallback done);

  // Deletes every event of `persistence_id` with sequence_nr <=
  // to_sequence_nr (kMaxSequenceNr: all). The highest sequence number is
  // kept. Not OK if the store failed; then some of the events may be gone.
  // With a `fence`, as a write with one: a journal on a store that keeps
  // leases deletes only if the lease is held by the fence's owner with the
  // fence's token, checked in the delete's transaction; otherwise it fails
  // with FailedPrecondition naming the lease and deletes nothing. Journals
  // of one process's own store ignore it.
  virtual void AsyncDeleteMessagesTo(std::string persistence_id,
                                     int64_t to_sequence_nr,
                                     std::optional<WriteFence> fence,
                                     DoneCallback done) = 0;

  // The queries of this journal's store (read_journal.h), seeing what the
  // journal writes; the caller owns it, and it may outlive the journal.
  // Unimplemented for a plugin without queries (the default).
  virtual absl::StatusOr<std::unique_ptr<ReadJournal>> NewReadJournal() {
    return absl::UnimplementedError("this journal plugin has no queries");
  }
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_JOURNAL_H_
