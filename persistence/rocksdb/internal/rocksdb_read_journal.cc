#include "persistence/rocksdb/internal/rocksdb_read_journal.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "base/status_copy.h"
#include "persistence/rocksdb/internal/query_reads.h"
#include "persistence/rocksdb/internal/stream_reads.h"

namespace cairn::persistence::internal {
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
// runner. The cursor is shared with the task, so a stream destroyed with a
// Pull in flight still completes it.
template <typename T>
class CursorStream final : public QueryStream<T> {
 public:
  using typename QueryStream<T>::Batch;
  using typename QueryStream<T>::PullCallback;

  CursorStream(std::shared_ptr<Db> db, TaskRunner& runner,
               std::unique_ptr<Cursor<T>> cursor)
      : db_(std::move(db)), runner_(runner), state_(std::make_shared<State>()) {
    state_->cursor = std::move(cursor);
  }

  void Pull(std::size_t max, PullCallback done) override {
    runner_.Post([db = db_, state = state_, max,
                  done = std::move(done)]() mutable {
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
      Batch batch;
      absl::Status status =
          state->cursor->Read(*db, max, batch.elements, batch.complete);
      if (!status.ok()) {
        state->failed = base::OwnCopy(status);
        std::move(done)(base::OwnCopy(status));
        return;
      }
      state->complete = batch.complete;
      std::move(done)(std::move(batch));
    });
  }

 private:
  // Shared with the Pull in flight, which may outlive the stream.
  struct State {
    std::unique_ptr<Cursor<T>> cursor;
    bool complete = false;
    absl::Status failed;
  };

  const std::shared_ptr<Db> db_;
  TaskRunner& runner_;
  const std::shared_ptr<State> state_;
};

class PersistenceIdsCursor final : public Cursor<std::string> {
 public:
  absl::Status Read(Db& db, std::size_t max, std::vector<std::string>& out,
                    bool& complete) override {
    absl::Status status = db.Read([&](const Db::View& view) {
      return ReadPersistenceIds(view, last_, max, out);
    });
    if (!out.empty()) last_ = out.back();
    complete = status.ok() && out.size() < max;
    return status;
  }

 private:
  std::string last_;  // the last id delivered; empty before the first
};

class EventsByIdCursor final : public Cursor<EventEnvelope> {
 public:
  EventsByIdCursor(std::shared_ptr<const SerializationRegistry> registry,
                   std::string persistence_id, int64_t from, int64_t to)
      : registry_(std::move(registry)),
        persistence_id_(std::move(persistence_id)),
        next_(std::max<int64_t>(from, 1)),
        to_(to) {}

  absl::Status Read(Db& db, std::size_t max, std::vector<EventEnvelope>& out,
                    bool& complete) override {
    std::vector<PersistentRepr> events;
    absl::Status status = db.Read([&](const Db::View& view) {
      if (!upto_) {
        absl::StatusOr<int64_t> highest =
            ReadHighestSequenceNr(view, persistence_id_);
        if (!highest.ok()) return highest.status();
        upto_ = std::min(*highest, to_);
      }
      if (next_ > *upto_) return absl::OkStatus();
      return ReadEvents(view, *registry_, persistence_id_, next_, *upto_, max,
                        events);
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
    // Fewer than asked: the rest of the range holds no more events.
    complete = status.ok() && (out.size() < max || next_ > *upto_);
    return status;
  }

 private:
  const std::shared_ptr<const SerializationRegistry> registry_;
  const std::string persistence_id_;
  int64_t next_;
  const int64_t to_;
  std::optional<int64_t> upto_;  // set by the first Read
};

class EventsByTagCursor final : public Cursor<EventEnvelope> {
 public:
  EventsByTagCursor(std::shared_ptr<const SerializationRegistry> registry,
                    std::string tag, int64_t after)
      : registry_(std::move(registry)),
        tag_(std::move(tag)),
        after_(std::max<int64_t>(after, 0)) {}

  absl::Status Read(Db& db, std::size_t max, std::vector<EventEnvelope>& out,
                    bool& complete) override {
    absl::Status status = db.Read([&](const Db::View& view) {
      if (!upto_) {
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
    complete = status.ok() && after_ >= *upto_;
    return status;
  }

 private:
  const std::shared_ptr<const SerializationRegistry> registry_;
  const std::string tag_;
  int64_t after_;                // the last offset looked at
  std::optional<int64_t> upto_;  // set by the first Read
};

}  // namespace

RocksDbReadJournal::RocksDbReadJournal(
    std::shared_ptr<Db> db,
    std::shared_ptr<const SerializationRegistry> registry)
    : db_(std::move(db)),
      registry_(std::move(registry)),
      runner_(1, "cairn-query") {}

std::unique_ptr<QueryStream<std::string>>
RocksDbReadJournal::CurrentPersistenceIds() {
  return std::make_unique<CursorStream<std::string>>(
      db_, runner_, std::make_unique<PersistenceIdsCursor>());
}

std::unique_ptr<QueryStream<EventEnvelope>>
RocksDbReadJournal::CurrentEventsByPersistenceId(std::string persistence_id,
                                                 int64_t from_sequence_nr,
                                                 int64_t to_sequence_nr) {
  return std::make_unique<CursorStream<EventEnvelope>>(
      db_, runner_,
      std::make_unique<EventsByIdCursor>(registry_, std::move(persistence_id),
                                         from_sequence_nr, to_sequence_nr));
}

std::unique_ptr<QueryStream<EventEnvelope>>
RocksDbReadJournal::CurrentEventsByTag(std::string tag, int64_t offset) {
  return std::make_unique<CursorStream<EventEnvelope>>(
      db_, runner_,
      std::make_unique<EventsByTagCursor>(registry_, std::move(tag), offset));
}

}  // namespace cairn::persistence::internal
