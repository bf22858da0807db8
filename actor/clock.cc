#include "actor/clock.h"

#include <chrono>
#include <vector>

#include "base/mutex.h"

namespace cairn::actor {

SystemClock* SystemClock::Default() {
  static SystemClock* clock = new SystemClock();
  return clock;
}

absl::Time SystemClock::Now() const {
  return absl::UnixEpoch() +
         absl::FromChrono(std::chrono::steady_clock::now().time_since_epoch());
}

absl::Time ManualClock::Now() const {
  base::MutexLock lock(&mu_);
  return now_;
}

int64_t ManualClock::AddAdvanceListener(std::function<void()> listener) {
  base::MutexLock lock(&mu_);
  int64_t token = next_token_++;
  listeners_.emplace(token, std::move(listener));
  return token;
}

void ManualClock::RemoveAdvanceListener(int64_t token) {
  base::MutexLock lock(&mu_);
  listeners_.erase(token);
}

void ManualClock::Advance(absl::Duration d) {
  std::vector<std::function<void()>> to_call;
  {
    base::MutexLock lock(&mu_);
    if (d > absl::ZeroDuration()) now_ += d;
    for (auto& [token, listener] : listeners_) to_call.push_back(listener);
  }
  // Called without the lock: a listener reads Now() and may schedule more.
  for (auto& listener : to_call) listener();
}

}  // namespace cairn::actor
