#ifndef CAIRN_PERSISTENCE_INTERNAL_OPENING_STORE_H_
#define CAIRN_PERSISTENCE_INTERNAL_OPENING_STORE_H_

#include <atomic>
#include <deque>
#include <memory>
#include <utility>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "base/status_copy.h"
#include "base/task_runner.h"

namespace cairn::persistence::internal {

// A journal or snapshot store (`Store`) opened on a thread of its own, with
// the calls made meanwhile held and handed over in order once it is open.
// Opening RocksDB replays its write-ahead log, which after a crash can take
// seconds; the first persistent actor to need the store must not block a
// dispatcher thread (nor every other actor behind a lock) for that long.
//
// A call is a function given the store, or nullptr and the open's error
// when it could not be opened. Calls run on the caller's thread once the
// store is open (the store's own methods return at once), and otherwise on
// the opening thread, never on the caller's thread inside Submit: a failure
// callback must not run inside the call that asked for it (the plugin
// contract). A failed open is not remembered: the next call starts another
// attempt (the store may have come back), so an actor restarted after a
// failure finds the store once it can be opened.
//
// Thread safety: Submit from any thread. The destructor waits for the open
// and the calls held for it, then destroys the store (which completes what
// it was given); submitting after the destructor started is undefined.
template <typename Store>
class OpeningStore {
 public:
  // Called once per attempt, on the opening thread.
  using Open = absl::AnyInvocable<absl::StatusOr<std::unique_ptr<Store>>()>;
  using Call =
      absl::AnyInvocable<void(Store* store, const absl::Status& error) &&>;

  explicit OpeningStore(Open open)
      : open_(std::move(open)), runner_(1, "cairn-open") {
    runner_.Post([this] { Attempt(); });
  }
  OpeningStore(const OpeningStore&) = delete;
  OpeningStore& operator=(const OpeningStore&) = delete;

  // The store once it is open; nullptr before, or while it cannot be.
  Store* Ready() const { return ready_.load(std::memory_order_acquire); }

  // Runs `call(store, OK)` now if the store is open (no allocation on
  // that path), else later as described above.
  template <typename F>
  void Submit(F&& call) {
    if (Store* store = Ready()) {
      std::forward<F>(call)(store, absl::OkStatus());
      return;
    }
    SubmitWhileNotOpen(Call(std::forward<F>(call)));
  }

 private:
  enum class State { kOpening, kOpen, kFailed };

  void SubmitWhileNotOpen(Call call) {
    {
      base::MutexLock lock(&mu_);
      switch (state_) {
        case State::kOpening:
          pending_.push_back(std::move(call));
          return;
        case State::kFailed:
          state_ = State::kOpening;
          pending_.push_back(std::move(call));
          runner_.Post([this] { Attempt(); });
          return;
        case State::kOpen:  // since Submit looked
          break;
      }
    }
    std::move(call)(Ready(), absl::OkStatus());
  }

  // On the opening thread: one attempt to open. On success the held calls
  // are handed over in order, including those submitted meanwhile; only
  // then do new calls go to the store directly. On failure the calls held
  // until now fail, and a call made after that starts another attempt.
  void Attempt() {
    absl::StatusOr<std::unique_ptr<Store>> opened = open_();
    if (!opened.ok()) {
      std::deque<Call> calls;
      {
        base::MutexLock lock(&mu_);
        state_ = State::kFailed;
        calls.swap(pending_);
      }
      for (Call& call : calls) {
        std::move(call)(nullptr, base::OwnCopy(opened.status()));
      }
      return;
    }
    store_ = *std::move(opened);
    for (;;) {
      std::deque<Call> calls;
      {
        base::MutexLock lock(&mu_);
        if (pending_.empty()) {
          state_ = State::kOpen;
          ready_.store(store_.get(), std::memory_order_release);
          return;
        }
        calls.swap(pending_);
      }
      for (Call& call : calls) std::move(call)(store_.get(), absl::OkStatus());
    }
  }

  Open open_;  // the opening thread's
  base::Mutex mu_;
  State state_ ABSL_GUARDED_BY(mu_) = State::kOpening;
  std::deque<Call> pending_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Store> store_;  // set once, by the opening thread
  std::atomic<Store*> ready_{nullptr};
  // Last: destroyed first, so the open and the calls it holds are done
  // before the store goes.
  base::TaskRunner runner_;
};

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_INTERNAL_OPENING_STORE_H_
