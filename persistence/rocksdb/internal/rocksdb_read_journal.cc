#include "persistence/rocksdb/internal/rocksdb_read_journal.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/query_reads.h"
#include "persistence/rocksdb/internal/stream_reads.h"
#include "persistence/storage/plugin_support/commit_notifier.h"

namespace cairn::persistence::internal {

using plugin_support::CommitNotifier;

// What a live stream's waiting Pull needs from its read journal: the
// runner to post the retry to, while the read journal exists.
struct RunnerGate {
  base::Mutex mu;
  // Null once the read journal is being destroyed.
  base::TaskRunner* runner ABSL_GUARDED_BY(mu);
};

namespace {

// A query's position, read and advanced by one Pull at a time (the
// contract orders them), on the runner's thread.
template <typename T>
class Cursor {
 public:
  virtual ~Cursor() = default;
  // Up to `max` next elements, and whether the query has delivered all.
  virtual absl::Status Read(Db& db, std::size_t max, std::vector<T>& out,
                            bool& complete) = 0;
};

// A QueryStream over a Cursor: each Pull runs the cursor once on the
// runner. Its state is shared with the Pull in flight, so a stream
// destroyed meanwhile still completes it. A live stream whose Pull finds
// nothing new parks the Pull and waits for the store's next commit
// (CommitNotifier), then reads again. Whoever takes a parked Pull's
// callback out of the state (the retry, the stream's destructor or the
// read journal's) is the one that runs it, so it runs once.
template <typename T>
class CursorStream final : public QueryStream<T> {
 public:
  using typename QueryStream<T>::Batch;
  using typename QueryStream<T>::PullCallback;

  struct State {
    std::unique_ptr<Cursor<T>> cursor;
    bool live = false;
    bool complete = false;  // runner thread only
    absl::Status failed;    // runner thread only
    base::Mutex mu;
    bool cancelled ABSL_GUARDED_BY(mu) = false;
    std::optional<std::size_t> parked_max ABSL_GUARDED_BY(mu);
    PullCallback parked ABSL_GUARDED_BY(mu);
    CommitNotifier::Ticket ticket ABSL_GUARDED_BY(mu) = 0;
  };

  CursorStream(std::shared_ptr<Db> db, base::TaskRunner& runner,
               std::shared_ptr<RunnerGate> gate, std::shared_ptr<State> state)
      : db_(std::move(db)),
        runner_(runner),
        gate_(std::move(gate)),
        state_(std::move(state)) {}

  ~CursorStream() override { Cancel(*db_, runner_, *state_); }

  void Pull(std::size_t max, PullCallback done) override {
    runner_.Post([db = db_, gate = gate_, state = state_, max,
                  done = std::move(done)]() mutable {
      Run(db, gate, state, max, std::move(done));
    });
  }

  // Ends the stream's waiting Pull, if any, with Cancelled (posted).
  static void Cancel(Db& db, base::TaskRunner& runner, State& state) {
    PullCallback parked;
    CommitNotifier::Ticket ticket = 0;
    {
      base::MutexLock lock(&state.mu);
      state.cancelled = true;
      parked = std::move(state.parked);
      state.parked = nullptr;
      state.parked_max.reset();
      ticket = state.ticket;
    }
    if (ticket != 0) db.commits().Cancel(ticket);
    if (parked) {
      runner.Post([parked = std::move(parked)]() mutable {
        std::move(parked)(absl::CancelledError("the query was cancelled"));
      });
    }
  }

