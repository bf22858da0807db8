#include "bench/query/query_benchmark_cairn.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "base/mutex.h"
#include "base/string_view.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/persistence/persistence_benchmark_system.h"
#include "persistence/messages.h"
#include "persistence/persistence_query.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/read_journal.h"
#include "persistence/storage/tagged.h"

namespace cairn::bench {
namespace {

using persistence::EventEnvelope;
using persistence::PersistenceQuery;
using persistence::PersistentActor;
using persistence::QueryStream;
using persistence::ReadJournal;
using persistence::Tagged;
using serialization::Payload;

constexpr char kLatencyTag[] = "t";
// How long the live query may take to deliver the last events once every
// write completed, before the run fails (a healthy run takes milliseconds).
constexpr std::chrono::seconds kDeliveryTimeout(60);

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Pulls a query stream it owns, `batch` elements at a time, each Pull from
// the previous one's callback (on the read journal's thread), and hands
// each batch to `on_batch` until that returns false, the query completes
// or a Pull fails. The destructor stops the pulling, then destroys the
// stream (a Pull in flight still runs its callback, which pulls no more).
class Puller {
 public:
  // Runs on the read journal's thread; false: pull no more.
  using OnBatch = std::function<bool(std::vector<EventEnvelope>&)>;

  Puller(std::unique_ptr<QueryStream<EventEnvelope>> stream, std::size_t batch,
         OnBatch on_batch)
      : stream_(std::move(stream)),
        state_(std::make_shared<State>(stream_.get(), batch,
                                       std::move(on_batch))) {
    PullNext(state_);
  }
  ~Puller() {
    {
      base::MutexLock lock(&state_->mu);
      state_->stream = nullptr;
    }
    stream_.reset();
  }
  Puller(const Puller&) = delete;
  Puller& operator=(const Puller&) = delete;

  // OK once the pulling ended without an error; the error otherwise.
  [[nodiscard]] absl::Status Wait() { return state_->done.Wait(); }
  // As Wait, but DeadlineExceeded if it had not ended within `timeout`.
  [[nodiscard]] absl::Status WaitFor(std::chrono::seconds timeout) {
    return state_->done.WaitFor(timeout);
  }

 private:
  struct State {
    State(QueryStream<EventEnvelope>* s, std::size_t b, OnBatch o)
        : stream(s), batch(b), on_batch(std::move(o)) {}
    base::Mutex mu;
    QueryStream<EventEnvelope>* stream ABSL_GUARDED_BY(mu);  // null: stopped
    const std::size_t batch;
    const OnBatch on_batch;
    Countdown done{1};
  };

  static void PullNext(const std::shared_ptr<State>& state) {
    // Under the lock, so that the stream is not destroyed meanwhile; Pull
    // never runs its callback inside.
    base::MutexLock lock(&state->mu);
    if (state->stream == nullptr) return;
    state->stream->Pull(
        state->batch,
        [state](absl::StatusOr<QueryStream<EventEnvelope>::Batch> got) {
          if (!got.ok()) {
            state->done.Fail(got.status());
            return;
          }
          if (!state->on_batch(got->elements) || got->complete) {
            state->done.CountDown();
            return;
          }
          PullNext(state);
        });
  }

  std::unique_ptr<QueryStream<EventEnvelope>> stream_;
  const std::shared_ptr<State> state_;
};

// The read journal of `system`'s default journal: opens the store.
absl::StatusOr<ReadJournal*> QueriesOf(BenchSystem& system) {
  return PersistenceQuery::Get(system.system()).ReadJournalFor("");
}

// What the latency run's actors and consumer note, per actor and sequence
// number (index sequence_nr - 1). Each actor writes its own rows, the
// consumer its own table; the main thread reads them after both signalled
// they are done (through a Countdown's mutex).
struct LatencyLog {
  explicit LatencyLog(const LatencyLoad& load)
      : load(load),
        persisted(load.actors, std::vector<int64_t>(load.events_per_actor)),
        handled(load.actors, std::vector<int64_t>(load.events_per_actor)),
        delivered(load.actors, std::vector<int64_t>(load.events_per_actor)),
        recovered(load.actors),
        written(load.actors) {}

