#include "actor/scheduler.h"

#include <utility>

namespace cairn::actor {

namespace internal {
struct TimerTask {
  std::function<void()> action;
  absl::Duration interval;  // zero for a one-off
  std::atomic<bool> cancelled{false};
  std::atomic<bool> fired{false};
};
}  // namespace internal

bool Cancellable::Cancel() {
  if (task_ == nullptr) return false;
  if (task_->interval == absl::ZeroDuration() && task_->fired.load()) {
    return false;
  }
  return !task_->cancelled.exchange(true);
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
    std::lock_guard<std::mutex> runner(run_mu_);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    while (!heap_.empty()) {
      dropped.push_back(heap_.top());
      heap_.pop();
    }
  }
  // Actions often hold what holds their Cancellable (an ask's reply target
  // holds its timeout): dropping them breaks such cycles.
  for (Entry& e : dropped) {
    e.task->cancelled = true;
    e.task->action = nullptr;
  }
  cv_.notify_all();
  if (clock_->IsManual()) clock_->RemoveAdvanceListener(listener_token_);
  if (thread_.joinable()) thread_.join();
}

void Scheduler::StopTimerThread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (timer_thread_stopped_) return;
    timer_thread_stopped_ = true;
  }
  cv_.notify_all();
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
  auto task = std::make_shared<internal::TimerTask>();
  task->interval = interval;
  if (delay < absl::ZeroDuration()) delay = absl::ZeroDuration();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) {
      // Never runs, so it keeps no action: an action often holds what
      // holds its Cancellable (an ask's promise), a cycle nothing would
      // break (Shutdown drops the actions of the tasks it holds).
      task->cancelled = true;
      return Cancellable(std::move(task));
    }
    task->action = std::move(action);
    heap_.push(Entry{clock_->Now() + delay, next_seq_++, task});
    // The timer thread sleeps until the earliest task is due: only a new
    // earliest one changes that. (A recovering persistent actor adds a
    // timer each; waking the thread for each cost ~5% of a recovery.)
    if (heap_.top().task != task) return Cancellable(std::move(task));
  }
  cv_.notify_all();
  return Cancellable(std::move(task));
}

void Scheduler::RunDueTasks() {
  std::lock_guard<std::mutex> runner(run_mu_);
  while (true) {
    std::shared_ptr<internal::TimerTask> task;
    bool repeated = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_ || heap_.empty() || heap_.top().due > clock_->Now()) return;
      Entry entry = heap_.top();
      heap_.pop();
      task = entry.task;
      repeated = task->interval > absl::ZeroDuration();
      if (!task->cancelled.load() && repeated) {
        heap_.push(Entry{entry.due + task->interval, next_seq_++, task});
      } else if (!repeated) {
        task->fired = true;
      }
    }
    // A task's action is only touched under run_mu_. A one-off's action is
    // dropped once done with: it often holds a reference to whoever holds
    // the Cancellable (an actor and its receive-timeout timer).
    if (task->cancelled.load()) {
      task->action = nullptr;
    } else if (repeated) {
      task->action();
    } else {
      std::function<void()> action = std::move(task->action);
      task->action = nullptr;
      action();
    }
  }
}

void Scheduler::TimerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopped_ && !timer_thread_stopped_) {
    if (!heap_.empty() && heap_.top().due <= clock_->Now()) {
      lock.unlock();
      RunDueTasks();
      lock.lock();
      continue;
    }
    if (heap_.empty() || clock_->IsManual()) {
      // A manual clock fires tasks from Advance(); new tasks wake us.
      cv_.wait(lock);
    } else {
      absl::Duration wait = heap_.top().due - clock_->Now();
      cv_.wait_for(lock, absl::ToChronoNanoseconds(wait));
    }
  }
}

}  // namespace cairn::actor
