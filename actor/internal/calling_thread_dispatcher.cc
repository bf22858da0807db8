#include "actor/internal/calling_thread_dispatcher.h"

#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/internal/system_access.h"
#include "base/mutex.h"

namespace cairn::actor::internal {
namespace {

// How deep this thread is inside turns it runs: a turn must not run
// others (the actor would see the world change under its feet, and a wait
// inside it would wait for itself).
thread_local int turn_depth = 0;

// The queue of each system that has one. Weak: the dispatchers own it.
base::Mutex registry_mu;
std::map<const ActorSystem*, std::weak_ptr<CallingThreadQueue>>& Registry()
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(registry_mu) {
  static auto* registry =
      new std::map<const ActorSystem*, std::weak_ptr<CallingThreadQueue>>();
  return *registry;
}

}  // namespace

std::shared_ptr<CallingThreadQueue> CallingThreadQueue::ForSystem(
    ActorSystem* system) {
  base::MutexLock lock(&registry_mu);
  std::weak_ptr<CallingThreadQueue>& slot = Registry()[system];
  if (std::shared_ptr<CallingThreadQueue> queue = slot.lock()) return queue;
  auto queue = std::make_shared<CallingThreadQueue>(system);
  slot = queue;
  return queue;
}

CallingThreadQueue* CallingThreadQueue::OfDefaultDispatcher(
    ActorSystem& system) {
  absl::StatusOr<Dispatcher*> dispatcher =
      SystemAccess::LookupDispatcher(system, "");
  if (!dispatcher.ok()) return nullptr;
  auto* calling = dynamic_cast<CallingThreadDispatcher*>(*dispatcher);
  return calling == nullptr ? nullptr : &calling->queue();
}

CallingThreadRunner* CallingThreadRunnerOf(ActorSystem& system) {
  return CallingThreadQueue::OfDefaultDispatcher(system);
}

CallingThreadQueue::CallingThreadQueue(ActorSystem* system) : system_(system) {
  // Timers fire on the thread that runs the actors, at known points.
  system_->Scheduler().StopTimerThread();
}

CallingThreadQueue::~CallingThreadQueue() {
  Shutdown();
  base::MutexLock lock(&registry_mu);
  auto it = Registry().find(system_);
  if (it != Registry().end() && it->second.expired()) Registry().erase(it);
}

void CallingThreadQueue::AdoptThisThread() {
  if (current_wait_driver.lock() != nullptr) return;
  current_wait_driver = weak_from_this();
}

void CallingThreadQueue::Push(ActorCell* cell) {
  {
    base::MutexLock lock(&mu_);
    if (!stopped_) {
      cells_.push_back(cell);
      cv_.SignalAll();
      return;
    }
  }
  ReleaseCell(cell);
}

void CallingThreadQueue::Shutdown() {
  std::deque<ActorCell*> dropped;
  {
    base::MutexLock lock(&mu_);
    stopped_ = true;
    dropped.swap(cells_);
    cv_.SignalAll();
  }
  for (ActorCell* cell : dropped) ReleaseCell(cell);
}

size_t CallingThreadQueue::RunnableCount() const {
  base::MutexLock lock(&mu_);
  return cells_.size();
}

absl::StatusOr<bool> CallingThreadQueue::RunOne() {
  if (turn_depth > 0) {
    return absl::FailedPreconditionError(
        "calling-thread dispatcher: cannot run mailboxes from inside an "
        "actor's turn (DispatchOne/DispatchAll or a blocking wait inside an "
        "actor)");
  }
  system_->Scheduler().FireDueTasks();
  ActorCell* cell = nullptr;
  {
    base::MutexLock lock(&mu_);
    if (cells_.empty()) return false;
    cell = cells_.front();
    cells_.pop_front();
  }
  ++turn_depth;
  RunCell(cell);
  --turn_depth;
  return true;
}

absl::StatusOr<int> CallingThreadQueue::RunAll(int max_turns) {
  int turns = 0;
  while (true) {
    if (turns >= max_turns) {
      if (RunnableCount() == 0) return turns;
      return absl::ResourceExhaustedError(absl::StrCat(
          "DispatchAll: still ", RunnableCount(),
          " mailbox(es) runnable after ", max_turns,
          " turns; actors that keep messaging each other forever (a "
          "ping-pong)?"));
    }
    absl::StatusOr<bool> ran = RunOne();
    if (!ran.ok()) return ran.status();
    if (!*ran) return turns;
    ++turns;
  }
}

void CallingThreadQueue::Wake() {
  base::MutexLock lock(&mu_);
  ++wakes_;
  cv_.SignalAll();
}

bool CallingThreadQueue::ShuttingDown() const {
  return SystemAccess::Terminating(*system_) ||
         system_->GetCoordinatedShutdown().ShutdownReason().has_value();
}

bool CallingThreadQueue::RunUntil(const std::function<bool()>& done,
                                  absl::Time deadline) {
  if (turn_depth > 0) {
    throw std::logic_error(
        "blocking on a future inside an actor that runs on the "
        "calling-thread dispatcher: it would wait for its own thread");
  }
  int turns = 0;
  while (true) {
    if (done()) return true;
    uint64_t wakes;
    {
      base::MutexLock lock(&mu_);
      wakes = wakes_;
    }
    absl::StatusOr<bool> ran = RunOne();
    if (!ran.ok()) throw std::logic_error(std::string(ran.status().message()));
    if (*ran) {
      if (++turns >= kMaxTurnsPerWait) {
        throw std::logic_error(absl::StrCat(
            "waiting on a future on the calling-thread dispatcher's thread: "
            "still not complete after ",
            turns, " turns; actors that keep messaging each other forever?"));
      }
      continue;
    }
    if (done()) return true;
    if (deadline == absl::InfiniteFuture() && !ShuttingDown()) {
      throw std::logic_error(
          "waiting on a future on the calling-thread dispatcher's thread: "
          "nothing is left to run and the future is not complete, so the "
          "wait would never end (advance the ManualClock, or send what it "
          "waits for, before waiting)");
    }
    // Only other threads can help now (coordinated shutdown's, the
    // terminating one): wait for them to queue work or complete the future
    // (its completion calls Wake).
    bool timed_out = false;
    {
      base::MutexLock lock(&mu_);
      while (cells_.empty() && wakes_ == wakes) {
        if (cv_.WaitWithDeadline(&mu_, deadline)) {
          timed_out = cells_.empty() && wakes_ == wakes;
          break;
        }
      }
    }
    if (timed_out) return done();
  }
}

CallingThreadDispatcher::CallingThreadDispatcher(ActorSystem* system,
                                                 std::string id)
    : Dispatcher(system, std::move(id), /*throughput=*/1),
      queue_(CallingThreadQueue::ForSystem(system)) {
  queue_->AdoptThisThread();
}

CallingThreadDispatcher::~CallingThreadDispatcher() { Shutdown(); }

void CallingThreadDispatcher::Execute(ActorCell* cell) { queue_->Push(cell); }

void CallingThreadDispatcher::Shutdown() { queue_->Shutdown(); }

}  // namespace cairn::actor::internal