  const LatencyLoad load;
  std::vector<std::vector<int64_t>> persisted;  // the Persist call
  std::vector<std::vector<int64_t>> handled;    // the persist handler
  std::vector<std::vector<int64_t>> delivered;  // the query's callback
  Countdown recovered;
  Countdown written;
};

struct PersistTagged {};

// Persists Tagged{Event{now}, {"t"}} per command, noting the Persist call's
// and its handler's times.
class LatencyActor final : public PersistentActor {
 public:
  LatencyActor(int index, LatencyLog* log)
      : id_(BenchPersistenceId(index)), index_(index), log_(log) {
    Recover<persistence::RecoveryCompleted>(
        [this](const persistence::RecoveryCompleted&) {
          log_->recovered.CountDown();
        });
    Command<PersistTagged>([this](const PersistTagged&) {
      Persist(Tagged{Payload::Of(Event{NowNs()}), {kLatencyTag}},
              [this](const Tagged& tagged) { OnPersisted(tagged); });
    });
  }

  std::string PersistenceId() const override { return id_; }

 protected:
  void OnRecoveryFailure(const absl::Status& cause, const Payload*) override {
    log_->recovered.Fail(cause);
  }
  void OnPersistFailure(const absl::Status& cause, const Payload&,
                        int64_t) override {
    log_->written.Fail(cause);
  }
  void OnPersistRejected(const absl::Status& cause, const Payload&,
                         int64_t) override {
    log_->written.Fail(cause);
  }

 private:
  // Persist stashes the next command until this ran: the handlers run in
  // sequence number order, from 1.
  void OnPersisted(const Tagged& tagged) {
    const int64_t now = NowNs();
    log_->persisted[index_][written_] = tagged.event.As<Event>()->value;
    log_->handled[index_][written_] = now;
    if (++written_ == log_->load.events_per_actor) log_->written.CountDown();
  }

  const std::string id_;
  const int index_;
  LatencyLog* const log_;
  int64_t written_ = 0;
};

// Notes the delivery time of each envelope in `log`; false once all are
// delivered. A problem is kept in `error` and stops the pulling.
class LatencyConsumer {
 public:
  explicit LatencyConsumer(std::shared_ptr<LatencyLog> log)
      : log_(std::move(log)),
        expected_(log_->load.actors * log_->load.events_per_actor) {}

  bool OnBatch(std::vector<EventEnvelope>& batch) {
    const int64_t now = NowNs();
    for (const EventEnvelope& e : batch) {
      int64_t index = -1;
      const std::string_view id = e.persistence_id;
      const std::string_view prefix = "bench-";
      if (!id.starts_with(prefix) ||
          !absl::SimpleAtoi(base::Av(id.substr(prefix.size())), &index) ||
          index < 0 || index >= log_->load.actors || e.sequence_nr < 1 ||
          e.sequence_nr > log_->load.events_per_actor) {
        error = absl::DataLossError(
            base::StrCat("unexpected event ", id, " #", e.sequence_nr));
        return false;
      }
      int64_t& slot = log_->delivered[index][e.sequence_nr - 1];
      if (slot != 0) {
        error = absl::DataLossError(base::StrCat(
            "event ", id, " #", e.sequence_nr, " delivered twice"));
        return false;
      }
      slot = now;
      ++delivered_;
    }
    return delivered_ < expected_;
  }

  absl::Status error;  // read after the Puller's Wait

