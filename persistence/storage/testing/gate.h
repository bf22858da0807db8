#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_GATE_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_GATE_H_

#include "base/mutex.h"

namespace cairn::persistence::testing {

// Holds threads at Wait() until the test calls Open(). It must outlive
// every thread that may wait at it.
//
// Thread safety: every method from any thread.
class Gate {
 public:
  Gate() = default;
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  void Open() {
    {
      base::MutexLock lock(&mu_);
      open_ = true;
    }
    opened_.SignalAll();
  }
  void Wait() {
    base::MutexLock lock(&mu_);
    while (!open_) opened_.Wait(&mu_);
  }

 private:
  base::Mutex mu_;
  base::CondVar opened_;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_GATE_H_
