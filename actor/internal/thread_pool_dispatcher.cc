#include "actor/internal/thread_pool_dispatcher.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "absl/time/time.h"
#include "base/cpu_pause.h"
#include "base/mutex.h"

namespace cairn::actor::internal {
namespace {

// The pool a thread works for, and its index there.
thread_local const ThreadPoolDispatcher* current_pool = nullptr;
thread_local int current_index = -1;

// Pause hints between two looks at the counters while polling (~1 us):
// reading another core's cache line on each would slow its writer.
constexpr int kPausesPerLook = 32;

// How often a parked worker looks for work nobody woke it for: first
// after kFirstParkedCheck, then twice as long each time nothing shows, up
// to kLastParkedCheck (an idle pool wakes about once a second per thread).
constexpr absl::Duration kFirstParkedCheck = absl::Milliseconds(10);
constexpr absl::Duration kLastParkedCheck = absl::Seconds(1);

// Fairness bounds (see the header): turns `next` may serve in a row while
// other cells wait, and how often a search starts at the injection queue
// (as Go's scheduler looks at its global queue every 61st schedule).
constexpr int kMaxNextRuns = 32;
constexpr unsigned kInjectCheckInterval = 61;

}  // namespace

ThreadPoolDispatcher::ThreadPoolDispatcher(ActorSystem* system, std::string id,
                                           int throughput, int threads,
                                           IdlePolicy idle)
    : Dispatcher(system, std::move(id), throughput), idle_policy_(idle) {
  threads = std::max(1, threads);
  for (int i = 0; i < threads; ++i) {
    workers_.push_back(std::make_unique<Worker>());
  }
  for (int i = 0; i < threads; ++i) {
    workers_[i]->thread = std::thread([this, i] { WorkerLoop(i); });
    pthread_setname_np(
        workers_[i]->thread.native_handle(),
        ThreadNameOf(this->id(), "-" + std::to_string(i)).c_str());
  }
}

ThreadPoolDispatcher::~ThreadPoolDispatcher() { Shutdown(); }

void ThreadPoolDispatcher::Push(Worker& self, ActorCell* cell) {
  base::MutexLock lock(&self.mu);
  self.queue.push_back(cell);
  self.queued.store(static_cast<int>(self.queue.size()),
                    std::memory_order_relaxed);
}

bool ThreadPoolDispatcher::OthersWait(Worker& self) {
  {
    base::MutexLock lock(&self.mu);
    if (!self.queue.empty()) return true;
  }
  base::MutexLock lock(&inject_mu_);
  return !inject_.empty();
}

void ThreadPoolDispatcher::PushBehindOthers(Worker& self, ActorCell* cell) {
  {
    base::MutexLock lock(&inject_mu_);
    if (!inject_.empty()) {
      inject_.push_back(cell);
      injected_.store(static_cast<int>(inject_.size()),
                      std::memory_order_relaxed);
      return;
    }
  }
  Push(self, cell);
}

ActorCell* ThreadPoolDispatcher::PopInjected() {
  base::MutexLock lock(&inject_mu_);
  if (inject_.empty()) return nullptr;
  ActorCell* cell = inject_.front();
  inject_.pop_front();
  injected_.store(static_cast<int>(inject_.size()), std::memory_order_relaxed);
  return cell;
}

void ThreadPoolDispatcher::Execute(ActorCell* cell) {
  if (current_pool == this) {
    Worker& self = *workers_[current_index];
    if (cell == self.running) {
      // The cell ended its turn with work left: the thread moves on to
      // whatever waits, if anything does.
      if (self.next == nullptr && !OthersWait(self)) {
        self.next = cell;
        return;
      }
      // No wake-up: the cell is not new work but this thread's own, back
      // after its turn. Waking a thief here split conversing actors (a
      // pair with many messages in flight) over two cores, each message
      // then crossing between them: 3.9M instead of 22M messages/s. A
      // waiting worker still sees it, and a parked one within its next
      // look (Park), should this thread's next turn be long or block.
      PushBehindOthers(self, cell);
      return;
    }
    ActorCell* displaced = std::exchange(self.next, cell);
    if (displaced == nullptr) return;
    Push(self, displaced);
  } else {
    bool pushed = false;
    {
      base::MutexLock lock(&inject_mu_);
      if (!stopped_.load(std::memory_order_relaxed)) {
        inject_.push_back(cell);
        injected_.store(static_cast<int>(inject_.size()),
                        std::memory_order_relaxed);
        pushed = true;
      }
    }
    if (!pushed) {
      ReleaseCell(cell);
      return;
    }
  }
  WakeOneIfNeeded();
}

void ThreadPoolDispatcher::WakeOneIfNeeded() {
  // Pairs with Park() without fences: a worker registers as parked (or
  // stops spinning), then looks for work under the queue locks; we pushed
  // under a queue lock, then read the counters. Whichever took the queue
  // lock second sees the other's step.
  if (spinning_.load(std::memory_order_seq_cst) > 0 ||
      parked_.load(std::memory_order_seq_cst) == 0) {
    return;
  }
  int index = -1;
  {
    base::MutexLock lock(&idle_mu_);
    if (idle_.empty()) return;
    index = idle_.back();
    idle_.pop_back();
    parked_.fetch_sub(1, std::memory_order_seq_cst);
  }
  Worker& w = *workers_[index];
  {
    base::MutexLock lock(&w.park_mu);
    w.wake = true;
  }
  w.park_cv.Signal();
}

ActorCell* ThreadPoolDispatcher::Steal(int thief) {
  const int n = static_cast<int>(workers_.size());
  for (int k = 1; k < n; ++k) {
    Worker& victim = *workers_[(thief + k) % n];
    base::MutexLock lock(&victim.mu);
    if (!victim.queue.empty()) {
      ActorCell* cell = victim.queue.front();
      victim.queue.pop_front();
      victim.queued.store(static_cast<int>(victim.queue.size()),
                          std::memory_order_relaxed);
      return cell;
    }
  }
  return nullptr;
}

ActorCell* ThreadPoolDispatcher::FindWork(int index) {
  Worker& self = *workers_[index];
  if (self.next != nullptr) {
    if (self.next_runs < kMaxNextRuns) {
      ++self.next_runs;
      return std::exchange(self.next, nullptr);
    }
    if (!OthersWait(self)) {  // looked at again kMaxNextRuns turns later
      self.next_runs = 1;
      return std::exchange(self.next, nullptr);
    }
    PushBehindOthers(self, std::exchange(self.next, nullptr));
  }
  self.next_runs = 0;
  if (++self.searches % kInjectCheckInterval == 0) {
    if (ActorCell* cell = PopInjected()) return cell;
  }
  {
    base::MutexLock lock(&self.mu);
    if (!self.queue.empty()) {
      ActorCell* cell = self.queue.front();
      self.queue.pop_front();
      self.queued.store(static_cast<int>(self.queue.size()),
                        std::memory_order_relaxed);
      return cell;
    }
  }
  if (ActorCell* cell = PopInjected()) return cell;
  return Steal(index);
}

void ThreadPoolDispatcher::Unpark(int index) {
  {
    base::MutexLock lock(&idle_mu_);
    auto it = std::find(idle_.begin(), idle_.end(), index);
    if (it != idle_.end()) {
      idle_.erase(it);
      parked_.fetch_sub(1, std::memory_order_seq_cst);
      return;
    }
  }
  // A producer already picked us; consume its wake-up.
  Worker& self = *workers_[index];
  base::MutexLock lock(&self.park_mu);
  while (!self.wake) self.park_cv.Wait(&self.park_mu);
  self.wake = false;
}

void ThreadPoolDispatcher::Park(int index) {
  Worker& self = *workers_[index];
  {
    base::MutexLock lock(&idle_mu_);
    idle_.push_back(index);
    parked_.fetch_add(1, std::memory_order_seq_cst);
  }
  // Work pushed before we registered would otherwise wait for another push.
  if (ActorCell* late = FindWork(index)) {
    Unpark(index);
    self.next = late;
    return;
  }
  // A parked worker looks now and then, less often the longer nothing
  // shows: a cell put back after its turn wakes nobody (Execute), so a
  // cell behind a long or blocking turn on another worker waits at most
  // this long for a thief.
  absl::Duration check = kFirstParkedCheck;
  while (true) {
    {
      base::MutexLock lock(&self.park_mu);
      while (!self.wake) {
        if (self.park_cv.WaitWithTimeout(&self.park_mu, check)) break;
      }
      if (self.wake) {
        self.wake = false;
        return;
      }
    }
    if (WorkVisible()) {
      Unpark(index);
      return;  // the worker loop takes it
    }
    check = std::min(check * 2, kLastParkedCheck);
  }
}

bool ThreadPoolDispatcher::WorkVisible() const {
  if (injected_.load(std::memory_order_relaxed) > 0) return true;
  for (const auto& w : workers_) {
    if (w->queued.load(std::memory_order_relaxed) > 0) return true;
  }
  return false;
}

ActorCell* ThreadPoolDispatcher::WaitForWork(int index) {
  // Pairs with WakeOneIfNeeded: while spinning_ counts this worker,
  // producers wake nobody, so the worker looks once more (in Park, under
  // the queue locks) after it stops counting.
  if (spinning_.fetch_add(1, std::memory_order_seq_cst) >=
      idle_policy_.max_waiters) {
    spinning_.fetch_sub(1, std::memory_order_seq_cst);
    return nullptr;
  }
  ActorCell* cell = nullptr;
  // The steady clock: a wall clock set back would stretch the wait.
  using SteadyClock = std::chrono::steady_clock;
  const SteadyClock::time_point poll_end =
      SteadyClock::now() + absl::ToChronoNanoseconds(idle_policy_.poll);
  const SteadyClock::time_point yield_end =
      poll_end + absl::ToChronoNanoseconds(idle_policy_.yield);
  while (!stopped_.load(std::memory_order_acquire)) {
    const SteadyClock::time_point now = SteadyClock::now();
    if (now >= yield_end) break;
    if (now < poll_end) {
      for (int i = 0; i < kPausesPerLook; ++i) base::CpuPause();
    } else {
      sched_yield();
    }
    if (WorkVisible() && (cell = FindWork(index)) != nullptr) break;
  }
  spinning_.fetch_sub(1, std::memory_order_seq_cst);
  // A waiter that found work passes the baton if more work waits, so that
  // it does not wait for the next producer (and only then: a wake-up per
  // reply that finds nothing costs the waker a futex call).
  if (cell != nullptr && WorkVisible()) WakeOneIfNeeded();
  return cell;
}

void ThreadPoolDispatcher::WorkerLoop(int index) {
  current_pool = this;
  current_index = index;
  while (!stopped_.load(std::memory_order_acquire)) {
    ActorCell* cell = FindWork(index);
    if (cell == nullptr) cell = WaitForWork(index);
    if (cell == nullptr) {
      if (stopped_.load(std::memory_order_acquire)) break;
      Park(index);
      continue;
    }
    workers_[index]->running = cell;
    RunCell(cell);
    workers_[index]->running = nullptr;
  }
  current_pool = nullptr;
  current_index = -1;
}

void ThreadPoolDispatcher::Shutdown() {
  std::call_once(shutdown_once_, [this] {
    {
      base::MutexLock lock(&inject_mu_);
      stopped_.store(true, std::memory_order_release);
    }
    for (auto& w : workers_) {
      {
        base::MutexLock lock(&w->park_mu);
        w->wake = true;
      }
      w->park_cv.Signal();
    }
    for (auto& w : workers_) w->thread.join();
    // The workers have ended: the locks below are uncontended, taken
    // because the analysis cannot know that.
    for (auto& w : workers_) {
      if (w->next != nullptr) ReleaseCell(w->next);
      std::deque<ActorCell*> queue;
      {
        base::MutexLock lock(&w->mu);
        queue.swap(w->queue);
      }
      for (ActorCell* cell : queue) ReleaseCell(cell);
    }
    std::deque<ActorCell*> injected;
    {
      base::MutexLock lock(&inject_mu_);
      injected.swap(inject_);
    }
    for (ActorCell* cell : injected) ReleaseCell(cell);
  });
}

}  // namespace cairn::actor::internal