 private:
  // On the runner.
  static void Run(const std::shared_ptr<Db>& db,
                  const std::shared_ptr<RunnerGate>& gate,
                  const std::shared_ptr<State>& state, std::size_t max,
                  PullCallback done) {
    if (max == 0) {
      std::move(done)(absl::InvalidArgumentError("Pull of 0 elements"));
      return;
    }
    if (state->complete) {
      std::move(done)(
          absl::FailedPreconditionError("Pull after the query completed"));
      return;
    }
    if (!state->failed.ok()) {
      std::move(done)(base::OwnCopy(state->failed));
      return;
    }
    // Before the read, so that a commit during it wakes the wait below.
    const uint64_t generation = db->commits().Generation();
    Batch batch;
    absl::Status status =
        state->cursor->Read(*db, max, batch.elements, batch.complete);
    if (!status.ok()) {
      state->failed = base::OwnCopy(status);
      std::move(done)(base::OwnCopy(status));
      return;
    }
    if (!state->live || !batch.elements.empty() || batch.complete) {
      state->complete = batch.complete;
      std::move(done)(std::move(batch));
      return;
    }
    {
      base::MutexLock lock(&state->mu);
      if (state->cancelled) {
        std::move(done)(absl::CancelledError("the query was cancelled"));
        return;
      }
      state->parked = std::move(done);
      state->parked_max = max;
    }
    // Weak: the waiter waits in the Db's own notifier.
    CommitNotifier::Ticket ticket =
        db->commits().Wait(generation, [weak_db = std::weak_ptr<Db>(db), gate,
                                        weak = std::weak_ptr<State>(state)] {
          base::MutexLock lock(&gate->mu);
          if (gate->runner == nullptr) return;  // cancelled by its owner
          gate->runner->Post([weak_db, gate, weak] {
            std::shared_ptr<Db> db = weak_db.lock();
            std::shared_ptr<State> state = weak.lock();
            if (db == nullptr || state == nullptr) return;
            PullCallback parked;
            std::size_t max = 0;
            {
              base::MutexLock lock(&state->mu);
              if (!state->parked) return;  // taken by a cancel
              parked = std::move(state->parked);
              state->parked = nullptr;
              max = *state->parked_max;
              state->parked_max.reset();
              state->ticket = 0;
            }
            Run(db, gate, state, max, std::move(parked));
          });
        });
    base::MutexLock lock(&state->mu);
    if (state->parked) state->ticket = ticket;
  }

  const std::shared_ptr<Db> db_;
  base::TaskRunner& runner_;
  const std::shared_ptr<RunnerGate> gate_;
  const std::shared_ptr<State> state_;
};

// Current as of its first Pull. With an id log (every store open for
// writing has one; id_log.h): the log's entries up to the highest id offset
// the first Pull read, in the order the ids were created. The log bounds
// the query by that offset as a tag offset bounds a query by tag; a
// RocksDB snapshot held from the first Pull would do too, but it dies with
// the rocksdb::DB a failed write's recovery reopens (db.h), and a
// secondary instance takes none. Without a log (a read-only or secondary
// open of a store of an older build): the ids in key order, page by page.
// A read-only open sees no writes, so that is what was stored at the first
// Pull; a secondary's catch-up between two Pulls may add ids that sort
// after the last one delivered.
class PersistenceIdsCursor final : public Cursor<std::string> {
 public:
  absl::Status Read(Db& db, std::size_t max, std::vector<std::string>& out,
                    bool& complete) override {
    complete = false;
    absl::Status status = db.Read([&](const Db::View& view) -> absl::Status {
      if (!started_) {
        absl::StatusOr<std::optional<int64_t>> highest =
            ReadHighestIdOffset(view);
        if (!highest.ok()) return highest.status();
        upto_ = *highest;
        started_ = true;
      }
      if (upto_.has_value()) {
        const int64_t upto = *upto_;
        absl::Status read = ReadIdLog(view, after_, upto, max, out, after_);
        // Fewer than asked: nothing is left up to `upto`.
        complete = read.ok() && (after_ >= upto || out.size() < max);
        return read;
      }
      absl::Status listed = ReadPersistenceIds(view, last_listed_, max, out);
      if (!out.empty()) last_listed_ = out.back();
      complete = listed.ok() && out.size() < max;
      return listed;
    });
    return status;
  }

 private:
  bool started_ = false;  // the first Read read upto_
  // The highest id offset at the first Read; nullopt: the store has no id
  // log.
  std::optional<int64_t> upto_;
  int64_t after_ = 0;        // with a log: the id offset of the last id
  std::string last_listed_;  // without a log: the last id delivered
};

// Live: tails the id log (id_log.h) from its start, so the ids there at
// the first Pull and those created later come from one sequence, in id
// offset order, each once; it keeps only the last offset delivered. A
// store without an id log (read-only or secondary open of a store of an
// older build) gets its current ids listed as CurrentPersistenceIds lists
// them; then the next Pull fails with FailedPrecondition: there is no log
// to learn of later ids from.
class LivePersistenceIdsCursor final : public Cursor<std::string> {
 public:
  absl::Status Read(Db& db, std::size_t max, std::vector<std::string>& out,
                    bool& complete) override {
    complete = false;
    const std::string& path = db.options().path;
    return db.Read([&](const Db::View& view) -> absl::Status {
      if (!has_log_.has_value()) {
        absl::StatusOr<std::optional<int64_t>> highest =
            ReadHighestIdOffset(view);
        if (!highest.ok()) return highest.status();
        has_log_ = highest->has_value();
      }
      if (*has_log_) {
        return ReadIdLog(view, after_, std::numeric_limits<int64_t>::max(), max,
                         out, after_);
      }
      absl::Status listed = ReadPersistenceIds(view, last_listed_, max, out);
      if (!listed.ok()) return listed;
      if (!out.empty()) {
        last_listed_ = out.back();
        return absl::OkStatus();
      }
      return absl::FailedPreconditionError(base::StrCat(
          "the live PersistenceIds query listed the current ids of RocksDB "
          "store ",
          path, " but cannot follow new ones: the store has no id log ('",
          kIdsColumnFamily,
          "' column family), which a read-write journal of this build makes"));
    });
  }

