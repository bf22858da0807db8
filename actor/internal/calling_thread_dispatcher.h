#ifndef CAIRN_ACTOR_INTERNAL_CALLING_THREAD_DISPATCHER_H_
#define CAIRN_ACTOR_INTERNAL_CALLING_THREAD_DISPATCHER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/future.h"
#include "actor/internal/calling_thread_runner.h"
#include "actor/internal/dispatcher.h"
#include "base/mutex.h"

namespace cairn::actor::internal {

// The run queue of the calling-thread test mode (CAF's deterministic test
// coordinator, Akka's CallingThreadDispatcher): mailboxes with work wait
// here in the order they became runnable, and run only when a test thread
// asks, one turn at a time. Every calling-thread dispatcher of a system
// shares the system's one queue, so the order is total.
//
// A turn is the mailbox's pending system messages (create, stop, watch,
// failure, ...) and then at most one user message: these dispatchers have a
// throughput of 1 whatever the config says, so "one turn" is "one message"
// and interleavings are exact. A mailbox with more work goes to the back.
//
// In a system with a calling-thread dispatcher the scheduler has no timer
// thread: due tasks fire at the start of every turn (RunOne) and, with a
// ManualClock, inside its Advance(). The thread that made the first such
// dispatcher (the one that called ActorSystem::Create, when it is the
// default) becomes the queue's driver: a Future::wait()/get() there runs
// the queue until the future completes, and throws std::logic_error when
// nothing is left to run and the future is still pending (an Ask whose
// reply never comes: with a ManualClock its timeout never fires either),
// unless the system is shutting down (then other threads, coordinated
// shutdown's and the terminating one, finish the work and the wait blocks).
//
// Ownership: shared by the dispatchers of one system.
// Thread safety: Push/Wake/Shutdown from any thread; RunOne/RunAll/RunUntil
// from the test's threads, one at a time, never from inside an actor.
class CallingThreadQueue final
    : public WaitDriver,
      public CallingThreadRunner,
      public std::enable_shared_from_this<CallingThreadQueue> {
 public:
  // The queue of `system`, made on first call.
  static std::shared_ptr<CallingThreadQueue> ForSystem(ActorSystem* system);
  // The queue of `system` if its default dispatcher is a calling-thread
  // one (the test mode), else null.
  static CallingThreadQueue* OfDefaultDispatcher(ActorSystem& system);

  explicit CallingThreadQueue(ActorSystem* system);
  ~CallingThreadQueue() override;

  // Takes the dispatcher's reference to `cell`.
  void Push(ActorCell* cell);
  // Releases the queued cells unrun; later pushes are released at once.
  void Shutdown();

  // Fires due timers, then runs one turn of the first runnable mailbox.
  // False if nothing was runnable. FailedPrecondition from inside an actor.
  absl::StatusOr<bool> RunOne() override;
  // Runs turns until nothing is runnable; returns how many ran. Fails with
  // ResourceExhausted when work is still there after `max_turns` turns (a
  // conversation that never ends) rather than spin forever.
  absl::StatusOr<int> RunAll(int max_turns) override;
  // Mailboxes waiting to run.
  size_t RunnableCount() const;

  // WaitDriver: runs turns (at most kMaxTurnsPerWait) until `done`.
  bool RunUntil(const std::function<bool()>& done,
                absl::Time deadline) override;
  void Wake() override;

  // Makes this thread the driver (see above), unless another queue alive
  // already drives it.
  void AdoptThisThread();

  // A bound on the turns of one blocking wait.
  static constexpr int kMaxTurnsPerWait = 1'000'000;

 private:
  bool ShuttingDown() const;

  ActorSystem* const system_;
  mutable base::Mutex mu_;
  base::CondVar cv_;
  std::deque<ActorCell*> cells_ ABSL_GUARDED_BY(mu_);
  uint64_t wakes_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

// A dispatcher with no threads: its mailboxes run in the system's
// CallingThreadQueue, on the test's thread. Config: `type =
// CallingThreadDispatcher` (throughput is always 1).
class CallingThreadDispatcher final : public Dispatcher {
 public:
  CallingThreadDispatcher(ActorSystem* system, std::string id);
  ~CallingThreadDispatcher() override;

  void Execute(ActorCell* cell) override;
  void Shutdown() override;

  CallingThreadQueue& queue() const { return *queue_; }

 private:
  std::shared_ptr<CallingThreadQueue> queue_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_CALLING_THREAD_DISPATCHER_H_
