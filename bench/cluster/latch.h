#ifndef CAIRN_BENCH_CLUSTER_LATCH_H_
#define CAIRN_BENCH_CLUSTER_LATCH_H_

// Set once by a measuring actor when it is done; the benchmark's thread
// waits for it, then reads what the actor wrote. A base::Mutex rather than
// a std::promise: TSan sees its hand-off.

#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "bench/cluster/die.h"

namespace cairn::bench::cluster {

class Latch {
 public:
  void Set() {
    base::MutexLock lock(&mu_);
    set_ = true;
    cv_.SignalAll();
  }

  // Returns once Set; Dies, naming `what`, if it is not within `timeout`.
  void Await(const std::string& what, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    base::MutexLock lock(&mu_);
    while (!set_) {
      if (cv_.WaitWithDeadline(&mu_, deadline) && !set_) {
        Die(what + " did not happen within " + absl::FormatDuration(timeout));
      }
    }
  }

 private:
  base::Mutex mu_;
  base::CondVar cv_;
  bool set_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace cairn::bench::cluster

#endif  // CAIRN_BENCH_CLUSTER_LATCH_H_
