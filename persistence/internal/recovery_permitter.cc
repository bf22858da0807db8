#include "persistence/internal/recovery_permitter.h"

#include <algorithm>

#include "base/mutex.h"

namespace cairn::persistence::internal {

bool RecoveryPermitter::TryAcquire(uint64_t holder) {
  base::MutexLock lock(&mu_);
  if (free_ <= 0 || !waiting_.empty()) return false;
  --free_;
  holders_.insert(holder);
  return true;
}

void RecoveryPermitter::Request(uint64_t holder,
                                std::function<void()> on_granted) {
  {
    base::MutexLock lock(&mu_);
    if (free_ <= 0 || !waiting_.empty()) {
      waiting_.emplace_back(holder, std::move(on_granted));
      return;
    }
    --free_;
    holders_.insert(holder);
  }
  on_granted();
}

void RecoveryPermitter::Return(uint64_t holder) {
  std::function<void()> grant;
  {
    base::MutexLock lock(&mu_);
    if (holders_.erase(holder) == 0) {
      auto it = std::find_if(waiting_.begin(), waiting_.end(),
                             [&](const auto& w) { return w.first == holder; });
      if (it != waiting_.end()) waiting_.erase(it);
      return;
    }
    if (waiting_.empty()) {
      ++free_;
      return;
    }
    // The permit passes straight to the next in line.
    holders_.insert(waiting_.front().first);
    grant = std::move(waiting_.front().second);
    waiting_.pop_front();
  }
  grant();
}

}  // namespace cairn::persistence::internal
