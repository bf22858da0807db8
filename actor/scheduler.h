#ifndef CAIRN_ACTOR_SCHEDULER_H_
#define CAIRN_ACTOR_SCHEDULER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/any_message.h"
#include "actor/clock.h"
#include "base/mutex.h"

namespace cairn::actor {

namespace internal {
struct TimerTask;
}

// A scheduled task that can be called off. Copies share the task.
// Thread safety: from any thread.
class Cancellable {
 public:
  Cancellable() = default;
  // Stops the task from running (again) and drops its action, with what
  // the action captured, at once (not when it would have been due). True
  // if this call cancelled it; false if it was already cancelled or was a
  // one-off that already ran. A run under way finishes.
  bool Cancel();
  bool IsCancelled() const;

 private:
  friend class Scheduler;
  explicit Cancellable(std::shared_ptr<internal::TimerTask> task)
      : task_(std::move(task)) {}
  std::shared_ptr<internal::TimerTask> task_;
};

// Runs tasks and sends messages later, driven by a Clock: one timer thread
// over a heap of deadlines for real time; with a ManualClock, tasks fire
// inside ManualClock::Advance on the calling thread.
// Actions run on the timer thread (or the advancing thread): keep them short.
//
// Thread safety: every method from any thread.
class Scheduler {
 public:
  // `clock` must outlive the scheduler.
  explicit Scheduler(Clock* clock);
  ~Scheduler();  // Shutdown()
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  Cancellable ScheduleOnce(absl::Duration delay, std::function<void()> action);
  // First after `initial_delay`, then every `interval` (fixed rate).
  Cancellable ScheduleRepeatedly(absl::Duration initial_delay,
                                 absl::Duration interval,
                                 std::function<void()> action);

  template <typename T>
  Cancellable ScheduleTellOnce(absl::Duration delay, const ActorRef& receiver,
                               T message, const ActorRef& sender = ActorRef()) {
    return ScheduleTellOnceAny(delay, receiver,
                               AnyMessage::Of(std::move(message)), sender);
  }
  template <typename T>
  Cancellable ScheduleTellRepeatedly(absl::Duration initial_delay,
                                     absl::Duration interval,
                                     const ActorRef& receiver, T message,
                                     const ActorRef& sender = ActorRef()) {
    return ScheduleTellRepeatedlyAny(initial_delay, interval, receiver,
                                     AnyMessage::Of(std::move(message)),
                                     sender);
  }
  Cancellable ScheduleTellOnceAny(absl::Duration delay,
                                  const ActorRef& receiver,
                                  const AnyMessage& message,
                                  const ActorRef& sender);
  Cancellable ScheduleTellRepeatedlyAny(absl::Duration initial_delay,
                                        absl::Duration interval,
                                        const ActorRef& receiver,
                                        const AnyMessage& message,
                                        const ActorRef& sender);

  Clock& clock() const { return *clock_; }

  // Tasks waiting for their due time, cancelled ones not yet dropped
  // included (they are dropped once they are about half the queue).
  size_t PendingTasks() const;

  // For the calling-thread test mode: stops the timer thread, so tasks fire
  // only on threads that ask for it: in FireDueTasks() and, with a manual
  // clock, in its Advance(). Call before any task is due. Idempotent.
  void StopTimerThread();
  // Fires, on the calling thread, every task that is due now.
  void FireDueTasks() { RunDueTasks(); }

  // Stops the timer thread; pending tasks never run. Idempotent.
  void Shutdown();

 private:
  struct Entry {
    absl::Time due;
    uint64_t seq;
    std::shared_ptr<internal::TimerTask> task;
    bool operator>(const Entry& o) const {
      return due != o.due ? due > o.due : seq > o.seq;
    }
  };

  static constexpr size_t kMinDropSize = 64;

  Cancellable Add(absl::Duration delay, absl::Duration interval,
                  std::function<void()> action);
  void DropCancelled() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RunDueTasks();
  void TimerLoop();

  Clock* clock_;
  int64_t listener_token_ = 0;
  mutable base::Mutex mu_;
  base::CondVar cv_;
  // A min-heap on (due, seq) (std::push_heap with std::greater), a vector
  // so cancelled entries can be dropped in bulk: a cancelled task keeps
  // its entry until due or dropped (see Add).
  std::vector<Entry> heap_ ABSL_GUARDED_BY(mu_);
  // The heap size that triggers DropCancelled.
  size_t drop_cancelled_at_ ABSL_GUARDED_BY(mu_) = kMinDropSize;
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  bool timer_thread_stopped_ ABSL_GUARDED_BY(mu_) = false;
  base::Mutex run_mu_;  // one thread fires tasks at a time, in order
  std::thread thread_;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_SCHEDULER_H_
