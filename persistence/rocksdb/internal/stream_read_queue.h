#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READ_QUEUE_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READ_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/task_runner.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/journal.h"
#include "serialization/serialization.h"

namespace cairn::persistence::rocksdb_internal {

// The RocksDB journal's replays and highest-sequence-number reads, served
// in visits to the database. A reader thread takes every read queued,
// sorts them in key order and serves them through one iterator in one
// visit, so that a thousand recovering actors cost a few iterators and
// lock acquisitions, not one of each per read: the pattern of a raw scan
// that seeks one iterator from stream to stream.
//
// A visit serves at most kVisitReads reads and kVisitEvents events, a
// replay at most kReplayChunk of them; a longer replay goes on in the next
// visit. Between visits no lock is held: callbacks run under none, a long
// replay shares its thread with the reads queued behind it, and recovery
// after a failed write never waits for one. While one thread drains, reads
// queued meanwhile go to another reader thread, so reads are batched when
// they queue up and run in parallel when they do not.
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

  // `db` and `registry` must outlive the queue.
  StreamReadQueue(Db& db, const serialization::SerializationRegistry& registry,
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

 private:
  struct Read;

  void Add(Read read);
  // Serves the reads queued when it starts, in visits, until each is done.
  void Drain();
  // Serves one visit's worth of `reads` (sorted) and removes the finished
  // ones; `slots` holds the replayed events between the visit and their
  // callbacks, reused from visit to visit.
  void Visit(std::vector<Read>& reads, std::vector<PersistentRepr>& slots);

  Db& db_;
  const serialization::SerializationRegistry& registry_;
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
