#include "persistence/inmem/internal/in_memory_read_journal.h"

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cairn::persistence::internal {
namespace {

using StoredEvent = InMemoryStore::StoredEvent;

// Where a query is between Pulls. Touched by the read journal's thread
// only, so it needs no lock of its own.
template <typename T>
class Query {
 public:
  virtual ~Query() = default;
  // The next batch: at most `max` (> 0) elements, at least one unless
  // complete.
  virtual absl::StatusOr<typename QueryStream<T>::Batch> Next(
      std::size_t max) = 0;
};

// A query's state shared by its stream and the Pulls in flight, so that a
// stream destroyed with a Pull in flight still gets its callback run.
template <typename T>
struct PullState {
  explicit PullState(std::unique_ptr<Query<T>> q) : query(std::move(q)) {}

  std::unique_ptr<Query<T>> query;
  absl::Status failed;  // the error that ended the query, if one did
  bool complete = false;
};

template <typename T>
class RunnerStream final : public QueryStream<T> {
 public:
  using typename QueryStream<T>::Batch;
  using typename QueryStream<T>::PullCallback;

  RunnerStream(TaskRunner& runner, std::unique_ptr<Query<T>> query)
      : runner_(runner),
        state_(std::make_shared<PullState<T>>(std::move(query))) {}

  void Pull(std::size_t max, PullCallback done) override {
    runner_.Post([state = state_, max, done = std::move(done)]() mutable {
      std::move(done)(Next(*state, max));
    });
  }

 private:
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

  TaskRunner& runner_;
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

class PersistenceIds final : public Query<std::string> {
 public:
  explicit PersistenceIds(std::shared_ptr<InMemoryStore> store)
      : store_(std::move(store)) {}

  absl::StatusOr<QueryStream<std::string>::Batch> Next(
      std::size_t max) override {
    QueryStream<std::string>::Batch batch;
    std::lock_guard<std::mutex> lock(store_->mu);
    // Ids are only ever appended: the first `end_` are those that were
    // there at the first Pull.
    if (!started_) {
      started_ = true;
      end_ = store_->persistence_ids.size();
    }
    std::size_t stop = next_ + std::min(max, end_ - next_);
    batch.elements.assign(store_->persistence_ids.begin() + next_,
                          store_->persistence_ids.begin() + stop);
    next_ = stop;
    batch.complete = next_ == end_;
    return batch;
  }

 private:
  const std::shared_ptr<InMemoryStore> store_;
  bool started_ = false;
  std::size_t end_ = 0;
  std::size_t next_ = 0;
};

class EventsByPersistenceId final : public Query<EventEnvelope> {
 public:
  EventsByPersistenceId(std::shared_ptr<InMemoryStore> store,
                        std::shared_ptr<const SerializationRegistry> registry,
                        std::string persistence_id, int64_t from, int64_t to)
      : store_(std::move(store)),
        registry_(std::move(registry)),
        persistence_id_(std::move(persistence_id)),
        next_(from),
        to_(to) {}

  absl::StatusOr<QueryStream<EventEnvelope>::Batch> Next(
      std::size_t max) override {
    std::vector<StoredEvent> copied;
    QueryStream<EventEnvelope>::Batch batch;
    {
      std::lock_guard<std::mutex> lock(store_->mu);
      auto stream = store_->streams.find(persistence_id_);
      const bool exists = stream != store_->streams.end();
      if (!started_) {
        started_ = true;
        to_ = std::min(to_, exists ? stream->second.highest : 0);
      }
      if (!exists) {
        batch.complete = true;
        return batch;
      }
      const auto& events = stream->second.events;
      auto it = events.lower_bound(next_);
      for (; it != events.end() && it->first <= to_ && copied.size() < max;
           ++it) {
        copied.push_back(it->second);
      }
      batch.complete = it == events.end() || it->first > to_;
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
  bool started_ = false;
  int64_t next_;
  int64_t to_;  // capped at the stream's highest at the first Pull
};

class EventsByTag final : public Query<EventEnvelope> {
 public:
  EventsByTag(std::shared_ptr<InMemoryStore> store,
              std::shared_ptr<const SerializationRegistry> registry,
              std::string tag, int64_t offset)
      : store_(std::move(store)),
        registry_(std::move(registry)),
        tag_(std::move(tag)),
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
      std::lock_guard<std::mutex> lock(store_->mu);
      if (!started_) {
        started_ = true;
        end_ = store_->last_tag_offset;
      }
      auto index = store_->tags.find(tag_);
      if (index == store_->tags.end()) {
        batch.complete = true;
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
      batch.complete = it == entries.end() || it->first > end_;
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
  bool started_ = false;
  int64_t offset_;   // the last one delivered or skipped
  int64_t end_ = 0;  // the store's last tag offset at the first Pull
};

}  // namespace

InMemoryReadJournal::InMemoryReadJournal(
    std::shared_ptr<InMemoryStore> store,
    std::shared_ptr<const SerializationRegistry> registry)
    : store_(std::move(store)),
      registry_(std::move(registry)),
      runner_(1, "cairn-inmem-qry") {}

InMemoryReadJournal::~InMemoryReadJournal() = default;

std::unique_ptr<QueryStream<std::string>>
InMemoryReadJournal::CurrentPersistenceIds() {
  return std::make_unique<RunnerStream<std::string>>(
      runner_, std::make_unique<PersistenceIds>(store_));
}

std::unique_ptr<QueryStream<EventEnvelope>>
InMemoryReadJournal::CurrentEventsByPersistenceId(std::string persistence_id,
                                                  int64_t from_sequence_nr,
                                                  int64_t to_sequence_nr) {
  return std::make_unique<RunnerStream<EventEnvelope>>(
      runner_, std::make_unique<EventsByPersistenceId>(
                   store_, registry_, std::move(persistence_id),
                   from_sequence_nr, to_sequence_nr));
}

std::unique_ptr<QueryStream<EventEnvelope>>
InMemoryReadJournal::CurrentEventsByTag(std::string tag, int64_t offset) {
  return std::make_unique<RunnerStream<EventEnvelope>>(
      runner_,
      std::make_unique<EventsByTag>(store_, registry_, std::move(tag), offset));
}

}  // namespace cairn::persistence::internal
