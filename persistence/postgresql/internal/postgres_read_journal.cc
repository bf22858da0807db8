#include "persistence/postgresql/internal/postgres_read_journal.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::internal {

using plugin_support::CommitNotifier;
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
absl::StatusOr<EventEnvelope> DecodeEvent(const SerializationRegistry& registry,
                                          const PgResult& page, int row,
                                          int first, std::string persistence_id,
                                          bool offset_is_sequence_nr) {
  EventEnvelope envelope;
  envelope.persistence_id = std::move(persistence_id);
  envelope.sequence_nr = page.Int64(row, first);
  envelope.timestamp = page.Int64(row, first + 1);
  envelope.adapter_manifest = std::string(page.Bytes(row, first + 2));
  absl::StatusOr<Payload> payload = registry.Deserialize(
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

// Where a query is between Pulls. One Pull at a time touches it (the next
// is posted after the previous one's callback), so it needs no lock.
template <typename T>
class Query {
 public:
  virtual ~Query() = default;
  // The next batch: at most `max` (> 0) elements. Empty and not complete:
  // a live query found nothing new (a current one never does that).
  virtual absl::StatusOr<typename QueryStream<T>::Batch> Next(
      std::size_t max) = 0;
};

}  // namespace

// A stream's state whose Pull may wait, as the read journal's PgLiveHub
// sees it. The fields are guarded by the hub's mu.
class PgParking {
 public:
  virtual ~PgParking() = default;
  // With the hub's lock held: takes the waiting Pull, if there is one,
  // cancels its notifier waiter (moved to `dropped`, to be destroyed after
  // the lock is released) and returns the task that completes it with
  // Cancelled; an empty task if no Pull waits.
  virtual absl::AnyInvocable<void() &&> TakeCancelled(
      CommitNotifier& notifier,
      std::vector<CommitNotifier::Waiter>& dropped) = 0;
  // The task that reads again for wait `id`, if that Pull still waits.
  virtual absl::AnyInvocable<void() &&> RetryTask(uint64_t id) = 0;

  // When the refresh timer retries the waiting Pull (InfiniteFuture: it
  // does not, or it posted the retry already), and which wait that is.
  absl::Time deadline = absl::InfiniteFuture();
  uint64_t wait_id = 0;
};

// The live Pulls of one read journal that wait, the runner their retries
// go to, and the refresh timer's wake-up. A waiting Pull's callback is held
// by its stream's state under `mu`: whoever takes it there (a retry, the
// stream's destructor or the read journal's) runs it, so it runs exactly
// once.
struct PgLiveHub {
  PgLiveHub(std::shared_ptr<CommitNotifier> c, absl::Duration refresh)
      : commits(std::move(c)), refresh_interval(refresh) {}

  const std::shared_ptr<CommitNotifier> commits;
  const absl::Duration refresh_interval;
  base::Mutex mu;
  base::CondVar timer_wake;  // a new deadline, or closing
  // The read journal's runner; null once its destructor cancelled the
  // waiting Pulls (a waiter that fires later has nothing to retry).
  base::TaskRunner* runner ABSL_GUARDED_BY(mu) = nullptr;
  // The read journal's destructor started: a Pull that would wait
  // completes with Cancelled instead, and the timer stops.
  bool closing ABSL_GUARDED_BY(mu) = false;
  uint64_t last_wait ABSL_GUARDED_BY(mu) = 0;  // numbers each wait
  std::map<PgParking*, std::shared_ptr<PgParking>> waiting ABSL_GUARDED_BY(mu);
};

struct PgQueryReader {
  PgQueryReader(PgReadJournalSettings s,
                std::shared_ptr<const SerializationRegistry> r)
      : settings(std::move(s)),
        registry(std::move(r)),
        pool(
            settings.connection,
            [](PgConnection& c) { return PrepareAll(c, kStatements); },
            settings.backoff) {}

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
  const std::shared_ptr<const SerializationRegistry> registry;
  PgConnectionPool pool;
};

namespace {

using Reader = std::shared_ptr<PgQueryReader>;

// Ids in the order they got their first highest sequence number (the
// stream row's `created`); current: up to the highest `created` at the
// first Pull.
class IdsQuery final : public Query<std::string> {
 public:
  IdsQuery(Reader reader, bool live)
      : reader_(std::move(reader)), live_(live) {}

  absl::StatusOr<QueryStream<std::string>::Batch> Next(
      std::size_t max) override {
    QueryStream<std::string>::Batch batch;
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
class ByPersistenceId final : public Query<EventEnvelope> {
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
class ByTag final : public Query<EventEnvelope> {
 public:
  ByTag(Reader reader, std::string tag, int64_t offset, bool live)
      : reader_(std::move(reader)),
        tag_(std::move(tag)),
        live_(live),
        offset_(offset) {}

  absl::StatusOr<QueryStream<EventEnvelope>::Batch> Next(
      std::size_t max) override {
    QueryStream<EventEnvelope>::Batch batch;
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

// A query's state shared by its stream, the Pulls in flight and the waiter
// of a waiting Pull, so that a stream destroyed with a Pull in flight still
// gets its callback run.
template <typename T>
struct PullState final : PgParking, std::enable_shared_from_this<PullState<T>> {
  using Batch = typename QueryStream<T>::Batch;
  using PullCallback = typename QueryStream<T>::PullCallback;
  // A Pull that waits for a commit or its refresh deadline.
  struct Waiting {
    PullCallback done;
    std::size_t max = 0;
    CommitNotifier::Ticket ticket = 0;  // 0 until Wait returned
  };

  PullState(std::shared_ptr<PgLiveHub> h, std::unique_ptr<Query<T>> q)
      : hub(std::move(h)), query(std::move(q)) {}

  absl::AnyInvocable<void() &&> TakeCancelled(
      CommitNotifier& notifier,
      std::vector<CommitNotifier::Waiter>& dropped) override {
    if (!waiting.has_value()) return nullptr;
    // Ticket 0: Wait has not returned yet; the Pull that waits cancels it
    // when it finds itself taken.
    if (waiting->ticket != 0)
      dropped.push_back(notifier.Cancel(waiting->ticket));
    PullCallback done = std::move(waiting->done);
    waiting.reset();
    return [done = std::move(done)]() mutable {
      std::move(done)(absl::CancelledError("the live query was cancelled"));
    };
  }

  absl::AnyInvocable<void() &&> RetryTask(uint64_t id) override {
    return [state = this->shared_from_this(), id]() { state->Retry(id); };
  }

  // One read for a Pull, on a thread of the read journal: calls back, or
  // waits if a live query found nothing new.
  void Step(std::size_t max, PullCallback done) {
    // Read before the store is: a commit after it wakes the wait at once.
    const uint64_t generation = hub->commits->Generation();
    absl::StatusOr<Batch> batch = Next(max);
    if (batch.ok() && batch->elements.empty() && !batch->complete) {
      Wait(max, std::move(done), generation);
      return;
    }
    std::move(done)(std::move(batch));
  }

  void Wait(std::size_t max, PullCallback done, uint64_t generation) {
    uint64_t id = 0;
    absl::Status refused;  // ok: waiting
    {
      base::MutexLock lock(&hub->mu);
      if (hub->closing || cancelled) {
        refused =
            absl::CancelledError(hub->closing ? "the read journal was closed"
                                              : "the live query was cancelled");
      } else {
        id = ++hub->last_wait;
        waiting = Waiting{std::move(done), max};
        wait_id = id;
        if (hub->refresh_interval > absl::ZeroDuration()) {
          deadline = absl::Now() + hub->refresh_interval;
          hub->timer_wake.Signal();
        }
        hub->waiting.emplace(this, this->shared_from_this());
      }
    }
    if (!refused.ok()) {
      std::move(done)(std::move(refused));
      return;
    }
    // The waiter only posts the retry; it may run here, now (a commit
    // since `generation`), or on the journal's writer thread.
    CommitNotifier::Ticket ticket = hub->commits->Wait(
        generation, [hub = hub, state = this->shared_from_this(), id]() {
          base::MutexLock lock(&hub->mu);
          if (hub->runner == nullptr) return;  // cancelled already
          hub->runner->Post([state, id]() { state->Retry(id); });
        });
    CommitNotifier::Waiter dropped;  // destroyed unlocked
    base::MutexLock lock(&hub->mu);
    if (waiting.has_value() && wait_id == id) {
      waiting->ticket = ticket;
    } else {
      // Taken while Wait ran: the taker had no ticket to cancel.
      dropped = hub->commits->Cancel(ticket);
    }
  }

  // A commit happened, or the refresh deadline passed, since wait `id`
  // began: reads again, if the Pull still waits (and was not cancelled or
  // retried meanwhile).
  void Retry(uint64_t id) {
    PullCallback done;
    std::size_t max = 0;
    CommitNotifier::Waiter dropped;  // destroyed unlocked
    {
      base::MutexLock lock(&hub->mu);
      if (!waiting.has_value() || wait_id != id) return;
      done = std::move(waiting->done);
      max = waiting->max;
      if (waiting->ticket != 0) dropped = hub->commits->Cancel(waiting->ticket);
      waiting.reset();
      deadline = absl::InfiniteFuture();
      hub->waiting.erase(this);
    }
    Step(max, std::move(done));
  }

  absl::StatusOr<Batch> Next(std::size_t max) {
    // Pulls the contract rules out get an error rather than undefined
    // behaviour; the ended query's error is handed out as a copy.
    if (!failed.ok()) return base::OwnCopy(failed);
    if (complete) {
      return absl::FailedPreconditionError("Pull after the query completed");
    }
    if (max == 0) return absl::InvalidArgumentError("Pull with max 0");
    absl::StatusOr<Batch> batch = query->Next(max);
    if (!batch.ok()) {
      failed = base::OwnCopy(batch.status());
      return base::OwnCopy(failed);
    }
    if (batch->complete) complete = true;
    return batch;
  }

  const std::shared_ptr<PgLiveHub> hub;
  // One Pull at a time only.
  const std::unique_ptr<Query<T>> query;
  absl::Status failed;  // the error that ended the query, if one did
  bool complete = false;
  // Guarded by the hub's mu.
  std::optional<Waiting> waiting;
  // The stream is destroyed: a Pull still queued that would wait gets
  // Cancelled instead. Guarded by the hub's mu.
  bool cancelled = false;
};

template <typename T>
class RunnerStream final : public QueryStream<T> {
 public:
  using typename QueryStream<T>::PullCallback;

  RunnerStream(base::TaskRunner& runner, std::shared_ptr<PgLiveHub> hub,
               std::unique_ptr<Query<T>> query)
      : runner_(runner),
        hub_(hub),
        state_(
            std::make_shared<PullState<T>>(std::move(hub), std::move(query))) {}

  // Cancels a waiting Pull: its callback is posted, never run here.
  ~RunnerStream() override {
    std::vector<CommitNotifier::Waiter> dropped;  // destroyed unlocked
    base::MutexLock lock(&hub_->mu);
    state_->cancelled = true;
    absl::AnyInvocable<void()&&> cancelled =
        state_->TakeCancelled(*hub_->commits, dropped);
    if (cancelled == nullptr) return;
    state_->deadline = absl::InfiniteFuture();
    hub_->waiting.erase(state_.get());
    // Not null: the read journal's destructor takes every waiting Pull
    // before it clears the runner.
    hub_->runner->Post(std::move(cancelled));
  }

  void Pull(std::size_t max, PullCallback done) override {
    runner_.Post([state = state_, max, done = std::move(done)]() mutable {
      state->Step(max, std::move(done));
    });
  }

 private:
  base::TaskRunner& runner_;
  const std::shared_ptr<PgLiveHub> hub_;
  const std::shared_ptr<PullState<T>> state_;
};

}  // namespace

PostgresReadJournal::PostgresReadJournal(
    PgReadJournalSettings settings,
    std::shared_ptr<const SerializationRegistry> registry,
    std::shared_ptr<CommitNotifier> commits)
    : reader_(std::make_shared<PgQueryReader>(std::move(settings),
                                              std::move(registry))),
      hub_(std::make_shared<PgLiveHub>(std::move(commits),
                                       reader_->settings.refresh_interval)),
      runner_(std::max(reader_->settings.threads, 1), "cairn-pg-query") {
  {
    base::MutexLock lock(&hub_->mu);
    hub_->runner = &runner_;
  }
  timer_ = std::thread([this] { RunTimer(); });
}

PostgresReadJournal::~PostgresReadJournal() {
  // Before runner_ drains: the waiting Pulls' Cancelled callbacks are
  // posted to it, and no waiter or timer posts to it any more.
  {
    std::vector<CommitNotifier::Waiter> dropped;  // destroyed unlocked
    base::MutexLock lock(&hub_->mu);
    hub_->closing = true;
    for (auto& [parking, state] : hub_->waiting) {
      absl::AnyInvocable<void()&&> cancelled =
          parking->TakeCancelled(*hub_->commits, dropped);
      if (cancelled != nullptr) runner_.Post(std::move(cancelled));
    }
    hub_->waiting.clear();
    hub_->runner = nullptr;
    hub_->timer_wake.SignalAll();
  }
  timer_.join();
}

void PostgresReadJournal::RunTimer() {
  base::MutexLock lock(&hub_->mu);
  while (!hub_->closing) {
    const absl::Time now = absl::Now();
    absl::Time next = absl::InfiniteFuture();
    for (auto& [parking, state] : hub_->waiting) {
      if (parking->deadline <= now) {
        parking->deadline = absl::InfiniteFuture();  // posted once
        hub_->runner->Post(parking->RetryTask(parking->wait_id));
      } else {
        next = std::min(next, parking->deadline);
      }
    }
    hub_->timer_wake.WaitWithDeadline(&hub_->mu, next);
  }
}

template <typename T, typename Q, typename... Args>
std::unique_ptr<QueryStream<T>> PostgresReadJournal::Make(Args&&... args) {
  return std::make_unique<RunnerStream<T>>(
      runner_, hub_, std::make_unique<Q>(reader_, std::forward<Args>(args)...));
}

std::unique_ptr<QueryStream<std::string>>
PostgresReadJournal::CurrentPersistenceIds() {
  return Make<std::string, IdsQuery>(/*live=*/false);
}

std::unique_ptr<QueryStream<std::string>>
PostgresReadJournal::PersistenceIds() {
  return Make<std::string, IdsQuery>(/*live=*/true);
}

std::unique_ptr<QueryStream<EventEnvelope>>
PostgresReadJournal::CurrentEventsByPersistenceId(std::string persistence_id,
                                                  int64_t from_sequence_nr,
                                                  int64_t to_sequence_nr) {
  return Make<EventEnvelope, ByPersistenceId>(std::move(persistence_id),
                                              from_sequence_nr, to_sequence_nr,
                                              /*live=*/false);
}

std::unique_ptr<QueryStream<EventEnvelope>>
PostgresReadJournal::EventsByPersistenceId(std::string persistence_id,
                                           int64_t from_sequence_nr,
                                           int64_t to_sequence_nr) {
  return Make<EventEnvelope, ByPersistenceId>(std::move(persistence_id),
                                              from_sequence_nr, to_sequence_nr,
                                              /*live=*/true);
}

std::unique_ptr<QueryStream<EventEnvelope>>
PostgresReadJournal::CurrentEventsByTag(std::string tag, int64_t offset) {
  return Make<EventEnvelope, ByTag>(std::move(tag), offset, /*live=*/false);
}

std::unique_ptr<QueryStream<EventEnvelope>> PostgresReadJournal::EventsByTag(
    std::string tag, int64_t offset) {
  return Make<EventEnvelope, ByTag>(std::move(tag), offset, /*live=*/true);
}

}  // namespace cairn::persistence::internal
