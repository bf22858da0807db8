#include "persistence/postgresql/internal/postgres_read_journal.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/postgres_commit_listener.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::postgres_internal {

using plugin_support::CommitNotifier;
using plugin_support::QueryCursor;
using plugin_support::QueryMode;
using plugin_support::RecordError;

namespace {

constexpr int64_t kNoBound = std::numeric_limits<int64_t>::max();

// The statements every connection of the read journal prepares.
constexpr char kIdsBound[] = "ids_bound";
constexpr char kIds[] = "ids";
constexpr char kById[] = "by_id";
constexpr char kTagBound[] = "tag_bound";
constexpr char kByTag[] = "by_tag";

constexpr PgStatement kStatements[] = {
    {kIdsBound, "SELECT coalesce(max(created), 0) FROM journal_stream"},
    {kIds,
     "SELECT created, persistence_id FROM journal_stream WHERE created > $1 "
     "AND created <= $2 ORDER BY created LIMIT $3"},
    // The stream's highest sequence number and the page of its events up
    // to it, from one snapshot: no row if the stream does not exist, one
    // row with null event columns if it has no event in the range.
    {kById,
     "SELECT s.highest_sequence_number, e.sequence_number, "
     "e.write_timestamp, e.adapter_manifest, e.serializer_id, "
     "e.serializer_manifest, e.payload, e.tags FROM journal_stream s "
     "LEFT JOIN LATERAL (SELECT sequence_number, write_timestamp, "
     "adapter_manifest, serializer_id, serializer_manifest, payload, tags "
     "FROM event_journal WHERE persistence_id = s.persistence_id AND "
     "sequence_number >= $2 AND sequence_number <= "
     "least($3, s.highest_sequence_number) ORDER BY sequence_number "
     "LIMIT $4) e ON true WHERE s.persistence_id = $1"},
    {kTagBound, "SELECT coalesce(max(ordering), 0) FROM event_journal"},
    // A deleted event's index rows are deleted with it: the join skips
    // nothing stored.
    {kByTag,
     "SELECT e.ordering, e.persistence_id, e.sequence_number, "
     "e.write_timestamp, e.adapter_manifest, e.serializer_id, "
     "e.serializer_manifest, e.payload, e.tags FROM event_tag t JOIN "
     "event_journal e ON e.ordering = t.ordering WHERE t.tag = $1 AND "
     "t.ordering > $2 AND t.ordering <= $3 ORDER BY t.ordering LIMIT $4"},
};

// The columns of an event, from `first` on: sequence number, timestamp,
// adapter manifest, serializer id, serializer manifest, payload, tags.
absl::StatusOr<EventEnvelope> DecodeEvent(
    const serialization::SerializationRegistry& registry, const PgResult& page,
    int row, int first, std::string persistence_id,
    bool offset_is_sequence_nr) {
  EventEnvelope envelope;
  envelope.persistence_id = std::move(persistence_id);
  envelope.sequence_nr = page.Int64(row, first);
  envelope.timestamp = page.Int64(row, first + 1);
  envelope.adapter_manifest = std::string(page.Bytes(row, first + 2));
  absl::StatusOr<serialization::Payload> payload = registry.Deserialize(
      page.Int32(row, first + 3), std::string(page.Bytes(row, first + 4)),
      page.Bytes(row, first + 5));
  if (!payload.ok()) {
    return RecordError(envelope.persistence_id, envelope.sequence_nr,
                       payload.status());
  }
  envelope.event = *std::move(payload);
  absl::StatusOr<std::vector<std::string>> tags =
      page.TextArray(row, first + 6);
  if (!tags.ok()) {
    return RecordError(envelope.persistence_id, envelope.sequence_nr,
                       tags.status());
  }
  envelope.tags = *std::move(tags);
  if (offset_is_sequence_nr) envelope.offset = envelope.sequence_nr;
  return envelope;
}

// The listener's options: the read journal's connection and backoff.
PgListenerOptions ListenerOptions(const PgReadJournalSettings& settings) {
  PgListenerOptions options;
  options.settings = settings.connection;
  // An operator tells the listener's connection from the pool's (and
  // from the members' listener, "... listener").
  options.settings.application_name += " query listener";
  options.channel = PgEventsChannel(settings.connection.schema);
  options.backoff = settings.backoff;
  options.connect = settings.listen_connect;
  return options;
}

}  // namespace

struct PgQueryReader {
  PgQueryReader(PgReadJournalSettings s,
                std::shared_ptr<const serialization::SerializationRegistry> r,
                std::shared_ptr<CommitNotifier> commits)
      : settings(std::move(s)),
        registry(std::move(r)),
        pool(
            settings.connection,
            [](PgConnection& c) { return PrepareAll(c, kStatements); },
            settings.backoff) {
    if (settings.live_notify) {
      listener.emplace(ListenerOptions(settings), std::move(commits));
    }
  }

  // Before a live query reads: from then on, every process's commit wakes
  // it if it waits (or it reads the commit).
  void Listen() {
    if (listener.has_value()) listener->Ensure();
  }

