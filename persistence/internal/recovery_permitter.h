#ifndef CAIRN_PERSISTENCE_INTERNAL_RECOVERY_PERMITTER_H_
#define CAIRN_PERSISTENCE_INTERNAL_RECOVERY_PERMITTER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "base/mutex.h"

namespace cairn::persistence::internal {

// Limits how many persistent actors recover at once
// (akka.persistence.max-concurrent-recoveries), so that a thousand actors
// starting together do not all replay at the same time. Requests are
// granted in arrival order.
//
// Thread safety: every method from any thread. `on_granted` runs without
// the lock held, on the thread of the Request or Return that granted it.
class RecoveryPermitter {
 public:
  explicit RecoveryPermitter(int max_permits) : free_(max_permits) {}

  // Takes a permit for `holder` (an id unique per actor incarnation) if one
  // is free and nobody waits; false otherwise (then Request it). Lets a
  // recovery go on in the same turn rather than by a message to itself.
  bool TryAcquire(uint64_t holder);

  // Asks for a permit for `holder`; `on_granted` runs once it is granted.
  void Request(uint64_t holder, std::function<void()> on_granted);

  // Gives back `holder`'s permit (granting it to the next in line), or
  // withdraws its request if it is still waiting. Nothing if neither.
  void Return(uint64_t holder);

  int free_permits() const {
    base::MutexLock lock(&mu_);
    return free_;
  }
  int waiting() const {
    base::MutexLock lock(&mu_);
    return static_cast<int>(waiting_.size());
  }

 private:
  mutable base::Mutex mu_;
  int free_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<uint64_t, std::function<void()>>> waiting_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<uint64_t> holders_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_INTERNAL_RECOVERY_PERMITTER_H_
