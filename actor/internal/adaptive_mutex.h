#ifndef CAIRN_ACTOR_INTERNAL_ADAPTIVE_MUTEX_H_
#define CAIRN_ACTOR_INTERNAL_ADAPTIVE_MUTEX_H_

#include <mutex>

namespace cairn::actor::internal {

// A mutex that tries for a short while before it sleeps. For critical
// sections much shorter than a futex sleep and wake-up (tens of
// microseconds on these machines), such as a hash-set insert: with a plain
// std::mutex, a thread spawning actors and the guardian erasing its
// terminated children spent a fifth of their time in futex calls.
//
// Built on std::mutex so that ThreadSanitizer sees it. Meets Lockable.
class AdaptiveMutex {
 public:
  void lock() {
    for (int i = 0; i < kTries; ++i) {
      if (mu_.try_lock()) return;
      Pause();
    }
    mu_.lock();
  }
  bool try_lock() { return mu_.try_lock(); }
  void unlock() { mu_.unlock(); }

 private:
  static constexpr int kTries = 64;

  static void Pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  std::mutex mu_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_ADAPTIVE_MUTEX_H_