  // Runs prepared `statement` on a connection of the pool, once more on a
  // new connection if its connection was lost (it delivered nothing yet:
  // the rows are decoded after); an error says which query failed.
  absl::StatusOr<PgResult> Run(const char* statement, const PgParams& params,
                               std::string_view what) {
    std::optional<PgResult> result;
    absl::Status run = pool.Run(
        [&](PgConnection& connection) {
          absl::StatusOr<PgResult> rows =
              connection.ExecutePrepared(statement, params);
          if (!rows.ok()) return rows.status();
          result.emplace(*std::move(rows));
          return absl::OkStatus();
        },
        [] { return true; });
    if (!run.ok()) {
      return absl::Status(run.code(), base::StrCat(what, ": ", run.message()));
    }
    return *std::move(result);
  }

  int64_t Limit(std::size_t max) const {
    return static_cast<int64_t>(std::min<std::size_t>(
        max, static_cast<std::size_t>(std::max(settings.page_rows, 1))));
  }

  const PgReadJournalSettings settings;
  const std::shared_ptr<const serialization::SerializationRegistry> registry;
  PgConnectionPool pool;
  // With live_notify; stopped by the read journal's destructor (a stream
  // may keep this reader alive after it).
  std::optional<PgCommitListener> listener;
};

namespace {

using Reader = std::shared_ptr<PgQueryReader>;

// Ids in the order they got their first highest sequence number (the
// stream row's `created`); current: up to the highest `created` at the
// first Pull.
class IdsQuery final : public QueryCursor<std::string> {
 public:
  IdsQuery(Reader reader, bool live)
      : reader_(std::move(reader)), live_(live) {}

  absl::StatusOr<QueryStream<std::string>::Batch> Next(
      std::size_t max) override {
    QueryStream<std::string>::Batch batch;
    if (live_) reader_->Listen();
    if (!started_) {
      started_ = true;
      if (!live_) {
        absl::StatusOr<PgResult> bound =
            reader_->Run(kIdsBound, PgParams(), "listing persistence ids");
        if (!bound.ok()) return bound.status();
        bound_ = bound->Int64(0, 0);
      }
    }
    const int64_t limit = reader_->Limit(max);
    absl::StatusOr<PgResult> page =
        reader_->Run(kIds, PgParams().Int64(after_).Int64(bound_).Int64(limit),
                     "listing persistence ids");
    if (!page.ok()) return page.status();
    for (int row = 0; row < page->rows(); ++row) {
      after_ = page->Int64(row, 0);
      batch.elements.emplace_back(page->Bytes(row, 1));
    }
    batch.complete = !live_ && (page->rows() < limit || after_ >= bound_);
    return batch;
  }

 private:
  const Reader reader_;
  const bool live_;
  bool started_ = false;
  int64_t after_ = 0;         // the last `created` delivered
  int64_t bound_ = kNoBound;  // current: the highest at the first Pull
};

// Live: completes once the stream's highest reached `to` and every event
// up to it was delivered (an event deleted or a write rejected at `to`
// does not leave it waiting forever).
class ByPersistenceId final : public QueryCursor<EventEnvelope> {
 public:
  ByPersistenceId(Reader reader, std::string persistence_id, int64_t from,
                  int64_t to, bool live)
      : reader_(std::move(reader)),
        persistence_id_(std::move(persistence_id)),
        live_(live),
        next_(std::max<int64_t>(from, 1)),
        to_(to) {}

  absl::StatusOr<QueryStream<EventEnvelope>::Batch> Next(
      std::size_t max) override {
    QueryStream<EventEnvelope>::Batch batch;
    if (next_ > to_) {
      batch.complete = true;
      return batch;
    }
    if (live_) reader_->Listen();
    const int64_t limit = reader_->Limit(max);
    absl::StatusOr<PgResult> page = reader_->Run(
        kById,
        PgParams().Text(persistence_id_).Int64(next_).Int64(to_).Int64(limit),
        base::StrCat("reading the events of persistence id '", persistence_id_,
                     "'"));
    if (!page.ok()) return page.status();
    const int64_t highest = page->rows() == 0 ? 0 : page->Int64(0, 0);
    if (!started_ && !live_) {
      started_ = true;
      to_ = std::min(to_, highest);
    }
    int events = 0;
    for (int row = 0; row < page->rows(); ++row) {
      if (page->IsNull(row, 1)) continue;
      absl::StatusOr<EventEnvelope> envelope =
          DecodeEvent(*reader_->registry, *page, row, 1, persistence_id_,
                      /*offset_is_sequence_nr=*/true);
      if (!envelope.ok()) return envelope.status();
      next_ = envelope->sequence_nr + 1;
      batch.elements.push_back(*std::move(envelope));
      ++events;
    }
    // A short page read everything up to the cap, deleted events included.
    if (events < limit) next_ = std::max(next_, std::min(to_, highest) + 1);
    batch.complete = next_ > to_;
    return batch;
  }

