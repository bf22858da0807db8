#include "actor/scheduler.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "base/mutex.h"

namespace cairn::actor {

namespace internal {
struct TimerTask {
  using Action = std::shared_ptr<const std::function<void()>>;

  // Not shared yet while it is made, so the action needs no lock (the
  // analysis does not check constructors).
  TimerTask(absl::Duration i, std::function<void()> a)
      : interval(i),
        action(std::make_shared<const std::function<void()>>(std::move(a))) {}

  // Takes a one-off's action; shares a repeating task's, so a Cancel
  // while it runs drops it only after the run. Null once cancelled.
  Action ActionToRun() {
    base::MutexLock lock(&mu);
    return interval > absl::ZeroDuration() ? action : std::move(action);
  }
  // The action, for the caller to destroy outside the lock: what it
  // captured may be the last reference to anything, even this task.
  Action DropAction() {
    base::MutexLock lock(&mu);
    return std::move(action);
  }

  const absl::Duration interval;  // zero for a one-off
  std::atomic<bool> cancelled{false};
  std::atomic<bool> fired{false};
  base::Mutex mu;
  Action action ABSL_GUARDED_BY(mu);  // Cancel comes from any thread
};
}  // namespace internal

bool Cancellable::Cancel() {
  if (task_ == nullptr) return false;
  if (task_->interval == absl::ZeroDuration() && task_->fired.load()) {
    return false;
  }
  if (task_->cancelled.exchange(true)) return false;
  // A cancelled ask timeout or recovery timer would otherwise keep what it
  // captured (an actor, a reply target) until its due time: a day for a
  // long ask, a million accounts' worth in the bank example.
  task_->DropAction();
  return true;
}

bool Cancellable::IsCancelled() const {
  return task_ != nullptr && task_->cancelled.load();
}

Scheduler::Scheduler(Clock* clock) : clock_(clock) {
  if (clock_->IsManual()) {
    listener_token_ = clock_->AddAdvanceListener([this] { RunDueTasks(); });
  }
  thread_ = std::thread([this] { TimerLoop(); });
}

Scheduler::~Scheduler() { Shutdown(); }

void Scheduler::Shutdown() {
  std::vector<Entry> dropped;
  {
    // Waits for tasks being fired elsewhere; none start after this.
    base::MutexLock runner(&run_mu_);
    base::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    dropped.swap(heap_);
  }
  // Actions often hold what holds their Cancellable (an ask's reply target
  // holds its timeout): dropping them breaks such cycles.
  for (Entry& e : dropped) {
    e.task->cancelled = true;
    e.task->DropAction();
  }
  cv_.SignalAll();
  if (clock_->IsManual()) clock_->RemoveAdvanceListener(listener_token_);
  if (thread_.joinable()) thread_.join();
}

size_t Scheduler::PendingTasks() const {
  base::MutexLock lock(&mu_);
  return heap_.size();
}

void Scheduler::StopTimerThread() {
  {
    base::MutexLock lock(&mu_);
    if (timer_thread_stopped_) return;
    timer_thread_stopped_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

Cancellable Scheduler::ScheduleOnce(absl::Duration delay,
                                    std::function<void()> action) {
  return Add(delay, absl::ZeroDuration(), std::move(action));
}

Cancellable Scheduler::ScheduleRepeatedly(absl::Duration initial_delay,
                                          absl::Duration interval,
                                          std::function<void()> action) {
  // A non-positive interval would fire forever within one instant.
  if (interval <= absl::ZeroDuration()) interval = absl::Milliseconds(1);
  return Add(initial_delay, interval, std::move(action));
}

Cancellable Scheduler::ScheduleTellOnceAny(absl::Duration delay,
                                           const ActorRef& receiver,
                                           const AnyMessage& message,
                                           const ActorRef& sender) {
  return ScheduleOnce(delay, [receiver, message, sender] {
    receiver.TellAny(message, sender);
  });
}

Cancellable Scheduler::ScheduleTellRepeatedlyAny(absl::Duration initial_delay,
                                                 absl::Duration interval,
                                                 const ActorRef& receiver,
                                                 const AnyMessage& message,
                                                 const ActorRef& sender) {
  return ScheduleRepeatedly(
      initial_delay, interval,
      [receiver, message, sender] { receiver.TellAny(message, sender); });
}

Cancellable Scheduler::Add(absl::Duration delay, absl::Duration interval,
                           std::function<void()> action) {
  auto task =
      std::make_shared<internal::TimerTask>(interval, std::move(action));
  if (delay < absl::ZeroDuration()) delay = absl::ZeroDuration();
  internal::TimerTask::Action dropped;  // destroyed after the lock is released
  {
    base::MutexLock lock(&mu_);
    if (stopped_) {
      // Never runs, so it keeps no action: an action often holds what
      // holds its Cancellable (an ask's promise), a cycle nothing would
      // break (Shutdown drops the actions of the tasks it holds).
      task->cancelled = true;
      dropped = task->DropAction();
      return Cancellable(std::move(task));
    }
    if (heap_.size() >= drop_cancelled_at_) DropCancelled();
    heap_.push_back(Entry{clock_->Now() + delay, next_seq_++, task});
    std::push_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
    // The timer thread sleeps until the earliest task is due: only a new
    // earliest one changes that. (A recovering persistent actor adds a
    // timer each; waking the thread for each cost ~5% of a recovery.)
    if (heap_.front().task != task) return Cancellable(std::move(task));
  }
  cv_.SignalAll();
  return Cancellable(std::move(task));
}

void Scheduler::DropCancelled() {
  // Most tasks are cancelled long before they are due (ask timeouts,
  // recovery timers, receive timeouts): their entries would pile up until
  // then. Dropping them once the queue has doubled since the last time
  // costs O(1) per Add, amortized, and keeps the queue within about twice
  // its live tasks. Only entries go here: Cancel dropped the actions.
  std::erase_if(heap_, [](const Entry& e) { return e.task->cancelled.load(); });
  std::make_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
  drop_cancelled_at_ = std::max(kMinDropSize, 2 * heap_.size());
}

void Scheduler::RunDueTasks() {
  base::MutexLock runner(&run_mu_);
  while (true) {
    std::shared_ptr<internal::TimerTask> task;
    {
      base::MutexLock lock(&mu_);
      if (stopped_ || heap_.empty() || heap_.front().due > clock_->Now()) {
        return;
      }
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
      Entry entry = std::move(heap_.back());
      heap_.pop_back();
      task = std::move(entry.task);
      if (task->interval == absl::ZeroDuration()) {
        task->fired = true;
      } else if (!task->cancelled.load()) {
        heap_.push_back(Entry{entry.due + task->interval, next_seq_++, task});
        std::push_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
      }
    }
    // A one-off's action is dropped once done with (ActionToRun takes it):
    // it often holds a reference to whoever holds the Cancellable (an actor
    // and its receive-timeout timer).
    internal::TimerTask::Action action = task->ActionToRun();
    if (action != nullptr && !task->cancelled.load()) (*action)();
  }
}

void Scheduler::TimerLoop() {
  mu_.Lock();
  while (!stopped_ && !timer_thread_stopped_) {
    if (!heap_.empty() && heap_.front().due <= clock_->Now()) {
      mu_.Unlock();
      RunDueTasks();
      mu_.Lock();
      continue;
    }
    if (heap_.empty() || clock_->IsManual()) {
      // A manual clock fires tasks from Advance(); new tasks wake us.
      cv_.Wait(&mu_);
    } else {
      cv_.WaitWithTimeout(&mu_, heap_.front().due - clock_->Now());
    }
  }
  mu_.Unlock();
}

}  // namespace cairn::actor
