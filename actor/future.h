#ifndef CAIRN_ACTOR_FUTURE_H_
#define CAIRN_ACTOR_FUTURE_H_

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"

namespace cairn::actor {

namespace internal {
template <typename T>
struct FutureState {
  using Stored = std::conditional_t<std::is_void_v<T>, std::monostate, T>;
  base::Mutex mu;
  base::CondVar cv;
  // Written once, under mu, before `done` is set; read-only after, so
  // readers that saw `done` need no lock.
  std::optional<Stored> value;
  std::exception_ptr error;
  bool done ABSL_GUARDED_BY(mu) = false;
  std::vector<std::function<void()>> callbacks ABSL_GUARDED_BY(mu);
};

// A thread that runs actors itself (the calling-thread test mode, see
// internal/calling_thread_dispatcher.h) would wait for itself if it blocked
// on a future: while it waits, it runs their work instead.
class WaitDriver {
 public:
  virtual ~WaitDriver() = default;
  // Runs work on this thread until `done()` holds (true) or `deadline`
  // passes (false). Throws std::logic_error when the wait could never end
  // (nothing left to run, or called from inside an actor it runs).
  virtual bool RunUntil(const std::function<bool()>& done,
                        absl::Time deadline) = 0;
  // A future it waits on has completed (on any thread).
  virtual void Wake() = 0;
};
// The driver of this thread, if any (set by the calling-thread dispatcher).
inline thread_local std::weak_ptr<WaitDriver> current_wait_driver;
}  // namespace internal

template <typename T>
class Promise;

// The result of an asynchronous operation (Ask, GracefulStop, Terminate):
// a value of type T, or an exception. Shared: copies see the same result.
// Named like std::shared_future (get/wait/wait_for) so it reads the same.
//
// Thread safety: every method from any thread.
template <typename T>
class Future {
 public:
  using GetResult = typename std::conditional_t<
      std::is_void_v<T>, std::type_identity<void>,
      std::add_lvalue_reference<std::add_const_t<T>>>::type;

  Future() = default;

  // Blocks until done; returns the value or rethrows the failure.
  GetResult get() const {
    wait();
    if (state_->error) std::rethrow_exception(state_->error);
    if constexpr (!std::is_void_v<T>) return *state_->value;
  }
  // On the thread that drives a calling-thread dispatcher, waiting runs
  // that dispatcher's work (and throws std::logic_error if the future could
  // never complete); see internal/calling_thread_dispatcher.h.
  void wait() const {
    if (DriveUntil(absl::InfiniteFuture())) return;
    base::MutexLock lock(&state_->mu);
    while (!state_->done) state_->cv.Wait(&state_->mu);
  }
  // True if done within `timeout`.
  bool wait_for(absl::Duration timeout) const {
    if (DriveUntil(absl::Now() + timeout)) return is_ready();
    const absl::Time deadline = absl::Now() + timeout;
    base::MutexLock lock(&state_->mu);
    while (!state_->done) {
      if (state_->cv.WaitWithDeadline(&state_->mu, deadline)) {
        return state_->done;
      }
    }
    return true;
  }
  bool is_ready() const {
    base::MutexLock lock(&state_->mu);
    return state_->done;
  }
  bool valid() const { return state_ != nullptr; }

  // Runs `callback(future)` once done: at once on this thread if it already
  // is, else on the thread that completes it. Keep it short.
  void OnComplete(std::function<void(const Future<T>&)> callback) const {
    {
      base::MutexLock lock(&state_->mu);
      if (!state_->done) {
        state_->callbacks.push_back(
            [f = *this, cb = std::move(callback)] { cb(f); });
        return;
      }
    }
    callback(*this);
  }
  // The failure, or nullptr (only meaningful once ready).
  std::exception_ptr error() const {
    base::MutexLock lock(&state_->mu);
    return state_->error;
  }

 private:
  friend class Promise<T>;
  explicit Future(std::shared_ptr<internal::FutureState<T>> state)
      : state_(std::move(state)) {}

  // False when this thread has no driver (or the future is done): then
  // the caller blocks as usual. True once the driver has waited.
  bool DriveUntil(absl::Time deadline) const {
    std::shared_ptr<internal::WaitDriver> driver =
        internal::current_wait_driver.lock();
    if (driver == nullptr || is_ready()) return false;
    {
      // Not OnComplete: its callback holds the future, a cycle if the
      // future never completes.
      base::MutexLock lock(&state_->mu);
      if (!state_->done) {
        state_->callbacks.push_back(
            [weak = std::weak_ptr<internal::WaitDriver>(driver)] {
              if (std::shared_ptr<internal::WaitDriver> d = weak.lock()) {
                d->Wake();
              }
            });
      }
    }
    driver->RunUntil([this] { return is_ready(); }, deadline);
    return true;
  }

  std::shared_ptr<internal::FutureState<T>> state_;
};

// The writing side of a Future. Completing twice is allowed; the first wins
// (the Try* methods say whether it did).
template <typename T>
class Promise {
 public:
  Promise() : state_(std::make_shared<internal::FutureState<T>>()) {}

  Future<T> GetFuture() const { return Future<T>(state_); }

  template <typename... V>
  bool TrySetValue(V&&... value) {
    return Complete([&](internal::FutureState<T>& s) {
      s.value.emplace(std::forward<V>(value)...);
    });
  }
  bool TrySetException(std::exception_ptr error) {
    return Complete([&](internal::FutureState<T>& s) { s.error = error; });
  }

 private:
  template <typename F>
  bool Complete(F&& fill) {
    std::vector<std::function<void()>> callbacks;
    {
      base::MutexLock lock(&state_->mu);
      if (state_->done) return false;
      fill(*state_);
      state_->done = true;
      callbacks.swap(state_->callbacks);
    }
    state_->cv.SignalAll();
    for (auto& cb : callbacks) cb();
    return true;
  }

  std::shared_ptr<internal::FutureState<T>> state_;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_FUTURE_H_
