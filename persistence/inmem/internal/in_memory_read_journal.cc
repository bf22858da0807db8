#include "persistence/inmem/internal/in_memory_read_journal.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cairn::persistence::inmem_internal {

using plugin_support::QueryCursor;
using plugin_support::QueryHub;
using plugin_support::QueryMode;

namespace {

using StoredEvent = InMemoryStore::StoredEvent;

// `stored` of `persistence_id` as a query delivers it at `offset`.
absl::StatusOr<EventEnvelope> Envelope(
    const serialization::SerializationRegistry& registry,
    const std::string& persistence_id, int64_t offset,
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
class IdsQuery final : public QueryCursor<std::string> {
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
class ByPersistenceId final : public QueryCursor<EventEnvelope> {
 public:
  ByPersistenceId(
      std::shared_ptr<InMemoryStore> store,
      std::shared_ptr<const serialization::SerializationRegistry> registry,
      std::string persistence_id, int64_t from, int64_t to, bool live)
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
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  const std::string persistence_id_;
  const bool live_;
  bool started_ = false;
  int64_t next_;  // at least 1: a range below 1 is empty, and done
  int64_t to_;    // current: capped at the stream's highest at the first Pull
};

// Live: reads up to the store's last tag offset at every Pull; never
// completes.
class ByTag final : public QueryCursor<EventEnvelope> {
 public:
  ByTag(std::shared_ptr<InMemoryStore> store,
        std::shared_ptr<const serialization::SerializationRegistry> registry,
        std::string tag, int64_t offset, bool live)
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
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
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
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : store_(std::move(store)),
      registry_(std::move(registry)),
      // The notifier lives in the store, which the hub keeps alive.
      hub_({.threads = 1, .thread_name = "cairn-inmem-qry"},
           std::shared_ptr<plugin_support::CommitNotifier>(
               store_, &store_->notifier)) {}

InMemoryReadJournal::~InMemoryReadJournal() = default;

std::unique_ptr<QueryStream<std::string>>
InMemoryReadJournal::CurrentPersistenceIds() {
  return hub_.NewStream<std::string>(
      std::make_unique<IdsQuery>(store_, /*live=*/false), QueryMode::kCurrent);
}

std::unique_ptr<QueryStream<std::string>>
InMemoryReadJournal::PersistenceIds() {
  return hub_.NewStream<std::string>(
      std::make_unique<IdsQuery>(store_, /*live=*/true), QueryMode::kLive);
}

std::unique_ptr<QueryStream<EventEnvelope>>
InMemoryReadJournal::CurrentEventsByPersistenceId(std::string persistence_id,
                                                  int64_t from_sequence_nr,
                                                  int64_t to_sequence_nr) {
  return hub_.NewStream<EventEnvelope>(
      std::make_unique<ByPersistenceId>(store_, registry_,
                                        std::move(persistence_id),
                                        from_sequence_nr, to_sequence_nr,
                                        /*live=*/false),
      QueryMode::kCurrent);
}

std::unique_ptr<QueryStream<EventEnvelope>>
InMemoryReadJournal::EventsByPersistenceId(std::string persistence_id,
                                           int64_t from_sequence_nr,
                                           int64_t to_sequence_nr) {
  return hub_.NewStream<EventEnvelope>(
      std::make_unique<ByPersistenceId>(
          store_, registry_, std::move(persistence_id), from_sequence_nr,
          to_sequence_nr, /*live=*/true),
      QueryMode::kLive);
}

std::unique_ptr<QueryStream<EventEnvelope>>
InMemoryReadJournal::CurrentEventsByTag(std::string tag, int64_t offset) {
  return hub_.NewStream<EventEnvelope>(
      std::make_unique<ByTag>(store_, registry_, std::move(tag), offset,
                              /*live=*/false),
      QueryMode::kCurrent);
}

std::unique_ptr<QueryStream<EventEnvelope>> InMemoryReadJournal::EventsByTag(
    std::string tag, int64_t offset) {
  return hub_.NewStream<EventEnvelope>(
      std::make_unique<ByTag>(store_, registry_, std::move(tag), offset,
                              /*live=*/true),
      QueryMode::kLive);
}

}  // namespace cairn::persistence::inmem_internal
