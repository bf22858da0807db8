#include "persistence/rocksdb/internal/rocksdb_read_journal.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "base/string_view.h"
#include "persistence/rocksdb/internal/query_reads.h"
#include "persistence/rocksdb/internal/stream_reads.h"

namespace cairn::persistence::rocksdb_internal {

using plugin_support::QueryCursor;
using plugin_support::QueryMode;

namespace {

// A query's position on one database: each Next is one bounded Read, on
// the read journal's thread.
template <typename T>
class Cursor : public QueryCursor<T> {
 public:
  using typename QueryCursor<T>::Batch;

  explicit Cursor(std::shared_ptr<Db> db) : db_(std::move(db)) {}

  absl::StatusOr<Batch> Next(std::size_t max) final {
    Batch batch;
    absl::Status status = Read(*db_, max, batch.elements, batch.complete);
    if (!status.ok()) return status;
    return batch;
  }

 protected:
  // Up to `max` next elements, and whether the query has delivered all.
  virtual absl::Status Read(Db& db, std::size_t max, std::vector<T>& out,
                            bool& complete) = 0;

 private:
  const std::shared_ptr<Db> db_;
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
  using Cursor::Cursor;

 private:
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
  using Cursor::Cursor;

 private:
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

  std::optional<bool> has_log_;  // decided by the first Read
  int64_t after_ = 0;            // the id offset of the last id delivered
  std::string last_listed_;      // without a log: the last id delivered
};

class EventsByIdCursor final : public Cursor<EventEnvelope> {
 public:
  EventsByIdCursor(
      std::shared_ptr<Db> db,
      std::shared_ptr<const serialization::SerializationRegistry> registry,
      std::string persistence_id, int64_t from, int64_t to, bool live)
      : Cursor(std::move(db)),
        registry_(std::move(registry)),
        persistence_id_(std::move(persistence_id)),
        next_(std::max<int64_t>(from, 1)),
        to_(to),
        live_(live) {}

 private:
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

  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  const std::string persistence_id_;
  int64_t next_;
  const int64_t to_;
  const bool live_;
  std::optional<int64_t> upto_;  // set by the first Read (each, if live)
};

class EventsByTagCursor final : public Cursor<EventEnvelope> {
 public:
  EventsByTagCursor(
      std::shared_ptr<Db> db,
      std::shared_ptr<const serialization::SerializationRegistry> registry,
      std::string tag, int64_t after, bool live)
      : Cursor(std::move(db)),
        registry_(std::move(registry)),
        tag_(std::move(tag)),
        after_(std::max<int64_t>(after, 0)),
        live_(live) {}

 private:
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

  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  const std::string tag_;
  int64_t after_;  // the last offset looked at
  const bool live_;
  std::optional<int64_t> upto_;  // set by the first Read (each, if live)
};

}  // namespace

RocksDbReadJournal::RocksDbReadJournal(
    std::shared_ptr<Db> db,
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : db_(std::move(db)),
      registry_(std::move(registry)),
      // The notifier lives in the Db, which the hub keeps alive.
      hub_({.threads = 1, .thread_name = "cairn-query"},
           std::shared_ptr<plugin_support::CommitNotifier>(db_,
                                                           &db_->commits())) {}

RocksDbReadJournal::~RocksDbReadJournal() = default;

std::unique_ptr<QueryStream<std::string>>
RocksDbReadJournal::CurrentPersistenceIds() {
  return hub_.NewStream<std::string>(
      std::make_unique<PersistenceIdsCursor>(db_), QueryMode::kCurrent);
}

std::unique_ptr<QueryStream<std::string>> RocksDbReadJournal::PersistenceIds() {
  return hub_.NewStream<std::string>(
      std::make_unique<LivePersistenceIdsCursor>(db_), QueryMode::kLive);
}

std::unique_ptr<QueryStream<EventEnvelope>>
RocksDbReadJournal::CurrentEventsByPersistenceId(std::string persistence_id,
                                                 int64_t from_sequence_nr,
                                                 int64_t to_sequence_nr) {
  return hub_.NewStream<EventEnvelope>(
      std::make_unique<EventsByIdCursor>(db_, registry_,
                                         std::move(persistence_id),
                                         from_sequence_nr, to_sequence_nr,
                                         /*live=*/false),
      QueryMode::kCurrent);
}

std::unique_ptr<QueryStream<EventEnvelope>>
RocksDbReadJournal::CurrentEventsByTag(std::string tag, int64_t offset) {
  return hub_.NewStream<EventEnvelope>(
      std::make_unique<EventsByTagCursor>(db_, registry_, std::move(tag),
                                          offset, /*live=*/false),
      QueryMode::kCurrent);
}

std::unique_ptr<QueryStream<EventEnvelope>>
RocksDbReadJournal::EventsByPersistenceId(std::string persistence_id,
                                          int64_t from_sequence_nr,
                                          int64_t to_sequence_nr) {
  return hub_.NewStream<EventEnvelope>(
      std::make_unique<EventsByIdCursor>(db_, registry_,
                                         std::move(persistence_id),
                                         from_sequence_nr, to_sequence_nr,
                                         /*live=*/true),
      QueryMode::kLive);
}

std::unique_ptr<QueryStream<EventEnvelope>> RocksDbReadJournal::EventsByTag(
    std::string tag, int64_t offset) {
  return hub_.NewStream<EventEnvelope>(
      std::make_unique<EventsByTagCursor>(db_, registry_, std::move(tag),
                                          offset, /*live=*/true),
      QueryMode::kLive);
}

}  // namespace cairn::persistence::rocksdb_internal
