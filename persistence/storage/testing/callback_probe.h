#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_CALLBACK_PROBE_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_CALLBACK_PROBE_H_

#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"

namespace cairn::persistence::testing {

// Counts callbacks from plugin threads and notes what a test asserts about
// them: which thread ran them, whether they succeeded, in which order they
// came. Share it (std::shared_ptr) with the callbacks so that a late
// callback never touches a destroyed probe.
//
// Thread safety: every method may be called from any thread.
class CallbackProbe {
 public:
  // `caller`: the thread that makes the calls.
  explicit CallbackProbe(std::thread::id caller = std::this_thread::get_id())
      : caller_(caller) {}

  // Called by a callback: `tag` identifies the operation (e.g. its
  // submission index), `ok` its outcome.
  void Ran(int tag, bool ok) {
    base::MutexLock lock(&mu_);
    order_.push_back(tag);
    if (!ok) ++failed_;
    if (std::this_thread::get_id() == caller_) ++on_caller_;
    changed_.SignalAll();
  }

  // True once `count` callbacks ran; false if they did not within
  // `deadline`.
  bool WaitFor(size_t count, absl::Duration deadline = absl::Seconds(60)) {
    const absl::Time end = absl::Now() + deadline;
    base::MutexLock lock(&mu_);
    while (order_.size() < count) {
      if (changed_.WaitWithDeadline(&mu_, end)) return order_.size() >= count;
    }
    return true;
  }

  size_t ran() const {
    base::MutexLock lock(&mu_);
    return order_.size();
  }
  int failed() const {
    base::MutexLock lock(&mu_);
    return failed_;
  }
  // Callbacks that ran on the calling thread: a contract violation, as the
  // caller only ever runs them inside one of its calls.
  int on_caller() const {
    base::MutexLock lock(&mu_);
    return on_caller_;
  }
  // Tags in the order their callbacks ran.
  std::vector<int> order() const {
    base::MutexLock lock(&mu_);
    return order_;
  }

 private:
  const std::thread::id caller_;
  mutable base::Mutex mu_;
  base::CondVar changed_;
  std::vector<int> order_ ABSL_GUARDED_BY(mu_);
  int failed_ ABSL_GUARDED_BY(mu_) = 0;
  int on_caller_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_CALLBACK_PROBE_H_
