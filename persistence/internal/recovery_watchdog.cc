#include "persistence/internal/recovery_watchdog.h"

#include <utility>
#include <vector>

namespace cairn::persistence::internal {

RecoveryWatchdog::RecoveryWatchdog(actor::Scheduler& scheduler, Tick tick)
    : scheduler_(scheduler),
      tick_(std::move(tick)),
      state_(std::make_shared<State>()) {}

RecoveryWatchdog::~RecoveryWatchdog() {
  base::MutexLock lock(&tasks_mu_);
  for (actor::Cancellable& task : tasks_) task.Cancel();
}

void RecoveryWatchdog::Watch(uint64_t instance, const actor::ActorRef& actor,
                             absl::Duration timeout) {
  const int64_t key = absl::ToInt64Nanoseconds(timeout);
  bool first = false;
  {
    base::MutexLock lock(&state_->mu);
    auto [group, made] = state_->watched.try_emplace(key);
    first = made;
    group->second.insert_or_assign(instance, actor);
  }
  if (!first) return;
  // Outside the lock: the scheduler's own lock is never taken inside ours.
  actor::Cancellable task = scheduler_.ScheduleRepeatedly(
      timeout, timeout,
      [state = std::weak_ptr<State>(state_), tick = tick_, key] {
        const std::shared_ptr<State> held = state.lock();
        if (held == nullptr) return;
        std::vector<std::pair<actor::ActorRef, uint64_t>> due;
        {
          base::MutexLock lock(&held->mu);
          const auto& group = held->watched[key];
          due.reserve(group.size());
          for (const auto& [watched, ref] : group) {
            due.emplace_back(ref, watched);
          }
        }
        for (const auto& [ref, watched] : due) tick(ref, watched);
      });
  base::MutexLock lock(&tasks_mu_);
  tasks_.push_back(std::move(task));
}

void RecoveryWatchdog::Unwatch(uint64_t instance, absl::Duration timeout) {
  base::MutexLock lock(&state_->mu);
  auto group = state_->watched.find(absl::ToInt64Nanoseconds(timeout));
  if (group != state_->watched.end()) group->second.erase(instance);
}

size_t RecoveryWatchdog::watched() const {
  base::MutexLock lock(&state_->mu);
  size_t n = 0;
  for (const auto& [timeout, group] : state_->watched) n += group.size();
  return n;
}

}  // namespace cairn::persistence::internal
