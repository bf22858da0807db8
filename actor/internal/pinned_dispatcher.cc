#include "actor/internal/pinned_dispatcher.h"

#include <pthread.h>

namespace cairn::actor::internal {

PinnedDispatcher::~PinnedDispatcher() { Shutdown(); }

void PinnedDispatcher::Loop(Thread* t) {
  while (true) {
    std::vector<ActorCell*> runs;
    {
      base::MutexLock lock(&t->mu);
      while (!t->done && t->runs.empty()) t->cv.Wait(&t->mu);
      if (t->runs.empty()) return;  // done, nothing left
      runs.swap(t->runs);
    }
    for (ActorCell* cell : runs) RunCell(cell);
  }
}

void PinnedDispatcher::Attach(ActorCell* cell) {
  auto t = std::make_unique<Thread>();
  Thread* raw = t.get();
  base::MutexLock lock(&mu_);
  if (stopped_) return;
  raw->thread = std::thread([raw] { Loop(raw); });
  pthread_setname_np(raw->thread.native_handle(),
                     ThreadNameOf(id(), "").c_str());
  threads_.emplace(cell, std::move(t));
}

void PinnedDispatcher::Detach(ActorCell* cell) {
  base::MutexLock lock(&mu_);
  auto it = threads_.find(cell);
  if (it == threads_.end()) return;
  {
    base::MutexLock tl(&it->second->mu);
    it->second->done = true;
  }
  it->second->cv.Signal();
  finished_.push_back(std::move(it->second));
  threads_.erase(it);
}

void PinnedDispatcher::Execute(ActorCell* cell) {
  {
    base::MutexLock lock(&mu_);
    auto it = threads_.find(cell);
    if (it != threads_.end()) {
      {
        base::MutexLock tl(&it->second->mu);
        it->second->runs.push_back(cell);
      }
      it->second->cv.Signal();
      return;
    }
    if (stopped_) {
      ReleaseCell(cell);
      return;
    }
  }
  // The actor has stopped and its thread is gone: what is left is handing
  // late messages to dead letters, which any thread may do.
  RunCell(cell);
}

void PinnedDispatcher::Shutdown() {
  std::map<ActorCell*, std::unique_ptr<Thread>> threads;
  std::vector<std::unique_ptr<Thread>> finished;
  {
    base::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    threads.swap(threads_);
    finished.swap(finished_);
  }
  for (auto& [cell, t] : threads) {
    {
      base::MutexLock tl(&t->mu);
      t->done = true;
    }
    t->cv.Signal();
    finished.push_back(std::move(t));
  }
  for (auto& t : finished) {
    if (t->thread.joinable()) t->thread.join();
    std::vector<ActorCell*> runs;
    {
      base::MutexLock tl(&t->mu);  // uncontended: its thread has ended
      runs.swap(t->runs);
    }
    for (ActorCell* cell : runs) ReleaseCell(cell);
  }
}

}  // namespace cairn::actor::internal
