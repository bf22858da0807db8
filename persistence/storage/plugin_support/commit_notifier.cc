#include "persistence/storage/plugin_support/commit_notifier.h"

#include <utility>
#include <vector>

#include "base/mutex.h"

namespace cairn::persistence::plugin_support {

uint64_t CommitNotifier::Generation() const {
  base::MutexLock lock(&mu_);
  return generation_;
}

CommitNotifier::Ticket CommitNotifier::Wait(uint64_t seen, Waiter waiter) {
  {
    base::MutexLock lock(&mu_);
    if (generation_ == seen) {
      const Ticket ticket = next_ticket_++;
      waiters_.emplace(ticket, std::move(waiter));
      return ticket;
    }
  }
  std::move(waiter)();
  return 0;
}

CommitNotifier::Waiter CommitNotifier::Cancel(Ticket ticket) {
  base::MutexLock lock(&mu_);
  auto it = waiters_.find(ticket);
  if (it == waiters_.end()) return nullptr;
  Waiter waiter = std::move(it->second);
  waiters_.erase(it);
  return waiter;
}

void CommitNotifier::Notify() {
  std::map<Ticket, Waiter> ready;
  {
    base::MutexLock lock(&mu_);
    ++generation_;
    ready.swap(waiters_);
  }
  for (auto& [ticket, waiter] : ready) std::move(waiter)();
}

}  // namespace cairn::persistence::plugin_support
