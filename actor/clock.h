#ifndef CAIRN_ACTOR_CLOCK_H_
#define CAIRN_ACTOR_CLOCK_H_

#include <cstdint>
#include <functional>
#include <map>

#include "absl/time/time.h"
#include "base/mutex.h"

namespace cairn::actor {

// The source of time for the scheduler, receive timeouts and supervision
// windows. Now() is monotonic: only differences between readings mean
// anything (it is not wall-clock time).
//
// Thread safety: all methods may be called from any thread.
class Clock {
 public:
  virtual ~Clock() = default;

  virtual absl::Time Now() const = 0;

  // Clocks that tests move by hand call `listener` on the moving thread after
  // every move, so that a scheduler can fire what became due. Real clocks
  // never call it. Returns a token for RemoveAdvanceListener.
  virtual int64_t AddAdvanceListener(std::function<void()> listener) = 0;
  virtual void RemoveAdvanceListener(int64_t token) = 0;

  // True when time only moves through explicit calls (a test clock): timer
  // threads then wait for a listener call instead of for real time passing.
  virtual bool IsManual() const = 0;
};

// Real monotonic time (std::chrono::steady_clock). A process-wide instance.
class SystemClock final : public Clock {
 public:
  static SystemClock* Default();

  absl::Time Now() const override;
  int64_t AddAdvanceListener(std::function<void()>) override { return 0; }
  void RemoveAdvanceListener(int64_t) override {}
  bool IsManual() const override { return false; }
};

// Time that moves only when a test calls Advance(). Advance() runs the
// listeners (and so fires every timer that became due) before it returns:
// after `clock.Advance(d)`, every message scheduled within `d` has been sent.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(absl::Time start = absl::UnixEpoch()) : now_(start) {}

  absl::Time Now() const override;
  int64_t AddAdvanceListener(std::function<void()> listener) override;
  void RemoveAdvanceListener(int64_t token) override;
  bool IsManual() const override { return true; }

  // Moves time forward by `d` (negative durations are ignored) and runs the
  // listeners on the calling thread.
  void Advance(absl::Duration d);

 private:
  mutable base::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
  int64_t next_token_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<int64_t, std::function<void()>> listeners_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_CLOCK_H_