 private:
  std::optional<bool> has_log_;  // decided by the first Read
  int64_t after_ = 0;            // the id offset of the last id delivered
  std::string last_listed_;      // without a log: the last id delivered
};

class EventsByIdCursor final : public Cursor<EventEnvelope> {
 public:
  EventsByIdCursor(std::shared_ptr<const SerializationRegistry> registry,
                   std::string persistence_id, int64_t from, int64_t to,
                   bool live)
      : registry_(std::move(registry)),
        persistence_id_(std::move(persistence_id)),
        next_(std::max<int64_t>(from, 1)),
        to_(to),
        live_(live) {}

  absl::Status Read(Db& db, std::size_t max, std::vector<EventEnvelope>& out,
                    bool& complete) override {
    std::vector<PersistentRepr> events;
    absl::Status status = db.Read([&](const Db::View& view) {
      if (!upto_ || live_) {
        absl::StatusOr<int64_t> highest =
            ReadHighestSequenceNr(view, persistence_id_);
        if (!highest.ok()) return highest.status();
        upto_ = std::min(*highest, to_);
      }
      if (next_ > *upto_) return absl::OkStatus();
      return ReadEvents(
          view, *registry_, persistence_id_, next_, *upto_, max,
          [&]() -> PersistentRepr& { return events.emplace_back(); });
    });
    for (PersistentRepr& event : events) {
      EventEnvelope& envelope = out.emplace_back();
      envelope.offset = event.sequence_nr;
      envelope.persistence_id = std::move(event.persistence_id);
      envelope.sequence_nr = event.sequence_nr;
      envelope.event = std::move(event.payload);
      envelope.timestamp = event.timestamp;
      envelope.tags = std::move(event.tags);
      envelope.adapter_manifest = std::move(event.adapter_manifest);
    }
    if (!out.empty()) next_ = out.back().sequence_nr + 1;
    // Current: fewer than asked means the rest of the range holds no more
    // events. Live: once nothing at or below `to` is left (also at once
    // for an empty range, from > to), or the stream reached `to` and
    // everything up to it is delivered (`to` itself may be deleted or
    // rejected).
    complete = status.ok() &&
               (live_ ? next_ > to_ || (*upto_ >= to_ && out.size() < max)
                      : out.size() < max || next_ > *upto_);
    return status;
  }

 private:
  const std::shared_ptr<const SerializationRegistry> registry_;
  const std::string persistence_id_;
  int64_t next_;
  const int64_t to_;
  const bool live_;
  std::optional<int64_t> upto_;  // set by the first Read (each, if live)
};

class EventsByTagCursor final : public Cursor<EventEnvelope> {
 public:
  EventsByTagCursor(std::shared_ptr<const SerializationRegistry> registry,
                    std::string tag, int64_t after, bool live)
      : registry_(std::move(registry)),
        tag_(std::move(tag)),
        after_(std::max<int64_t>(after, 0)),
        live_(live) {}

  absl::Status Read(Db& db, std::size_t max, std::vector<EventEnvelope>& out,
                    bool& complete) override {
    absl::Status status = db.Read([&](const Db::View& view) {
      if (!upto_ || live_) {
        absl::StatusOr<int64_t> highest = ReadHighestTagOffset(view);
        if (!highest.ok()) return highest.status();
        upto_ = *highest;
      }
      int64_t scanned = after_;
      absl::Status read = ReadTaggedEvents(view, *registry_, tag_, after_,
                                           *upto_, max, out, scanned);
      after_ = scanned;
      return read;
    });
    complete = status.ok() && !live_ && after_ >= *upto_;
    return status;
  }

