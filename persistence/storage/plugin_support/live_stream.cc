#include "persistence/storage/plugin_support/live_stream.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "base/mutex.h"
#include "base/status_copy.h"

namespace cairn::persistence::plugin_support {
namespace live_stream_internal {
namespace {

constexpr char kStreamDestroyed[] =
    "the live query was cancelled: its stream was destroyed";
constexpr char kHubDestroyed[] =
    "the live query was cancelled: its read journal was destroyed";

}  // namespace

// A stream's part that the hub's lock guards, shared by the stream and its
// state (so that a queued Pull sees the stream's destruction).
struct Link {
  bool cancelled = false;  // the stream was destroyed
  uint64_t wait_id = 0;    // the wait of its parked Pull; 0: none
};

// Completes a parked Pull, on an executor thread, under no lock: OK reads
// again; any other status is the Pull's result.
using Finish = absl::AnyInvocable<void(HubCore& core, absl::Status status) &&>;

// One parked Pull, by wait id in HubCore::waiting.
struct Parked {
  Finish finish;
  std::shared_ptr<Link> link;
  CommitNotifier::Ticket ticket = 0;  // 0 until Wait returned (or ran it)
  absl::Time deadline = absl::InfiniteFuture();
};

// What the streams, the notifier's waiters (weakly) and the refresh timer
// share. Whoever takes a Parked out of `waiting` under `mu` (a wake's
// retry, the stream's destructor, Close) completes it: its callback runs
// exactly once.
class HubCore : public std::enable_shared_from_this<HubCore> {
 public:
  HubCore(std::shared_ptr<CommitNotifier> commits, absl::Duration refresh)
      : commits_(std::move(commits)), refresh_(refresh) {}

  // Commits notified so far (0 without a notifier); read before a cursor
  // reads, passed to Park.
  uint64_t Generation() const {
    return commits_ == nullptr ? 0 : commits_->Generation();
  }

  void SetExecutor(base::TaskRunner* executor) {
    base::MutexLock lock(&mu_);
    executor_ = executor;
  }

  // Posts a Pull's first step; false if the executor is gone (a Pull after
  // the hub was destroyed, which read_journal.h rules out).
  bool PostPull(absl::AnyInvocable<void() &&> task) {
    base::MutexLock lock(&mu_);
    if (executor_ == nullptr) return false;
    executor_->Post(std::move(task));
    return true;
  }

  // Parks a caught-up live Pull until a commit after `generation`, its
  // refresh deadline, or a cancel; completes it with Cancelled at once if
  // its stream or the hub is going. On an executor thread, under no lock.
  void Park(uint64_t generation, const std::shared_ptr<Link>& link,
            Finish finish) {
    uint64_t id = 0;
    absl::Status cancelled;  // completes the Pull at once, when not OK
    {
      base::MutexLock lock(&mu_);
      if (closing_ || link->cancelled) {
        cancelled =
            absl::CancelledError(closing_ ? kHubDestroyed : kStreamDestroyed);
      } else {
        id = ParkLocked(link, std::move(finish));
      }
    }
    if (!cancelled.ok()) {
      std::move(finish)(*this, std::move(cancelled));
      return;
    }
    if (commits_ == nullptr) return;
    // The waiter may run here (a commit since `generation`) or on the
    // committing thread; it only posts the retry. Weak: the notifier may
    // outlive the hub, and must not keep it alive.
    const CommitNotifier::Ticket ticket =
        commits_->Wait(generation, [weak = weak_from_this(), id] {
          if (std::shared_ptr<HubCore> core = weak.lock()) core->Wake(id);
        });
    CommitNotifier::Waiter dropped;  // destroyed after the lock is released
    base::MutexLock lock(&mu_);
    auto it = waiting_.find(id);
    if (it != waiting_.end()) {
      it->second.ticket = ticket;
    } else if (ticket != 0) {
      // Taken while Wait ran: its taker had no ticket to cancel.
      dropped = commits_->Cancel(ticket);
    }
  }

  // The stream of `link` is destroyed: its parked Pull, if any, completes
  // with Cancelled (posted), and a Pull of it still queued will not park.
  void StreamDestroyed(Link& link) {
    CommitNotifier::Waiter dropped;  // destroyed after the lock is released
    base::MutexLock lock(&mu_);
    link.cancelled = true;
    if (link.wait_id == 0) return;
    auto it = waiting_.find(link.wait_id);
    if (it == waiting_.end()) return;
    Finish finish = Take(it, dropped);
    // Not null: Close takes every parked Pull before the executor goes.
    executor_->Post(
        [core = shared_from_this(), finish = std::move(finish)]() mutable {
          std::move(finish)(*core, absl::CancelledError(kStreamDestroyed));
        });
  }

