#ifndef CAIRN_ACTOR_INTERNAL_THREAD_POOL_DISPATCHER_H_
#define CAIRN_ACTOR_INTERNAL_THREAD_POOL_DISPATCHER_H_

#include <atomic>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "actor/internal/dispatcher.h"
#include "actor/internal/idle_policy.h"
#include "base/mutex.h"

namespace cairn::actor::internal {

// A fixed pool of workers sharing all actors of the dispatcher.
//
// Why it is shaped this way (facts measured on 2-core VMs: a lock-free queue
// push+pop is ~10 ns, waking a parked thread 35-40 us):
// - A cell scheduled by a worker goes to that worker's one-item `next` slot,
//   run as soon as the current turn ends, with no lock and no wake-up: an
//   actor replying to another keeps the conversation on one core.
// - Other work goes to the worker's deque, which idle workers steal from,
//   or to the shared injection queue when scheduled from outside the pool.
// - A worker that finds nothing waits as its IdlePolicy says (polling,
//   then yielding, each for a while) before it parks, and a producer wakes
//   a parked worker only when no worker is waiting so (a parked worker
//   also looks now and then by itself). A waiting worker
//   watches counters of queued cells, which it only reads, and takes a
//   queue's lock once one of them shows work: polling locks would take
//   the producers' cache lines from them.
// - Fairness (`throughput` means "then the thread moves on"): a cell that
//   ends its turn with work left goes behind the cells already waiting
//   (the injection queue's back if any wait there, else the worker's
//   deque's), and stays in `next` only when nothing else waits; `next`
//   serves at most kMaxNextRuns turns in a row while others wait (a
//   ping-pong pair would otherwise hold the thread forever); and every
//   kInjectCheckInterval-th search looks at the injection queue first, so
//   work from outside the pool is not starved by a deque that keeps
//   refilling itself.
class ThreadPoolDispatcher final : public Dispatcher {
 public:
  ThreadPoolDispatcher(ActorSystem* system, std::string id, int throughput,
                       int threads, IdlePolicy idle);
  ~ThreadPoolDispatcher() override;

  void Execute(ActorCell* cell) override;
  void Shutdown() override;

 private:
  struct Worker {
    base::Mutex mu;
    std::deque<ActorCell*> queue ABSL_GUARDED_BY(mu);  // owner and thieves
    std::atomic<int> queued{0};    // queue.size(), set under mu
    ActorCell* next = nullptr;     // owner only
    ActorCell* running = nullptr;  // owner only: the cell in its turn
    int next_runs = 0;             // owner only: turns in a row from `next`
    unsigned searches = 0;         // owner only
    base::Mutex park_mu;
    base::CondVar park_cv;
    bool wake ABSL_GUARDED_BY(park_mu) = false;
    std::thread thread;
  };

  void WorkerLoop(int index);
  ActorCell* FindWork(int index);
  // Waits for work as idle_ says; null if none came (or the pool stops).
  ActorCell* WaitForWork(int index);
  // Whether a counter shows a queued cell `index` could take.
  bool WorkVisible() const;
  ActorCell* Steal(int thief);
  // Sleeps until woken, or until work shows at one of its looks.
  void Park(int index);
  // Takes a parked (or parking) worker off the idle list; if a producer
  // took it off first, consumes that producer's wake-up.
  void Unpark(int index);
  void WakeOneIfNeeded();
  // Puts `cell` at the back of `self`'s deque.
  void Push(Worker& self, ActorCell* cell);
  // Whether any cell but `next` waits for `self` (its deque or injection).
  bool OthersWait(Worker& self);
  // Puts `cell` behind the cells waiting for `self`.
  void PushBehindOthers(Worker& self, ActorCell* cell);
  ActorCell* PopInjected();

  const IdlePolicy idle_policy_;
  std::vector<std::unique_ptr<Worker>> workers_;
  base::Mutex inject_mu_;
  std::deque<ActorCell*> inject_ ABSL_GUARDED_BY(inject_mu_);
  std::atomic<int> injected_{0};  // inject_.size(), set under inject_mu_
  std::atomic<int> spinning_{0};  // workers polling or yielding
  std::atomic<int> parked_{0};
  base::Mutex idle_mu_;
  std::vector<int> idle_ ABSL_GUARDED_BY(idle_mu_);  // parked workers
  std::atomic<bool> stopped_{false};
  std::once_flag shutdown_once_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_THREAD_POOL_DISPATCHER_H_
