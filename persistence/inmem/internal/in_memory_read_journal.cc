#include "persistence/inmem/internal/in_memory_read_journal.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"

namespace cairn::persistence::internal {

using plugin_support::CommitNotifier;

namespace {

using StoredEvent = InMemoryStore::StoredEvent;

// Where a query is between Pulls. Touched by the read journal's thread
// only, so it needs no lock of its own.
template <typename T>
class Query {
 public:
  virtual ~Query() = default;
  // The next batch: at most `max` (> 0) elements. Empty and not complete:
  // a live query found nothing new (a current one never does that).
  virtual absl::StatusOr<typename QueryStream<T>::Batch> Next(
      std::size_t max) = 0;
};

// A stream's state whose Pull may wait for a commit, as its read journal's
// LiveHub sees it.
class Parking {
 public:
  virtual ~Parking() = default;
  // With the hub's lock held: takes the waiting Pull, if there is one,
  // cancels its waiter (moved to `dropped`, to be destroyed after the lock
  // is released) and returns the task that completes it with Cancelled;
  // an empty task if no Pull waits.
  virtual absl::AnyInvocable<void() &&> TakeCancelled(
      CommitNotifier& notifier,
      std::vector<CommitNotifier::Waiter>& dropped) = 0;
};

}  // namespace

// The live Pulls of one read journal that wait for a commit, and the runner
// their retries go to. A waiting Pull's callback is held by its stream's
// state, under `mu`: whoever takes it there (the retry, the stream's
// destructor or the read journal's) runs it, so it runs exactly once.
struct LiveHub {
  explicit LiveHub(std::shared_ptr<InMemoryStore> s) : store(std::move(s)) {}

  const std::shared_ptr<InMemoryStore> store;
  base::Mutex mu;
  // The read journal's runner; null once its destructor cancelled the
  // waiting Pulls (a waiter that fires later has nothing to retry).
  base::TaskRunner* runner ABSL_GUARDED_BY(mu) = nullptr;
  // The read journal's destructor started: a Pull that would wait
  // completes with Cancelled instead.
  bool closing ABSL_GUARDED_BY(mu) = false;
  uint64_t last_wait ABSL_GUARDED_BY(mu) = 0;  // numbers each wait
  // The states whose Pull waits.
  std::map<Parking*, std::shared_ptr<Parking>> waiting ABSL_GUARDED_BY(mu);
};

namespace {

// A query's state shared by its stream, the Pulls in flight and the waiter
// of a waiting Pull, so that a stream destroyed with a Pull in flight still
// gets its callback run.
template <typename T>
struct PullState final : Parking {
  using PullCallback = typename QueryStream<T>::PullCallback;
  // A Pull that waits for a commit.
  struct Waiting {
    PullCallback done;
    std::size_t max = 0;
    uint64_t id = 0;                    // LiveHub::last_wait when it began
    CommitNotifier::Ticket ticket = 0;  // 0 until Wait returned
  };

  explicit PullState(std::unique_ptr<Query<T>> q) : query(std::move(q)) {}

  absl::AnyInvocable<void() &&> TakeCancelled(
      CommitNotifier& notifier,
      std::vector<CommitNotifier::Waiter>& dropped) override {
    if (!waiting.has_value()) return nullptr;
    // Ticket 0: Wait has not returned yet; the Pull that waits cancels it
    // when it finds itself taken.
    if (waiting->ticket != 0) {
      dropped.push_back(notifier.Cancel(waiting->ticket));
    }
    PullCallback done = std::move(waiting->done);
    waiting.reset();
    return [done = std::move(done)]() mutable {
      std::move(done)(absl::CancelledError("the live query was cancelled"));
    };
  }