  // The hub's destructor, first step: no Pull parks any more, and every
  // parked one completes with Cancelled (posted); the timer stops.
  void Close() {
    std::vector<CommitNotifier::Waiter> dropped;  // destroyed unlocked
    base::MutexLock lock(&mu_);
    closing_ = true;
    while (!waiting_.empty()) {
      CommitNotifier::Waiter waiter;
      Finish finish = Take(waiting_.begin(), waiter);
      dropped.push_back(std::move(waiter));
      executor_->Post(
          [core = shared_from_this(), finish = std::move(finish)]() mutable {
            std::move(finish)(*core, absl::CancelledError(kHubDestroyed));
          });
    }
    timer_wake_.SignalAll();
  }

  // The hub's destructor, last step: the executor has run everything.
  void ExecutorGone() {
    base::MutexLock lock(&mu_);
    executor_ = nullptr;
  }

  // The refresh timer's loop (QueryHub::RunTimer): posts the retry of each
  // parked Pull whose deadline passed, until Close.
  void RunTimer() {
    base::MutexLock lock(&mu_);
    while (!closing_) {
      const absl::Time now = absl::Now();
      while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
        const uint64_t id = deadlines_.begin()->second;
        deadlines_.erase(deadlines_.begin());
        auto it = waiting_.find(id);
        if (it == waiting_.end()) continue;
        it->second.deadline = absl::InfiniteFuture();  // posted once
        PostRetry(id);
      }
      if (deadlines_.empty()) {
        timer_wake_.Wait(&mu_);
      } else {
        timer_wake_.WaitWithTimeout(&mu_, deadlines_.begin()->first - now);
      }
    }
  }

  std::size_t ParkedCount() const {
    base::MutexLock lock(&mu_);
    return waiting_.size();
  }

 private:
  // A commit after wait `id` began (on the committing thread, or inside
  // Wait): posts its retry if it still waits.
  void Wake(uint64_t id) {
    base::MutexLock lock(&mu_);
    if (closing_ || !waiting_.contains(id)) return;
    PostRetry(id);
  }

  // With mu_ held: parks `finish` for `link`'s stream; returns its wait id.
  uint64_t ParkLocked(const std::shared_ptr<Link>& link, Finish finish)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const uint64_t id = ++last_wait_;
    Parked& parked = waiting_[id];
    parked.finish = std::move(finish);
    parked.link = link;
    link->wait_id = id;
    if (refresh_ > absl::ZeroDuration()) {
      parked.deadline = absl::Now() + refresh_;
      deadlines_.emplace(parked.deadline, id);
      timer_wake_.Signal();
    }
    return id;
  }

  // With mu_ held, not closing.
  void PostRetry(uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    executor_->Post([core = shared_from_this(), id] { core->Retry(id); });
  }

  // On an executor thread: reads again for wait `id`, if that Pull still
  // waits (a commit and the timer may both have posted a retry; the first
  // takes it).
  void Retry(uint64_t id) {
    Finish finish;
    CommitNotifier::Waiter dropped;  // destroyed after the lock is released
    {
      base::MutexLock lock(&mu_);
      auto it = waiting_.find(id);
      if (it == waiting_.end()) return;
      finish = Take(it, dropped);
    }
    std::move(finish)(*this, absl::OkStatus());
  }

  // With mu_ held: removes a parked Pull, its deadline and its notifier
  // waiter (moved to `dropped`, to be destroyed unlocked).
  Finish Take(std::map<uint64_t, Parked>::iterator it,
              CommitNotifier::Waiter& dropped)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Parked& parked = it->second;
    if (parked.ticket != 0) dropped = commits_->Cancel(parked.ticket);
    if (parked.deadline != absl::InfiniteFuture()) {
      deadlines_.erase({parked.deadline, it->first});
    }
    parked.link->wait_id = 0;
    Finish finish = std::move(parked.finish);
    waiting_.erase(it);
    return finish;
  }

  const std::shared_ptr<CommitNotifier> commits_;
  const absl::Duration refresh_;
  mutable base::Mutex mu_;
  base::CondVar timer_wake_;  // a new deadline, or Close
  // Null before SetExecutor and after ExecutorGone.
  base::TaskRunner* executor_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t last_wait_ ABSL_GUARDED_BY(mu_) = 0;  // numbers waits
  // By wait id. Each Parked's Link is guarded by mu_ too (another object,
  // so not annotated).
  std::map<uint64_t, Parked> waiting_ ABSL_GUARDED_BY(mu_);
  // The refresh deadlines of the parked Pulls, earliest first.
  std::set<std::pair<absl::Time, uint64_t>> deadlines_ ABSL_GUARDED_BY(mu_);
};

namespace {

// A query's state, shared by its stream and the Pull in flight (queued,
// reading or parked), so that a stream destroyed meanwhile still gets its
// callback run. The fields other than `link` are touched by one Pull at a
// time, on the executor.
template <typename T>
struct StreamState {
  StreamState(std::unique_ptr<QueryCursor<T>> c, QueryMode m)
      : cursor(std::move(c)), mode(m) {}

