#ifndef CAIRN_BASE_MUTEX_H_
#define CAIRN_BASE_MUTEX_H_

#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "absl/base/thread_annotations.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace cairn::base {

// The mutex, lock and condition variable of cairn's classes: Abseil's
// names and thread-safety annotations over the standard library's
// primitives. Members a mutex protects are declared ABSL_GUARDED_BY(mu_),
// helpers that expect it held ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_), and
// clang's -Wthread-safety (`--config=clang-tsan`, docs/ARCHITECTURE.md
// "Locks are annotated") rejects an access without the lock.
//
// Why not absl::Mutex itself: Debian's Abseil is built without
// ThreadSanitizer, so TSan does not see absl::Mutex lock or unlock (they
// are atomics and futex calls inside the uninstrumented library) and
// reports every access it protects as a race. std::mutex goes through
// pthread calls that TSan intercepts. libstdc++'s std::mutex carries no
// annotations, hence these wrappers; the API is absl::Mutex's, so a later
// switch is a rename.
//
// A lambda is analysed as a separate function that holds no lock, so
// waits are written as loops over the guarded condition:
//   MutexLock lock(&mu_);
//   while (!done_) changed_.Wait(&mu_);

class CondVar;

// A non-recursive exclusive lock. Thread safety: all members may be called
// from any thread; Unlock only by the thread that locked.
class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  // Returns whether it took the lock (never blocks).
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) {
    return mu_.try_lock();
  }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` from construction to destruction.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Waits for a change another thread signals under the same Mutex. Like
// any condition variable it may wake without a signal: wait in a loop over
// the condition. Thread safety: all members may be called from any thread.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Releases `mu`, sleeps until signalled, takes `mu` again.
  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // `mu` stays held, as the caller expects
  }

  // As Wait, but for at most `timeout` (measured on the steady clock).
  // Returns true if the time ran out, false if signalled (absl::CondVar's
  // convention).
  bool WaitWithTimeout(Mutex* mu, absl::Duration timeout)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    // Beyond a century counts as forever: steady_clock::now() plus the
    // longest chrono duration would overflow.
    if (timeout > absl::Hours(24 * 365 * 100)) {
      Wait(mu);
      return false;
    }
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool timed_out =
        cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout)) ==
        std::cv_status::timeout;
    lock.release();
    return timed_out;
  }

  // As WaitWithTimeout, until `deadline`: the time left then, measured on
  // the steady clock.
  bool WaitWithDeadline(Mutex* mu, absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return WaitWithTimeout(mu, deadline == absl::InfiniteFuture()
                                   ? absl::InfiniteDuration()
                                   : deadline - absl::Now());
  }

  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

// A lock that many readers may hold at once, or one writer. Thread
// safety: as Mutex.
class ABSL_LOCKABLE ReaderWriterMutex {
 public:
  ReaderWriterMutex() = default;
  ReaderWriterMutex(const ReaderWriterMutex&) = delete;
  ReaderWriterMutex& operator=(const ReaderWriterMutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.lock_shared(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock_shared(); }
  bool ReaderTryLock() ABSL_SHARED_TRYLOCK_FUNCTION(true) {
    return mu_.try_lock_shared();
  }

 private:
  std::shared_mutex mu_;
};

// Holds `mu` exclusively from construction to destruction.
class ABSL_SCOPED_LOCKABLE WriterMutexLock {
 public:
  explicit WriterMutexLock(ReaderWriterMutex* mu)
      ABSL_EXCLUSIVE_LOCK_FUNCTION(mu)
      : mu_(mu) {
    mu_->Lock();
  }
  ~WriterMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  ReaderWriterMutex* const mu_;
};

// Holds `mu` shared from construction to destruction.
class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(ReaderWriterMutex* mu) ABSL_SHARED_LOCK_FUNCTION(mu)
      : mu_(mu) {
    mu_->ReaderLock();
  }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  ReaderWriterMutex* const mu_;
};

}  // namespace cairn::base

#endif  // CAIRN_BASE_MUTEX_H_