  // Read journal's thread only.
  std::unique_ptr<Query<T>> query;
  absl::Status failed;  // the error that ended the query, if one did
  bool complete = false;
  // Guarded by the LiveHub's mu.
  std::optional<Waiting> waiting;
  // The stream is destroyed: a Pull still queued that would wait gets
  // Cancelled instead. Guarded by the LiveHub's mu.
  bool cancelled = false;
};

template <typename T>
class RunnerStream final : public QueryStream<T> {
 public:
  using typename QueryStream<T>::Batch;
  using typename QueryStream<T>::PullCallback;

  RunnerStream(base::TaskRunner& runner, std::shared_ptr<LiveHub> hub,
               std::unique_ptr<Query<T>> query)
      : runner_(runner),
        hub_(std::move(hub)),
        state_(std::make_shared<PullState<T>>(std::move(query))) {}

  // Cancels a waiting Pull: its callback is posted, never run here.
  ~RunnerStream() override {
    std::vector<CommitNotifier::Waiter> dropped;  // destroyed unlocked
    base::MutexLock lock(&hub_->mu);
    state_->cancelled = true;
    absl::AnyInvocable<void()&&> cancelled =
        state_->TakeCancelled(hub_->store->notifier, dropped);
    if (cancelled == nullptr) return;
    hub_->waiting.erase(state_.get());
    // Not null: the read journal's destructor takes every waiting Pull
    // before it clears the runner.
    hub_->runner->Post(std::move(cancelled));
  }

  void Pull(std::size_t max, PullCallback done) override {
    runner_.Post(
        [hub = hub_, state = state_, max, done = std::move(done)]() mutable {
          Step(hub, state, max, std::move(done));
        });
  }

 private:
  // One read for a Pull, on the read journal's thread: calls back, or
  // waits for a commit if a live query found nothing new.
  static void Step(const std::shared_ptr<LiveHub>& hub,
                   const std::shared_ptr<PullState<T>>& state, std::size_t max,
                   PullCallback done) {
    // Read before the store is: a commit after it wakes the wait at once.
    const uint64_t generation = hub->store->notifier.Generation();
    absl::StatusOr<Batch> batch = Next(*state, max);
    if (batch.ok() && batch->elements.empty() && !batch->complete) {
      Wait(hub, state, max, std::move(done), generation);
      return;
    }
    std::move(done)(std::move(batch));
  }

  static void Wait(const std::shared_ptr<LiveHub>& hub,
                   const std::shared_ptr<PullState<T>>& state, std::size_t max,
                   PullCallback done, uint64_t generation) {
    uint64_t id = 0;
    absl::Status refused;  // ok: waiting
    {
      base::MutexLock lock(&hub->mu);
      if (hub->closing || state->cancelled) {
        refused =
            absl::CancelledError(hub->closing ? "the read journal was closed"
                                              : "the live query was cancelled");
      } else {
        id = ++hub->last_wait;
        state->waiting =
            typename PullState<T>::Waiting{std::move(done), max, id};
        hub->waiting.emplace(state.get(), state);
      }
    }
    if (!refused.ok()) {
      std::move(done)(std::move(refused));
      return;
    }
    // The waiter only posts the retry; it may run here, now (a commit
    // since `generation`), or on the journal's thread.
    CommitNotifier::Ticket ticket =
        hub->store->notifier.Wait(generation, [hub, state, id]() {
          base::MutexLock lock(&hub->mu);
          if (hub->runner == nullptr) return;  // cancelled already
          hub->runner->Post([hub, state, id]() { Retry(hub, state, id); });
        });
    CommitNotifier::Waiter dropped;  // destroyed unlocked
    base::MutexLock lock(&hub->mu);
    if (state->waiting.has_value() && state->waiting->id == id) {
      state->waiting->ticket = ticket;
    } else {
      // Cancelled while Wait ran: the canceller had no ticket to cancel.
      dropped = hub->store->notifier.Cancel(ticket);
    }
  }