  const std::unique_ptr<QueryCursor<T>> cursor;
  const QueryMode mode;
  absl::Status failed;  // the error that ended the query, if one did
  bool complete = false;
  const std::shared_ptr<Link> link = std::make_shared<Link>();
};

// One read for a Pull, on an executor thread: calls back, or parks a live
// Pull whose cursor is caught up.
template <typename T>
void Step(HubCore& core, const std::shared_ptr<StreamState<T>>& state,
          std::size_t max, typename QueryStream<T>::PullCallback done) {
  // The ended query's error is handed out as a copy, not shared
  // (base/status_copy.h).
  if (!state->failed.ok()) {
    std::move(done)(base::OwnCopy(state->failed));
    return;
  }
  if (state->complete) {
    std::move(done)(
        absl::FailedPreconditionError("Pull after the query completed"));
    return;
  }
  if (max == 0) {
    std::move(done)(absl::InvalidArgumentError("Pull with max 0"));
    return;
  }
  // Before the read: a commit during it wakes the park below at once.
  const uint64_t generation = core.Generation();
  absl::StatusOr<typename QueryStream<T>::Batch> batch =
      state->cursor->Next(max);
  if (batch.ok() && batch->elements.size() > max) {
    batch = absl::InternalError(
        "the query's cursor returned more elements than the Pull asked for");
  } else if (batch.ok() && batch->elements.empty() && !batch->complete &&
             state->mode == QueryMode::kCurrent) {
    batch = absl::InternalError(
        "a current query's cursor returned no element without completing");
  }
  if (!batch.ok()) {
    state->failed = base::OwnCopy(batch.status());
    std::move(done)(base::OwnCopy(state->failed));
    return;
  }
  if (batch->complete) state->complete = true;
  if (!batch->elements.empty() || batch->complete) {
    std::move(done)(*std::move(batch));
    return;
  }
  core.Park(generation, state->link,
            [state, max, done = std::move(done)](HubCore& core,
                                                 absl::Status status) mutable {
              if (!status.ok()) {
                std::move(done)(std::move(status));
                return;
              }
              Step(core, state, max, std::move(done));
            });
}

template <typename T>
class HubStream final : public QueryStream<T> {
 public:
  using typename QueryStream<T>::PullCallback;

  HubStream(std::shared_ptr<HubCore> core,
            std::shared_ptr<StreamState<T>> state)
      : core_(std::move(core)), state_(std::move(state)) {}

  // Cancels a parked Pull: its callback is posted, never run here.
  ~HubStream() override { core_->StreamDestroyed(*state_->link); }

  void Pull(std::size_t max, PullCallback done) override {
    auto task = [core = core_, state = state_, max,
                 done = std::move(done)]() mutable {
      Step(*core, state, max, std::move(done));
    };
    // False only for a Pull after the read journal was destroyed, which
    // read_journal.h rules out: the callback is then dropped.
    (void)core_->PostPull(std::move(task));
  }

 private:
  const std::shared_ptr<HubCore> core_;
  const std::shared_ptr<StreamState<T>> state_;
};

}  // namespace
}  // namespace live_stream_internal

QueryHub::QueryHub(QueryHubOptions options,
                   std::shared_ptr<CommitNotifier> commits)
    : core_(std::make_shared<live_stream_internal::HubCore>(
          std::move(commits), options.refresh_interval)) {
  executor_.emplace(std::max(options.threads, 1),
                    std::move(options.thread_name));
  core_->SetExecutor(&*executor_);
  if (options.refresh_interval > absl::ZeroDuration()) {
    timer_ = std::thread([this] { RunTimer(); });
  }
}

QueryHub::~QueryHub() {
  core_->Close();
  if (timer_.joinable()) timer_.join();
  // Runs what is posted: Pulls in flight, the Cancelled callbacks, and the
  // Pulls those callbacks make (a park then completes with Cancelled).
  executor_.reset();
  core_->ExecutorGone();
}

void QueryHub::RunTimer() { core_->RunTimer(); }

std::size_t QueryHub::ParkedForTesting() const { return core_->ParkedCount(); }

template <typename T>
std::unique_ptr<QueryStream<T>> QueryHub::NewStream(
    std::unique_ptr<QueryCursor<T>> cursor, QueryMode mode) {
  return std::make_unique<live_stream_internal::HubStream<T>>(
      core_, std::make_shared<live_stream_internal::StreamState<T>>(
                 std::move(cursor), mode));
}

template std::unique_ptr<QueryStream<std::string>>
QueryHub::NewStream<std::string>(
    std::unique_ptr<QueryCursor<std::string>> cursor, QueryMode mode);
template std::unique_ptr<QueryStream<EventEnvelope>>
QueryHub::NewStream<EventEnvelope>(
    std::unique_ptr<QueryCursor<EventEnvelope>> cursor, QueryMode mode);

}  // namespace cairn::persistence::plugin_support
