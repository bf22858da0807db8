#include "persistence/rocksdb/internal/stream_read_queue.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "base/status_copy.h"
#include "persistence/rocksdb/internal/snapshot_reads.h"
#include "persistence/rocksdb/internal/stream_reads.h"

namespace cairn::persistence::rocksdb_internal {

struct StreamReadQueue::Read {
  enum class Kind { kReplay, kReplayPage, kHighest, kRecovery };
  Kind kind = Kind::kReplay;
  std::string persistence_id;
  // A replay's (or a recovery's page's) next sequence number, bound and
  // events still allowed.
  int64_t from = 0;
  int64_t to = 0;
  int64_t remaining = 0;
  Journal::ReplayCallback on_event;
  Journal::DoneCallback replay_done;
  Journal::HighestCallback highest_done;
  // A page replay: its events so far, and where they go.
  ReplayPage page;
  Journal::ReplayPageCallback page_done;
  // A recovery: what it asked for and what it found in its first visit.
  RecoveryStartRequest request;
  bool load_snapshot = false;
  RecoveryStart start;
  Journal::RecoveryStartCallback recovery_done;

  // Served in a visit already (a recovery: its start is read): its
  // callbacks have begun on this drain's thread, where they stay.
  bool begun = false;
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

}  // namespace

StreamReadQueue::StreamReadQueue(
    Db& db,
    std::shared_ptr<const serialization::SerializationRegistry> registry,
    int threads)
    : db_(db),
      registry_(std::move(registry)),
      readers_(threads, "cairn-jrnl-rd") {}

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

void StreamReadQueue::AddReplayPage(std::string persistence_id, int64_t from,
                                    int64_t to, int64_t max,
                                    Journal::ReplayPageCallback done) {
  Read read;
  read.kind = Read::Kind::kReplayPage;
  read.persistence_id = std::move(persistence_id);
  read.from = std::max<int64_t>(from, 1);
  read.to = to;
  read.remaining = max;
  read.page = ReplayPage(registry_);
  read.page_done = std::move(done);
  Add(std::move(read));
}

void StreamReadQueue::AddHighest(std::string persistence_id,
                                 Journal::HighestCallback done) {
  Read read;
  read.kind = Read::Kind::kHighest;
  read.persistence_id = std::move(persistence_id);
  // Sorts after the stream's replays: it reads at the stream's end.
  read.from = kMaxSequenceNr;
  read.highest_done = std::move(done);
  Add(std::move(read));
}

void StreamReadQueue::AddRecovery(RecoveryStartRequest request,
                                  bool load_snapshot,
                                  Journal::ReplayCallback on_event,
                                  Journal::RecoveryStartCallback done) {
  Read read;
  read.kind = Read::Kind::kRecovery;
  read.persistence_id = request.persistence_id;
  read.from = 1;  // where it sorts; set once the snapshot is known
  request.snapshots = nullptr;  // only good during the journal's call
  read.request = std::move(request);
  read.load_snapshot = load_snapshot;
  read.on_event = std::move(on_event);
  read.recovery_done = std::move(done);
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

void StreamReadQueue::Requeue(std::vector<Read> reads) {
  if (reads.empty()) return;
  {
    base::MutexLock lock(&mu_);
    for (Read& read : reads) queued_.push_back(std::move(read));
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
  bool more = false;
  {
    base::MutexLock lock(&mu_);
    // At most a visit's worth: the rest is another drain's, on another
    // reader thread if one is free. So is a second page of a stream this
    // drain reads a page of: a recovery asks for its next two pages at
    // once (PersistentActor's ranged replay), and they are read side by
    // side, not one after the other.
    reads.reserve(std::min(queued_.size(), kVisitReads));
    // The streams taken a page of, viewing the ids in `reads` (reserved:
    // they do not move). What is left moves to the queue's front, which
    // keeps its storage.
    absl::flat_hash_set<std::string_view> paged;
    size_t left = 0;
    for (Read& read : queued_) {
      const bool page = read.kind == Read::Kind::kReplayPage;
      if (reads.size() == kVisitReads ||
          (page && paged.contains(read.persistence_id))) {
        if (&queued_[left] != &read) queued_[left] = std::move(read);
        ++left;
        continue;
      }
      reads.push_back(std::move(read));
      if (page) paged.insert(reads.back().persistence_id);
    }
    queued_.erase(queued_.begin() + static_cast<std::ptrdiff_t>(left),
                  queued_.end());
    more = !queued_.empty();
    drain_posted_ = more;
    if (!spare_slots_.empty()) {
      slots = std::move(spare_slots_.back());
      spare_slots_.pop_back();
    }
  }
  if (more) readers_.Post([this] { Drain(); });
  // In key order, so that a visit's iterators only move forward. Stable:
  // two reads of one stream keep their order.
  std::stable_sort(
      reads.begin(), reads.end(), [](const Read& a, const Read& b) {
        return InKeyOrder(a.persistence_id, a.from, b.persistence_id, b.from);
      });
  // Each visit leaves only replays it began, which stay on this thread
  // (a replay's callbacks all run on one); a read it did not reach goes
  // back to the queue, for whichever thread drains next.
  while (!reads.empty()) Visit(reads, slots);
  base::MutexLock lock(&mu_);
  spare_slots_.push_back(std::move(slots));
}

void StreamReadQueue::Visit(std::vector<Read>& reads,
                            std::vector<PersistentRepr>& slots) {
  size_t served = 0;
  size_t used = 0;   // slots filled in this visit
  size_t paged = 0;  // events read into pages in this visit
  const absl::Status visited = db_.Read([&](const Db::View& view) {
    BoundedIterator events(view.db, view.events);
    std::optional<BoundedIterator> snapshots;  // made when needed
    for (; served < reads.size() && served < kVisitReads &&
           used + paged < kVisitEvents;
         ++served) {
      Read& read = reads[served];
      // A recovery's first visit reads its highest after its page, which
      // often shows where the stream ends.
      const bool first_page = read.kind == Read::Kind::kRecovery && !read.begun;
      read.begun = true;
      read.read = 0;
      read.limit = 0;
      switch (read.kind) {
        case Read::Kind::kHighest:
          read.highest_read =
              ReadHighestSequenceNr(view, events, read.persistence_id);
          continue;
        case Read::Kind::kRecovery:
          if (first_page) {
            if (read.load_snapshot && !snapshots.has_value()) {
              snapshots.emplace(view.db, view.snapshots);
            }
            StartRecovery(view, snapshots.has_value() ? &*snapshots : nullptr,
                          events, read);
            if (!read.start.snapshot.ok()) continue;  // no page to read
          }
          break;
        case Read::Kind::kReplay:
          break;
        case Read::Kind::kReplayPage: {
          read.limit = static_cast<size_t>(std::min<int64_t>(
              {std::max<int64_t>(read.remaining, 0),
               static_cast<int64_t>(kReplayChunk),
               static_cast<int64_t>(kVisitEvents - used - paged)}));
          const size_t before = read.page.size();
          // Room for the usual small event; a bigger one grows the page.
          if (before == 0) read.page.Reserve(read.limit, read.limit * 32);
          read.status = ReadSerializedEvents(
              view, events, read.persistence_id, read.from, read.to, read.limit,
              read.page, /*range_ended=*/nullptr);
          read.read = read.page.size() - before;
          paged += read.read;
          continue;
        }
      }
      read.first_slot = used;
      read.limit = static_cast<size_t>(std::min<int64_t>(
          {std::max<int64_t>(read.remaining, 0),
           static_cast<int64_t>(kReplayChunk),
           static_cast<int64_t>(kVisitEvents - used - paged)}));
      bool range_ended = false;
      read.status = ReadEvents(
          view, events, *registry_, read.persistence_id, read.from, read.to,
          read.limit,
          [&]() -> PersistentRepr& {
            if (used == slots.size()) slots.emplace_back();
            ++read.read;
            return slots[used++];
          },
          &range_ended);
      if (first_page) {
        // A page that ran to the end of the stream (no bound below its
        // end) read its last event: no seek to the end is needed.
        const bool last_known = read.status.ok() && range_ended &&
                                read.to == kMaxSequenceNr &&
                                (read.read > 0 || read.from == 1);
        read.start.highest =
            last_known
                ? HighestSequenceNrGivenLast(
                      view, read.persistence_id,
                      read.read > 0 ? slots[used - 1].sequence_nr : 0)
                : ReadHighestSequenceNr(view, events, read.persistence_id);
      }
    }
    return absl::OkStatus();
  });
  if (!visited.ok()) {
    // The store could not be visited at all (closed after a failed
    // write, and reopening it failed): every read fails with why.
    for (Read& read : reads) Fail(read, visited);
    reads.clear();
    return;
  }
  // Outside the visit: the callbacks, then what is left for the next one.
  size_t kept = 0;
  for (size_t i = 0; i < served; ++i) {
    Read& read = reads[i];
    if (read.kind == Read::Kind::kHighest) {
      std::move(read.highest_done)(read.highest_read.ok()
                                       ? std::move(read.highest_read)
                                       : absl::StatusOr<int64_t>(base::OwnCopy(
                                             read.highest_read.status())));
      continue;
    }
    if (read.kind == Read::Kind::kRecovery && !read.start.snapshot.ok()) {
      std::move(read.recovery_done)(std::move(read.start));
      continue;
    }
    int64_t last = read.from - 1;
    if (read.kind == Read::Kind::kReplayPage) {
      if (read.read > 0) last = read.page.last_sequence_nr();
    } else {
      for (size_t s = read.first_slot; s < read.first_slot + read.read; ++s) {
        read.on_event(slots[s]);
        slots[s].payload = serialization::Payload();  // not kept past it
      }
      if (read.read > 0) {
        last = slots[read.first_slot + read.read - 1].sequence_nr;
      }
    }
    read.remaining -= static_cast<int64_t>(read.read);
    const bool finished = !read.status.ok() || read.read < read.limit ||
                          last >= read.to || read.remaining <= 0;
    if (finished) {
      Finish(read);
      continue;
    }
    read.from = last + 1;
    if (kept != i) reads[kept] = std::move(read);
    ++kept;
  }
  // The reads this visit did not reach: those begun before stay (their
  // callbacks keep to this thread), the others go back to the queue.
  std::vector<Read> unreached;
  for (size_t i = served; i < reads.size(); ++i) {
    if (reads[i].begun) {
      if (kept != i) reads[kept] = std::move(reads[i]);
      ++kept;
    } else {
      unreached.push_back(std::move(reads[i]));
    }
  }
  reads.resize(kept);
  Requeue(std::move(unreached));
}

void StreamReadQueue::StartRecovery(const Db::View& view,
                                    BoundedIterator* snapshots,
                                    BoundedIterator& events, Read& read) {
  const RecoveryStartRequest& request = read.request;
  if (read.load_snapshot) {
    read.start.snapshot =
        LoadSnapshot(view, snapshots, *registry_, read.persistence_id,
                     request.criteria, request.to_sequence_nr);
  } else {
    LoadSnapshotResult none;
    none.to_sequence_nr = request.to_sequence_nr;
    read.start.snapshot = std::move(none);
  }
  if (!read.start.snapshot.ok()) {
    read.start.highest =
        ReadHighestSequenceNr(view, events, read.persistence_id);
    return;
  }
  const std::optional<SelectedSnapshot>& snapshot =
      read.start.snapshot->snapshot;
  // The page RecoveryStartRequest describes.
  read.to =
      std::min(read.start.snapshot->to_sequence_nr, request.to_sequence_nr);
  read.from = 1;
  read.remaining = request.page_max;
  if (request.replay_after_snapshot && snapshot.has_value()) {
    if (snapshot->metadata.sequence_nr >= read.to) {
      read.remaining = 0;  // nothing after it to replay (nor a +1 to take)
    } else {
      read.from = snapshot->metadata.sequence_nr + 1;
    }
  }
}

void StreamReadQueue::Finish(Read& read) {
  if (read.kind == Read::Kind::kReplayPage) {
    std::move(read.page_done)(std::move(read.status), std::move(read.page));
    return;
  }
  if (read.kind == Read::Kind::kRecovery) {
    read.start.replay = std::move(read.status);
    std::move(read.recovery_done)(std::move(read.start));
    return;
  }
  std::move(read.replay_done)(std::move(read.status));
}

void StreamReadQueue::Fail(Read& read, const absl::Status& why) {
  switch (read.kind) {
    case Read::Kind::kHighest:
      std::move(read.highest_done)(base::OwnCopy(why));
      return;
    case Read::Kind::kReplay:
      std::move(read.replay_done)(base::OwnCopy(why));
      return;
    case Read::Kind::kReplayPage:
      // The events a visit read before stay: the replay fails after them.
      std::move(read.page_done)(base::OwnCopy(why), std::move(read.page));
      return;
    case Read::Kind::kRecovery:
      if (!read.begun) {
        read.start.snapshot = base::OwnCopy(why);
        read.start.highest = base::OwnCopy(why);
      } else {
        read.start.replay = base::OwnCopy(why);
      }
      std::move(read.recovery_done)(std::move(read.start));
      return;
  }
}

}  // namespace cairn::persistence::rocksdb_internal