  // A commit happened since wait `id` began: reads again, if the Pull
  // still waits (and was not cancelled meanwhile).
  static void Retry(const std::shared_ptr<LiveHub>& hub,
                    const std::shared_ptr<PullState<T>>& state, uint64_t id) {
    PullCallback done;
    std::size_t max = 0;
    {
      base::MutexLock lock(&hub->mu);
      if (!state->waiting.has_value() || state->waiting->id != id) return;
      done = std::move(state->waiting->done);
      max = state->waiting->max;
      state->waiting.reset();
      hub->waiting.erase(state.get());
    }
    Step(hub, state, max, std::move(done));
  }

  static absl::StatusOr<Batch> Next(PullState<T>& state, std::size_t max) {
    // Pulls the contract rules out get an error rather than undefined
    // behaviour. The ended query's error is handed out as a copy, not
    // shared: absl::Status's shared reference count is invisible to
    // ThreadSanitizer (absl is not instrumented), and the callback may hand
    // it to other threads.
    if (!state.failed.ok()) {
      return absl::Status(state.failed.code(), state.failed.message());
    }
    if (state.complete) {
      return absl::FailedPreconditionError("Pull after the query completed");
    }
    if (max == 0) return absl::InvalidArgumentError("Pull with max 0");
    absl::StatusOr<Batch> batch = state.query->Next(max);
    if (!batch.ok()) {
      state.failed =
          absl::Status(batch.status().code(), batch.status().message());
    } else if (batch->complete) {
      state.complete = true;
    }
    return batch;
  }

  base::TaskRunner& runner_;
  const std::shared_ptr<LiveHub> hub_;
  const std::shared_ptr<PullState<T>> state_;
};

// `stored` of `persistence_id` as a query delivers it at `offset`.
absl::StatusOr<EventEnvelope> Envelope(const SerializationRegistry& registry,
                                       const std::string& persistence_id,
                                       int64_t offset,
                                       const StoredEvent& stored) {
  absl::StatusOr<PersistentRepr> repr =
      DecodeStoredEvent(registry, persistence_id, stored);
  if (!repr.ok()) return repr.status();
  EventEnvelope envelope;
  envelope.offset = offset;
  envelope.persistence_id = persistence_id;
  envelope.sequence_nr = repr->sequence_nr;
  envelope.event = std::move(repr->payload);
  envelope.timestamp = repr->timestamp;
  envelope.tags = std::move(repr->tags);
  envelope.adapter_manifest = std::move(repr->adapter_manifest);
  return envelope;
}

// Live: reads up to the end of the id list at every Pull (ids are only
// appended, so each is delivered once, by position); never completes.
class IdsQuery final : public Query<std::string> {
 public:
  IdsQuery(std::shared_ptr<InMemoryStore> store, bool live)
      : store_(std::move(store)), live_(live) {}

  absl::StatusOr<QueryStream<std::string>::Batch> Next(
      std::size_t max) override {
    QueryStream<std::string>::Batch batch;
    base::MutexLock lock(&store_->mu);
    // Ids are only ever appended: the first `end_` are those that were
    // there at the first Pull (live: at this one).
    if (!started_ || live_) {
      started_ = true;
      end_ = store_->persistence_ids.size();
    }
    std::size_t stop = next_ + std::min(max, end_ - next_);
    batch.elements.assign(store_->persistence_ids.begin() + next_,
                          store_->persistence_ids.begin() + stop);
    next_ = stop;
    batch.complete = !live_ && next_ == end_;
    return batch;
  }

 private:
  const std::shared_ptr<InMemoryStore> store_;
  const bool live_;
  bool started_ = false;
  std::size_t end_ = 0;
  std::size_t next_ = 0;
};

// Live: reads up to `to` at every Pull, and completes once the stream's
// highest reached `to` and every event up to it was delivered (an event
// deleted or a write rejected at `to` does not leave it waiting forever).
class ByPersistenceId final : public Query<EventEnvelope> {
 public:
  ByPersistenceId(std::shared_ptr<InMemoryStore> store,
                  std::shared_ptr<const SerializationRegistry> registry,
                  std::string persistence_id, int64_t from, int64_t to,
                  bool live)
      : store_(std::move(store)),
        registry_(std::move(registry)),
        persistence_id_(std::move(persistence_id)),
        live_(live),
        next_(std::max<int64_t>(from, 1)),
        to_(to) {}

