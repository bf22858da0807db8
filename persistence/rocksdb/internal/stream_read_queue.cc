#include "persistence/rocksdb/internal/stream_read_queue.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "persistence/rocksdb/internal/stream_reads.h"
#include "rocksdb/iterator.h"

namespace cairn::persistence::rocksdb_internal {

struct StreamReadQueue::Read {
  bool highest = false;  // a highest-sequence-number read, else a replay
  std::string persistence_id;
  // A replay's next sequence number, bound and events still allowed.
  int64_t from = 0;
  int64_t to = 0;
  int64_t remaining = 0;
  Journal::ReplayCallback on_event;
  Journal::DoneCallback replay_done;
  Journal::HighestCallback highest_done;

  // The outcome of its part of the last visit.
  size_t first_slot = 0;
  size_t read = 0;
  size_t limit = 0;
  absl::Status status;
  absl::StatusOr<int64_t> highest_read;
};

namespace {

// Key order (RecordKey: the id's length, then the id, then the sequence
// number), so that a visit's iterator only moves forward.
bool InKeyOrder(const std::string& a_id, int64_t a_from,
                const std::string& b_id, int64_t b_from) {
  if (a_id.size() != b_id.size()) return a_id.size() < b_id.size();
  if (int c = a_id.compare(b_id); c != 0) return c < 0;
  return a_from < b_from;
}

// A status of its own for another thread: a copy shares its
// representation, whose reference count ThreadSanitizer cannot see (absl
// is not instrumented).
absl::Status OwnCopy(const absl::Status& status) {
  return absl::Status(status.code(), status.message());
}

}  // namespace

StreamReadQueue::StreamReadQueue(
    Db& db, const serialization::SerializationRegistry& registry, int threads)
    : db_(db), registry_(registry), readers_(threads, "cairn-jrnl-rd") {}

StreamReadQueue::~StreamReadQueue() = default;

void StreamReadQueue::AddReplay(std::string persistence_id, int64_t from,
                                int64_t to, int64_t max,
                                Journal::ReplayCallback on_event,
                                Journal::DoneCallback done) {
  Read read;
  read.persistence_id = std::move(persistence_id);
  read.from = std::max<int64_t>(from, 1);
  read.to = to;
  read.remaining = max;
  read.on_event = std::move(on_event);
  read.replay_done = std::move(done);
  Add(std::move(read));
}

void StreamReadQueue::AddHighest(std::string persistence_id,
                                 Journal::HighestCallback done) {
  Read read;
  read.highest = true;
  read.persistence_id = std::move(persistence_id);
  read.highest_done = std::move(done);
  Add(std::move(read));
}

void StreamReadQueue::Add(Read read) {
  {
    base::MutexLock lock(&mu_);
    queued_.push_back(std::move(read));
    if (drain_posted_) return;
    drain_posted_ = true;
  }
  readers_.Post([this] { Drain(); });
}

void StreamReadQueue::Drain() {
  std::vector<Read> reads;
  // Filled slots keep their strings' storage: a drain reuses those of an
  // earlier one rather than growing its own from nothing.
  std::vector<PersistentRepr> slots;
  {
    base::MutexLock lock(&mu_);
    reads.swap(queued_);
    drain_posted_ = false;
    if (!spare_slots_.empty()) {
      slots = std::move(spare_slots_.back());
      spare_slots_.pop_back();
    }
  }
  // Stable: two reads of one stream keep their order.
  std::stable_sort(
      reads.begin(), reads.end(), [](const Read& a, const Read& b) {
        return InKeyOrder(a.persistence_id, a.from, b.persistence_id, b.from);
      });
  while (!reads.empty()) Visit(reads, slots);
  base::MutexLock lock(&mu_);
  spare_slots_.push_back(std::move(slots));
}

void StreamReadQueue::Visit(std::vector<Read>& reads,
                            std::vector<PersistentRepr>& slots) {
  size_t served = 0;
  size_t used = 0;  // slots filled in this visit
  const absl::Status visited = db_.Read([&](const Db::View& view) {
    std::unique_ptr<rocksdb::Iterator> events(
        view.db->NewIterator(rocksdb::ReadOptions(), view.events));
    for (; served < reads.size() && served < kVisitReads && used < kVisitEvents;
         ++served) {
      Read& read = reads[served];
      if (read.highest) {
        read.highest_read =
            ReadHighestSequenceNr(view, *events, read.persistence_id);
        continue;
      }
      read.first_slot = used;
      read.read = 0;
      read.limit = static_cast<size_t>(
          std::min<int64_t>({read.remaining, static_cast<int64_t>(kReplayChunk),
                             static_cast<int64_t>(kVisitEvents - used)}));
      read.status =
          ReadEvents(view, *events, registry_, read.persistence_id, read.from,
                     read.to, read.limit, [&]() -> PersistentRepr& {
                       if (used == slots.size()) slots.emplace_back();
                       ++read.read;
                       return slots[used++];
                     });
    }
    return absl::OkStatus();
  });
  if (!visited.ok()) {
    // The store could not be visited at all (closed after a failed
    // write, and reopening it failed): every read fails with why.
    for (Read& read : reads) {
      if (read.highest) {
        std::move(read.highest_done)(OwnCopy(visited));
      } else {
        std::move(read.replay_done)(OwnCopy(visited));
      }
    }
    reads.clear();
    return;
  }
  // Outside the visit: the callbacks, then what is left for the next one.
  size_t kept = 0;
  for (size_t i = 0; i < served; ++i) {
    Read& read = reads[i];
    if (read.highest) {
      std::move(read.highest_done)(
          read.highest_read.ok()
              ? std::move(read.highest_read)
              : absl::StatusOr<int64_t>(OwnCopy(read.highest_read.status())));
      continue;
    }
    for (size_t s = read.first_slot; s < read.first_slot + read.read; ++s) {
      read.on_event(slots[s]);
      slots[s].payload = serialization::Payload();  // not kept past the call
    }
    const int64_t last =
        read.read == 0 ? read.from - 1
                       : slots[read.first_slot + read.read - 1].sequence_nr;
    read.remaining -= static_cast<int64_t>(read.read);
    const bool finished = !read.status.ok() || read.read < read.limit ||
                          last >= read.to || read.remaining <= 0;
    if (finished) {
      std::move(read.replay_done)(std::move(read.status));
      continue;
    }
    read.from = last + 1;
    if (kept != i) reads[kept] = std::move(read);
    ++kept;
  }
  // The reads this visit did not reach keep their places after the kept
  // ones, whose keys are lower: the order stays sorted.
  std::move(reads.begin() + static_cast<std::ptrdiff_t>(served), reads.end(),
            reads.begin() + static_cast<std::ptrdiff_t>(kept));
  reads.resize(kept + (reads.size() - served));
}

}  // namespace cairn::persistence::rocksdb_internal
