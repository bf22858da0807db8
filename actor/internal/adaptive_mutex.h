#ifndef CAIRN_ACTOR_INTERNAL_ADAPTIVE_MUTEX_H_
#define CAIRN_ACTOR_INTERNAL_ADAPTIVE_MUTEX_H_

#include <mutex>

#include "absl/base/thread_annotations.h"
#include "base/cpu_pause.h"

namespace cairn::actor::internal {

// A mutex that tries for a short while before it sleeps. For critical
// sections much shorter than a futex sleep and wake-up (tens of
// microseconds on these machines), such as a hash-set insert: with a plain
// std::mutex, a thread spawning actors and the guardian erasing its
// terminated children spent a fifth of their time in futex calls.
//
// Built on std::mutex so that ThreadSanitizer sees it. Annotated like
// base::Mutex (members it guards are ABSL_GUARDED_BY it); hold it with
// AdaptiveMutexLock.
class ABSL_LOCKABLE AdaptiveMutex {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    for (int i = 0; i < kTries; ++i) {
      if (mu_.try_lock()) return;
      base::CpuPause();
    }
    mu_.lock();
  }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }

 private:
  static constexpr int kTries = 64;

  std::mutex mu_;
};

// Holds `mu` from construction to destruction.
class ABSL_SCOPED_LOCKABLE AdaptiveMutexLock {
 public:
  explicit AdaptiveMutexLock(AdaptiveMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu)
      : mu_(mu) {
    mu_->Lock();
  }
  ~AdaptiveMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  AdaptiveMutexLock(const AdaptiveMutexLock&) = delete;
  AdaptiveMutexLock& operator=(const AdaptiveMutexLock&) = delete;

 private:
  AdaptiveMutex* const mu_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_ADAPTIVE_MUTEX_H_