  absl::StatusOr<QueryStream<EventEnvelope>::Batch> Next(
      std::size_t max) override {
    std::vector<StoredEvent> copied;
    QueryStream<EventEnvelope>::Batch batch;
    {
      base::MutexLock lock(&store_->mu);
      auto stream = store_->streams.find(persistence_id_);
      const bool exists = stream != store_->streams.end();
      if (!started_ && !live_) {
        started_ = true;
        to_ = std::min(to_, exists ? stream->second.highest : 0);
      }
      if (next_ > to_ || !exists) {
        batch.complete = next_ > to_ || !live_;
        return batch;
      }
      const auto& events = stream->second.events;
      auto it = events.lower_bound(next_);
      for (; it != events.end() && it->first <= to_ && copied.size() < max;
           ++it) {
        copied.push_back(it->second);
      }
      batch.complete = (it == events.end() || it->first > to_) &&
                       (!live_ || stream->second.highest >= to_);
    }
    if (!copied.empty()) next_ = copied.back().sequence_nr + 1;
    batch.elements.reserve(copied.size());
    for (const StoredEvent& stored : copied) {
      absl::StatusOr<EventEnvelope> envelope =
          Envelope(*registry_, persistence_id_, stored.sequence_nr, stored);
      if (!envelope.ok()) return envelope.status();
      batch.elements.push_back(*std::move(envelope));
    }
    return batch;
  }

 private:
  const std::shared_ptr<InMemoryStore> store_;
  const std::shared_ptr<const SerializationRegistry> registry_;
  const std::string persistence_id_;
  const bool live_;
  bool started_ = false;
  int64_t next_;  // at least 1: a range below 1 is empty, and done
  int64_t to_;    // current: capped at the stream's highest at the first Pull
};

// Live: reads up to the store's last tag offset at every Pull; never
// completes.
class ByTag final : public Query<EventEnvelope> {
 public:
  ByTag(std::shared_ptr<InMemoryStore> store,
        std::shared_ptr<const SerializationRegistry> registry, std::string tag,
        int64_t offset, bool live)
      : store_(std::move(store)),
        registry_(std::move(registry)),
        tag_(std::move(tag)),
        live_(live),
        offset_(offset) {}

  absl::StatusOr<QueryStream<EventEnvelope>::Batch> Next(
      std::size_t max) override {
    struct Copied {
      int64_t offset;
      std::string persistence_id;
      StoredEvent event;
    };
    std::vector<Copied> copied;
    QueryStream<EventEnvelope>::Batch batch;
    {
      base::MutexLock lock(&store_->mu);
      if (!started_ || live_) {
        started_ = true;
        end_ = store_->last_tag_offset;
      }
      auto index = store_->tags.find(tag_);
      if (index == store_->tags.end()) {
        batch.complete = !live_;
        return batch;
      }
      const auto& entries = index->second;
      // Streams are never erased: every entry's stream is there.
      auto it = entries.upper_bound(offset_);
      for (; it != entries.end() && it->first <= end_ && copied.size() < max;
           ++it) {
        // A deleted event keeps its index entry: skipped, and passed.
        offset_ = it->first;
        const InMemoryStore::TagEntry& entry = it->second;
        const auto& events = store_->streams.at(entry.persistence_id).events;
        auto event = events.find(entry.sequence_nr);
        if (event == events.end()) continue;
        copied.push_back({it->first, entry.persistence_id, event->second});
      }
      batch.complete = !live_ && (it == entries.end() || it->first > end_);
    }
    batch.elements.reserve(copied.size());
    for (const Copied& c : copied) {
      absl::StatusOr<EventEnvelope> envelope =
          Envelope(*registry_, c.persistence_id, c.offset, c.event);
      if (!envelope.ok()) return envelope.status();
      batch.elements.push_back(*std::move(envelope));
    }
    return batch;
  }