 private:
  const Reader reader_;
  const std::string persistence_id_;
  const bool live_;
  bool started_ = false;
  int64_t next_;  // at least 1: a range below 1 is empty, and done
  int64_t to_;    // current: capped at the stream's highest at the first Pull
};

// By `ordering`; current: up to the highest at the first Pull. Live: never
// completes.
class ByTag final : public QueryCursor<EventEnvelope> {
 public:
  ByTag(Reader reader, std::string tag, int64_t offset, bool live)
      : reader_(std::move(reader)),
        tag_(std::move(tag)),
        live_(live),
        offset_(offset) {}

  absl::StatusOr<QueryStream<EventEnvelope>::Batch> Next(
      std::size_t max) override {
    QueryStream<EventEnvelope>::Batch batch;
    if (live_) reader_->Listen();
    if (!started_) {
      started_ = true;
      if (!live_) {
        absl::StatusOr<PgResult> bound =
            reader_->Run(kTagBound, PgParams(), What());
        if (!bound.ok()) return bound.status();
        bound_ = bound->Int64(0, 0);
      }
    }
    const int64_t limit = reader_->Limit(max);
    absl::StatusOr<PgResult> page = reader_->Run(
        kByTag, PgParams().Text(tag_).Int64(offset_).Int64(bound_).Int64(limit),
        What());
    if (!page.ok()) return page.status();
    for (int row = 0; row < page->rows(); ++row) {
      absl::StatusOr<EventEnvelope> envelope = DecodeEvent(
          *reader_->registry, *page, row, 2, std::string(page->Bytes(row, 1)),
          /*offset_is_sequence_nr=*/false);
      if (!envelope.ok()) return envelope.status();
      offset_ = page->Int64(row, 0);
      envelope->offset = offset_;
      batch.elements.push_back(*std::move(envelope));
    }
    batch.complete = !live_ && (page->rows() < limit || offset_ >= bound_);
    return batch;
  }

 private:
  std::string What() const {
    return base::StrCat("reading the events tagged '", tag_, "'");
  }

  const Reader reader_;
  const std::string tag_;
  const bool live_;
  bool started_ = false;
  int64_t offset_;            // the last one delivered
  int64_t bound_ = kNoBound;  // current: the highest at the first Pull
};

}  // namespace

PostgresReadJournal::PostgresReadJournal(
    PgReadJournalSettings settings,
    std::shared_ptr<const serialization::SerializationRegistry> registry,
    std::shared_ptr<CommitNotifier> commits)
    : commits_(commits != nullptr ? std::move(commits)
                                  : std::make_shared<CommitNotifier>()),
      reader_(std::make_shared<PgQueryReader>(std::move(settings),
                                              std::move(registry), commits_)),
      hub_({.threads = std::max(reader_->settings.threads, 1),
            .thread_name = "cairn-pg-query",
            .refresh_interval = reader_->settings.refresh_interval},
           commits_) {}

PostgresReadJournal::~PostgresReadJournal() {
  // First: the hub's destructor then runs the Pulls in flight, whose
  // Listen does nothing any more.
  if (reader_->listener.has_value()) reader_->listener->Stop();
}

template <typename T, typename Q, typename... Args>
std::unique_ptr<QueryStream<T>> PostgresReadJournal::Make(QueryMode mode,
                                                          Args&&... args) {
  return hub_.NewStream<T>(
      std::make_unique<Q>(reader_, std::forward<Args>(args)...,
                          /*live=*/mode == QueryMode::kLive),
      mode);
}

std::unique_ptr<QueryStream<std::string>>
PostgresReadJournal::CurrentPersistenceIds() {
  return Make<std::string, IdsQuery>(QueryMode::kCurrent);
}

std::unique_ptr<QueryStream<std::string>>
PostgresReadJournal::PersistenceIds() {
  return Make<std::string, IdsQuery>(QueryMode::kLive);
}

std::unique_ptr<QueryStream<EventEnvelope>>
PostgresReadJournal::CurrentEventsByPersistenceId(std::string persistence_id,
                                                  int64_t from_sequence_nr,
                                                  int64_t to_sequence_nr) {
  return Make<EventEnvelope, ByPersistenceId>(QueryMode::kCurrent,
                                              std::move(persistence_id),
                                              from_sequence_nr, to_sequence_nr);
}

std::unique_ptr<QueryStream<EventEnvelope>>
PostgresReadJournal::EventsByPersistenceId(std::string persistence_id,
                                           int64_t from_sequence_nr,
                                           int64_t to_sequence_nr) {
  return Make<EventEnvelope, ByPersistenceId>(QueryMode::kLive,
                                              std::move(persistence_id),
                                              from_sequence_nr, to_sequence_nr);
}

std::unique_ptr<QueryStream<EventEnvelope>>
PostgresReadJournal::CurrentEventsByTag(std::string tag, int64_t offset) {
  return Make<EventEnvelope, ByTag>(QueryMode::kCurrent, std::move(tag),
                                    offset);
}

std::unique_ptr<QueryStream<EventEnvelope>> PostgresReadJournal::EventsByTag(
    std::string tag, int64_t offset) {
  return Make<EventEnvelope, ByTag>(QueryMode::kLive, std::move(tag), offset);
}

}  // namespace cairn::persistence::postgres_internal