 private:
  const std::shared_ptr<const SerializationRegistry> registry_;
  const std::string tag_;
  int64_t after_;  // the last offset looked at
  const bool live_;
  std::optional<int64_t> upto_;  // set by the first Read (each, if live)
};

// RocksDbReadJournal::CancelLive for a stream of T.
template <typename T>
void CancelLiveState(Db& db, base::TaskRunner& runner, void* state) {
  CursorStream<T>::Cancel(
      db, runner, *static_cast<typename CursorStream<T>::State*>(state));
}

using EventState = CursorStream<EventEnvelope>::State;

std::shared_ptr<EventState> NewState(
    std::unique_ptr<Cursor<EventEnvelope>> cursor, bool live) {
  auto state = std::make_shared<EventState>();
  state->cursor = std::move(cursor);
  state->live = live;
  return state;
}

}  // namespace

RocksDbReadJournal::RocksDbReadJournal(
    std::shared_ptr<Db> db,
    std::shared_ptr<const SerializationRegistry> registry)
    : db_(std::move(db)),
      registry_(std::move(registry)),
      gate_(std::make_shared<RunnerGate>()),
      runner_(1, "cairn-query") {
  gate_->runner = &runner_;
}

RocksDbReadJournal::~RocksDbReadJournal() {
  {
    base::MutexLock lock(&gate_->mu);
    gate_->runner = nullptr;
  }
  std::vector<LiveStream> live;
  {
    base::MutexLock lock(&mu_);
    live.swap(live_);
  }
  for (const LiveStream& stream : live) {
    std::shared_ptr<void> state = stream.state.lock();
    if (state == nullptr) continue;
    stream.cancel(*db_, runner_, state.get());
  }
  // runner_'s destructor then runs what was posted, the cancels included.
}

std::unique_ptr<QueryStream<std::string>>
RocksDbReadJournal::CurrentPersistenceIds() {
  auto state = std::make_shared<CursorStream<std::string>::State>();
  state->cursor = std::make_unique<PersistenceIdsCursor>();
  return std::make_unique<CursorStream<std::string>>(db_, runner_, gate_,
                                                     std::move(state));
}

void RocksDbReadJournal::AddLive(std::weak_ptr<void> state, CancelLive cancel) {
  base::MutexLock lock(&mu_);
  std::erase_if(live_,
                [](const LiveStream& live) { return live.state.expired(); });
  live_.push_back(LiveStream{std::move(state), cancel});
}

std::unique_ptr<QueryStream<std::string>> RocksDbReadJournal::PersistenceIds() {
  auto state = std::make_shared<CursorStream<std::string>::State>();
  state->cursor = std::make_unique<LivePersistenceIdsCursor>();
  state->live = true;
  AddLive(state, &CancelLiveState<std::string>);
  return std::make_unique<CursorStream<std::string>>(db_, runner_, gate_,
                                                     std::move(state));
}

std::unique_ptr<QueryStream<EventEnvelope>>
RocksDbReadJournal::CurrentEventsByPersistenceId(std::string persistence_id,
                                                 int64_t from_sequence_nr,
                                                 int64_t to_sequence_nr) {
  return std::make_unique<CursorStream<EventEnvelope>>(
      db_, runner_, gate_,
      NewState(std::make_unique<EventsByIdCursor>(
                   registry_, std::move(persistence_id), from_sequence_nr,
                   to_sequence_nr, /*live=*/false),
               /*live=*/false));
}

std::unique_ptr<QueryStream<EventEnvelope>>
RocksDbReadJournal::CurrentEventsByTag(std::string tag, int64_t offset) {
  return std::make_unique<CursorStream<EventEnvelope>>(
      db_, runner_, gate_,
      NewState(std::make_unique<EventsByTagCursor>(registry_, std::move(tag),
                                                   offset, /*live=*/false),
               /*live=*/false));
}

std::unique_ptr<QueryStream<EventEnvelope>>
RocksDbReadJournal::EventsByPersistenceId(std::string persistence_id,
                                          int64_t from_sequence_nr,
                                          int64_t to_sequence_nr) {
  auto state = NewState(std::make_unique<EventsByIdCursor>(
                            registry_, std::move(persistence_id),
                            from_sequence_nr, to_sequence_nr, /*live=*/true),
                        /*live=*/true);
  AddLive(state, &CancelLiveState<EventEnvelope>);
  return std::make_unique<CursorStream<EventEnvelope>>(db_, runner_, gate_,
                                                       std::move(state));
}

std::unique_ptr<QueryStream<EventEnvelope>> RocksDbReadJournal::EventsByTag(
    std::string tag, int64_t offset) {
  auto state = NewState(std::make_unique<EventsByTagCursor>(
                            registry_, std::move(tag), offset, /*live=*/true),
                        /*live=*/true);
  AddLive(state, &CancelLiveState<EventEnvelope>);
  return std::make_unique<CursorStream<EventEnvelope>>(db_, runner_, gate_,
                                                       std::move(state));
}

}  // namespace cairn::persistence::internal