 private:
  const std::shared_ptr<InMemoryStore> store_;
  const std::shared_ptr<const SerializationRegistry> registry_;
  const std::string tag_;
  const bool live_;
  bool started_ = false;
  int64_t offset_;   // the last one delivered or skipped
  int64_t end_ = 0;  // the store's last tag offset at the first (live: this)
                     // Pull
};

}  // namespace

InMemoryReadJournal::InMemoryReadJournal(
    std::shared_ptr<InMemoryStore> store,
    std::shared_ptr<const SerializationRegistry> registry)
    : store_(std::move(store)),
      registry_(std::move(registry)),
      hub_(std::make_shared<LiveHub>(store_)),
      runner_(1, "cairn-inmem-qry") {
  base::MutexLock lock(&hub_->mu);
  hub_->runner = &runner_;
}

InMemoryReadJournal::~InMemoryReadJournal() {
  // Before runner_ drains: the waiting Pulls' Cancelled callbacks are
  // posted to it, and no waiter posts to it any more.
  std::vector<CommitNotifier::Waiter> dropped;  // destroyed unlocked
  base::MutexLock lock(&hub_->mu);
  hub_->closing = true;
  for (auto& [parking, state] : hub_->waiting) {
    absl::AnyInvocable<void()&&> cancelled =
        parking->TakeCancelled(store_->notifier, dropped);
    if (cancelled != nullptr) runner_.Post(std::move(cancelled));
  }
  hub_->waiting.clear();
  hub_->runner = nullptr;
}

std::unique_ptr<QueryStream<std::string>>
InMemoryReadJournal::CurrentPersistenceIds() {
  return std::make_unique<RunnerStream<std::string>>(
      runner_, hub_, std::make_unique<IdsQuery>(store_, /*live=*/false));
}

std::unique_ptr<QueryStream<std::string>>
InMemoryReadJournal::PersistenceIds() {
  return std::make_unique<RunnerStream<std::string>>(
      runner_, hub_, std::make_unique<IdsQuery>(store_, /*live=*/true));
}

std::unique_ptr<QueryStream<EventEnvelope>>
InMemoryReadJournal::CurrentEventsByPersistenceId(std::string persistence_id,
                                                  int64_t from_sequence_nr,
                                                  int64_t to_sequence_nr) {
  return std::make_unique<RunnerStream<EventEnvelope>>(
      runner_, hub_,
      std::make_unique<ByPersistenceId>(store_, registry_,
                                        std::move(persistence_id),
                                        from_sequence_nr, to_sequence_nr,
                                        /*live=*/false));
}

std::unique_ptr<QueryStream<EventEnvelope>>
InMemoryReadJournal::EventsByPersistenceId(std::string persistence_id,
                                           int64_t from_sequence_nr,
                                           int64_t to_sequence_nr) {
  return std::make_unique<RunnerStream<EventEnvelope>>(
      runner_, hub_,
      std::make_unique<ByPersistenceId>(
          store_, registry_, std::move(persistence_id), from_sequence_nr,
          to_sequence_nr, /*live=*/true));
}

std::unique_ptr<QueryStream<EventEnvelope>>
InMemoryReadJournal::CurrentEventsByTag(std::string tag, int64_t offset) {
  return std::make_unique<RunnerStream<EventEnvelope>>(
      runner_, hub_,
      std::make_unique<ByTag>(store_, registry_, std::move(tag), offset,
                              /*live=*/false));
}

std::unique_ptr<QueryStream<EventEnvelope>> InMemoryReadJournal::EventsByTag(
    std::string tag, int64_t offset) {
  return std::make_unique<RunnerStream<EventEnvelope>>(
      runner_, hub_,
      std::make_unique<ByTag>(store_, registry_, std::move(tag), offset,
                              /*live=*/true));
}

}  // namespace cairn::persistence::internal
