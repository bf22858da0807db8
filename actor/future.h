#ifndef CAIRN_ACTOR_FUTURE_H_
#define CAIRN_ACTOR_FUTURE_H_

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/time/time.h"

namespace cairn::actor {

namespace internal {
template <typename T>
struct FutureState {
  using Stored = std::conditional_t<std::is_void_v<T>, std::monostate, T>;
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Stored> value;
  std::exception_ptr error;
  bool done = false;
  std::vector<std::function<void()>> callbacks;
};
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
  void wait() const {
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->cv.wait(lock, [&] { return state_->done; });
  }
  // True if done within `timeout`.
  bool wait_for(absl::Duration timeout) const {
    std::unique_lock<std::mutex> lock(state_->mu);
    return state_->cv.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                               [&] { return state_->done; });
  }
  bool is_ready() const {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->done;
  }
  bool valid() const { return state_ != nullptr; }

  // Runs `callback(future)` once done: at once on this thread if it already
  // is, else on the thread that completes it. Keep it short.
  void OnComplete(std::function<void(const Future<T>&)> callback) const {
    std::unique_lock<std::mutex> lock(state_->mu);
    if (!state_->done) {
      state_->callbacks.push_back(
          [f = *this, cb = std::move(callback)] { cb(f); });
      return;
    }
    lock.unlock();
    callback(*this);
  }
  // The failure, or nullptr (only meaningful once ready).
  std::exception_ptr error() const {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->error;
  }

 private:
  friend class Promise<T>;
  explicit Future(std::shared_ptr<internal::FutureState<T>> state)
      : state_(std::move(state)) {}

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
      std::lock_guard<std::mutex> lock(state_->mu);
      if (state_->done) return false;
      fill(*state_);
      state_->done = true;
      callbacks.swap(state_->callbacks);
    }
    state_->cv.notify_all();
    for (auto& cb : callbacks) cb();
    return true;
  }

  std::shared_ptr<internal::FutureState<T>> state_;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_FUTURE_H_