 private:
  const std::shared_ptr<LatencyLog> log_;
  const int64_t expected_;
  int64_t delivered_ = 0;
};

}  // namespace

absl::StatusOr<QueryScan> CairnQueryByTag(const std::string& dir,
                                          const std::string& tag,
                                          std::size_t batch, int64_t expected) {
  absl::StatusOr<std::unique_ptr<BenchSystem>> system =
      BenchSystem::Start(dir, /*fsync=*/false);
  if (!system.ok()) return system.status();
  absl::StatusOr<ReadJournal*> queries = QueriesOf(**system);
  if (!queries.ok()) return queries.status();

  // Counted on the read journal's thread; read here after Wait.
  auto events = std::make_shared<int64_t>(0);
  Stopwatch clock;
  Puller puller((*queries)->CurrentEventsByTag(tag, 0), batch,
                [events](std::vector<EventEnvelope>& got) {
                  *events += static_cast<int64_t>(got.size());
                  return true;
                });
  if (absl::Status s = puller.Wait(); !s.ok()) return s;
  QueryScan scan{*events, clock.Seconds()};
  if (scan.events != expected) {
    return absl::DataLossError(absl::StrCat("CurrentEventsByTag delivered ",
                                            scan.events, " of ", expected,
                                            " events"));
  }
  return scan;
}

absl::StatusOr<Latencies> CairnLiveLatency(const std::string& dir,
                                           const LatencyLoad& load) {
  // Shared with the actors and the consumer, which may outlive an early
  // return (the system and the stream are destroyed first, but a callback
  // in flight still runs).
  auto log = std::make_shared<LatencyLog>(load);
  auto consumer = std::make_shared<LatencyConsumer>(log);
  absl::StatusOr<std::unique_ptr<BenchSystem>> system =
      BenchSystem::Start(dir, /*fsync=*/false);
  if (!system.ok()) return system.status();
  absl::StatusOr<ReadJournal*> queries = QueriesOf(**system);
  if (!queries.ok()) return queries.status();

  std::vector<actor::ActorRef> actors;
  actors.reserve(load.actors);
  for (int i = 0; i < load.actors; ++i) {
    actors.push_back((*system)->system().ActorOf(
        actor::Props::Create<LatencyActor>(i, log.get())));
  }
  if (absl::Status s = log->recovered.Wait(); !s.ok()) return s;

  Puller puller((*queries)->EventsByTag(kLatencyTag, 0), load.batch,
                [log, consumer](std::vector<EventEnvelope>& batch) {
                  return consumer->OnBatch(batch);
                });
  // Round robin, so that every actor has work from the start.
  for (int64_t c = 0; c < load.events_per_actor; ++c) {
    for (const actor::ActorRef& a : actors) a.Tell(PersistTagged{});
  }
  if (absl::Status s = log->written.Wait(); !s.ok()) return s;
  // A query that missed an event would wait for it forever: fail instead,
  // long after the last commit.
  if (absl::Status s = puller.WaitFor(kDeliveryTimeout); !s.ok()) {
    if (!absl::IsDeadlineExceeded(s)) return s;
    return absl::DataLossError(
        absl::StrCat("the live query had not delivered every event ",
                     kDeliveryTimeout.count(), " s after the last write"));
  }
  if (!consumer->error.ok()) return consumer->error;

  Latencies latencies;
  const std::size_t total = static_cast<std::size_t>(load.actors) *
                            static_cast<std::size_t>(load.events_per_actor);
  latencies.persist_to_handler.reserve(total);
  latencies.persist_to_delivery.reserve(total);
  latencies.handler_to_delivery.reserve(total);
  for (int a = 0; a < load.actors; ++a) {
    for (int64_t s = 0; s < load.events_per_actor; ++s) {
      const int64_t persisted = log->persisted[a][s];
      const int64_t handled = log->handled[a][s];
      const int64_t delivered = log->delivered[a][s];
      latencies.persist_to_handler.push_back(handled - persisted);
      latencies.persist_to_delivery.push_back(delivered - persisted);
      latencies.handler_to_delivery.push_back(delivered - handled);
    }
  }
  return latencies;
}

}  // namespace cairn::bench
