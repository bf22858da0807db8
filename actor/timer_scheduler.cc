#include "actor/timer_scheduler.h"

#include <algorithm>
#include <utility>

#include "actor/actor_system.h"
#include "actor/internal/actor_cell.h"

namespace cairn::actor {

TimerScheduler::~TimerScheduler() { CancelAll(); }

void TimerScheduler::Start(TimerKey key, AnyMessage message, Mode mode,
                           absl::Duration initial_delay,
                           absl::Duration interval) {
  Cancel(key);
  const uint64_t generation = next_generation_++;
  Timer timer{
      std::move(key),
      generation,
      mode,
      AnyMessage::Of(internal::TimerMessage{generation, std::move(message)}),
      interval,
      Cancellable()};
  timer.task = Schedule(timer, initial_delay);
  timers_.push_back(std::move(timer));
}

Cancellable TimerScheduler::Schedule(const Timer& timer, absl::Duration delay) {
  Scheduler& scheduler = cell_->System().Scheduler();
  // No sender, as in Akka: the actor sends itself the message, but a reply
  // to it would come back as a message nobody asked for.
  if (timer.mode == Mode::kFixedRate) {
    return scheduler.ScheduleTellRepeatedlyAny(
        delay, timer.interval, cell_->Self(), timer.message, ActorRef());
  }
  return scheduler.ScheduleTellOnceAny(delay, cell_->Self(), timer.message,
                                       ActorRef());
}

bool TimerScheduler::IsTimerActive(const TimerKey& key) const {
  return std::any_of(timers_.begin(), timers_.end(),
                     [&](const Timer& t) { return t.key == key; });
}

void TimerScheduler::Cancel(const TimerKey& key) {
  auto it = std::find_if(timers_.begin(), timers_.end(),
                         [&](const Timer& t) { return t.key == key; });
  if (it == timers_.end()) return;
  // Its message may be in the mailbox already: with the timer gone from
  // the list, Accept drops it.
  it->task.Cancel();
  timers_.erase(it);
}

void TimerScheduler::CancelAll() {
  for (Timer& t : timers_) t.task.Cancel();
  // Dropping the timers drops their messages and tasks, which hold a
  // reference to the cell that holds this scheduler.
  timers_.clear();
}

bool TimerScheduler::Accept(const internal::TimerMessage& message) {
  auto it = std::find_if(timers_.begin(), timers_.end(), [&](const Timer& t) {
    return t.generation == message.generation;
  });
  if (it == timers_.end()) return false;  // cancelled, replaced or done
  switch (it->mode) {
    case Mode::kSingle:
      timers_.erase(it);
      break;
    case Mode::kFixedDelay:
      it->task = Schedule(*it, it->interval);
      break;
    case Mode::kFixedRate:
      break;
  }
  return true;
}

}  // namespace cairn::actor
