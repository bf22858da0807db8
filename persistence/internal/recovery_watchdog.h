#ifndef CAIRN_PERSISTENCE_INTERNAL_RECOVERY_WATCHDOG_H_
#define CAIRN_PERSISTENCE_INTERNAL_RECOVERY_WATCHDOG_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/scheduler.h"
#include "base/mutex.h"

namespace cairn::persistence::internal {

// Ticks every recovering persistent actor every recovery-event-timeout, so
// that one that hears nothing from its stores for that long fails: one
// repeating scheduler task per timeout value for all of them, rather than
// one per recovery. Why: a timer per recovery cost a scheduler insertion
// and cancellation and four allocations per actor, a visible share of a
// small actor's recovery (issue 35: no per-actor repeating timer).
//
// A recovery watched just before a tick gets that tick at once, so the
// actor lets its first tick pass (it fails after one to two timeouts of
// silence, as it did with its own timer after the first).
//
// Costs: a timeout's recoveries are ticked in one burst on the scheduler's
// thread (other timers wait behind it), and its task runs as long as the
// watchdog, also with nothing to tick.
//
// Thread safety: every method from any thread. `tick` runs on the
// scheduler's thread, without the lock held. The ticks' tasks hold what
// they use, so they may outlive the watchdog (they stop with it).
class RecoveryWatchdog {
 public:
  // `tick(actor, instance)` is called for each watched recovery at each
  // tick of its timeout.
  using Tick = std::function<void(const actor::ActorRef&, uint64_t)>;

  // `scheduler` must outlive the watchdog.
  RecoveryWatchdog(actor::Scheduler& scheduler, Tick tick);
  ~RecoveryWatchdog();
  RecoveryWatchdog(const RecoveryWatchdog&) = delete;
  RecoveryWatchdog& operator=(const RecoveryWatchdog&) = delete;

  // Ticks `actor` for its recovery `instance` (unique per incarnation)
  // every `timeout` from now on, until Unwatch.
  void Watch(uint64_t instance, const actor::ActorRef& actor,
             absl::Duration timeout);
  // Stops ticking `instance` (watched with `timeout`); nothing if it is
  // not watched.
  void Unwatch(uint64_t instance, absl::Duration timeout);

  // How many recoveries are watched (for tests).
  size_t watched() const;

 private:
  // What the ticks' tasks share with the watchdog: the watched recoveries
  // by timeout (in nanoseconds), then by instance.
  struct State {
    mutable base::Mutex mu;
    absl::flat_hash_map<int64_t, absl::flat_hash_map<uint64_t, actor::ActorRef>>
        watched ABSL_GUARDED_BY(mu);
  };

  actor::Scheduler& scheduler_;
  const Tick tick_;
  const std::shared_ptr<State> state_;
  // One per timeout, scheduled while the watchdog lives (a tick of a
  // timeout with nothing watched costs a lock).
  base::Mutex tasks_mu_;
  std::vector<actor::Cancellable> tasks_ ABSL_GUARDED_BY(tasks_mu_);
};

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_INTERNAL_RECOVERY_WATCHDOG_H_
