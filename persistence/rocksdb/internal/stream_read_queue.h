#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READ_QUEUE_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READ_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/task_runner.h"
#include "persistence/rocksdb/internal/bounded_iterator.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/journal.h"
#include "serialization/serialization.h"

namespace cairn::persistence::rocksdb_internal {

// The RocksDB journal's replays, highest-sequence-number reads and
// recovery starts (snapshot, highest and first page at once), served
// in visits to the database. A reader thread takes every read queued,
// sorts them in key order and serves them through one iterator in one
// visit, so that a thousand recovering actors cost a few iterators and
// lock acquisitions, not one of each per read: the pattern of a raw scan
// that seeks one iterator from stream to stream.
//
// A drain takes at most kVisitReads reads. A visit serves at most
// kVisitEvents events, a replay at most kReplayChunk of them; a longer
// replay goes on in the drain's next visit (its callbacks stay on one
// thread), and a read the visit did not reach goes back to the queue.
// Between visits no lock is held: callbacks run under none, and a reopen
// after a failed write waits for one visit at most (a few milliseconds).
// While one thread drains, reads queued meanwhile go to another reader
// thread, so reads are batched when they queue up and run in parallel
// when they do not; two pages of one stream go to two drains (a ranged
// replay asks for the next two at once, to have them read side by side).
// Each read bounds the shared iterator to its own
// stream (bounded_iterator.h), so no read touches a neighbour's blocks.
//
// A store that cannot be visited (closed after a failed write, and
// reopening it failed again) fails every read of the drain with why.
//
// Thread safety: Add* may be called from any thread, until the destructor
// starts. Callbacks run on the reader threads, each read's on one thread.
// The destructor serves every read queued (running its callbacks) before
// it returns.
class StreamReadQueue {
 public:
  static constexpr size_t kVisitReads = 256;
  static constexpr size_t kVisitEvents = 4096;
  static constexpr size_t kReplayChunk = 1024;

  // `db` must outlive the queue; `registry` (not null) also deserializes
  // the pages handed out (AddReplayPage), which may outlive it.
  StreamReadQueue(
      Db& db,
      std::shared_ptr<const serialization::SerializationRegistry> registry,
      int threads);
  ~StreamReadQueue();
  StreamReadQueue(const StreamReadQueue&) = delete;
  StreamReadQueue& operator=(const StreamReadQueue&) = delete;

  // As Journal::AsyncReplayMessages and AsyncReadHighestSequenceNr, read
  // now (the caller has already held them back for writes in flight).
  void AddReplay(std::string persistence_id, int64_t from, int64_t to,
                 int64_t max, Journal::ReplayCallback on_event,
                 Journal::DoneCallback done);
  void AddHighest(std::string persistence_id, Journal::HighestCallback done);
  // As Journal::AsyncReplayPage: the events verified and left serialized
  // (ReadSerializedEvents), the page's reader deserializes them.
  void AddReplayPage(std::string persistence_id, int64_t from, int64_t to,
                     int64_t max, Journal::ReplayPageCallback done);
  // As Journal::AsyncStartRecovery, all three parts read in one visit (the
  // replay going on in later ones if its page is long), the snapshot
  // loaded from this database if `load_snapshot` (`request.snapshots` is
  // not used). The caller has held it back for event writes in flight and
  // checked that no snapshot write of the stream is.
  void AddRecovery(RecoveryStartRequest request, bool load_snapshot,
                   Journal::ReplayCallback on_event,
                   Journal::RecoveryStartCallback done);

 private:
  struct Read;

  void Add(Read read);
  // Puts `reads`, which a visit did not reach, back in the queue.
  void Requeue(std::vector<Read> reads);
  // Serves the reads queued when it starts, in visits, until each is done.
  void Drain();
  // Serves one visit's worth of `reads` (sorted) and removes the finished
  // ones; `slots` holds the replayed events between the visit and their
  // callbacks, reused from visit to visit.
  void Visit(std::vector<Read>& reads, std::vector<PersistentRepr>& slots);
  // A recovery's first visit: its snapshot (through `snapshots`, a shared
  // iterator, if it loads one) and where its page lies; its highest too if
  // the snapshot cannot be loaded (else the page's reader reads it).
  void StartRecovery(const Db::View& view, BoundedIterator* snapshots,
                     BoundedIterator& events, Read& read);
  // Runs a finished replay's or recovery's final callback.
  void Finish(Read& read);
  // Completes `read` with `why`: the store could not be visited.
  void Fail(Read& read, const absl::Status& why);

  Db& db_;
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  base::Mutex mu_;
  std::vector<Read> queued_ ABSL_GUARDED_BY(mu_);
  // Slots of drains that ended, at most one per reader thread.
  std::vector<std::vector<PersistentRepr>> spare_slots_ ABSL_GUARDED_BY(mu_);
  // A drain task is posted and has not taken the queue yet.
  bool drain_posted_ ABSL_GUARDED_BY(mu_) = false;
  // Last: destroyed first, serving what is queued while the rest lives.
  base::TaskRunner readers_;
};

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READ_QUEUE_H_
