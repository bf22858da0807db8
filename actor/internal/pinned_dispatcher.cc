#include "actor/internal/pinned_dispatcher.h"

namespace cairn::actor::internal {

PinnedDispatcher::~PinnedDispatcher() { Shutdown(); }

void PinnedDispatcher::Loop(Thread* t) {
  std::unique_lock<std::mutex> lock(t->mu);
  while (true) {
    t->cv.wait(lock, [&] { return t->done || !t->runs.empty(); });
    if (t->runs.empty()) return;  // done, nothing left
    std::vector<ActorCell*> runs;
    runs.swap(t->runs);
    lock.unlock();
    for (ActorCell* cell : runs) RunCell(cell);
    lock.lock();
  }
}

void PinnedDispatcher::Attach(ActorCell* cell) {
  auto t = std::make_unique<Thread>();
  Thread* raw = t.get();
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return;
  raw->thread = std::thread([raw] { Loop(raw); });
  threads_.emplace(cell, std::move(t));
}

void PinnedDispatcher::Detach(ActorCell* cell) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = threads_.find(cell);
  if (it == threads_.end()) return;
  {
    std::lock_guard<std::mutex> tl(it->second->mu);
    it->second->done = true;
  }
  it->second->cv.notify_one();
  finished_.push_back(std::move(it->second));
  threads_.erase(it);
}

void PinnedDispatcher::Execute(ActorCell* cell) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = threads_.find(cell);
    if (it != threads_.end()) {
      {
        std::lock_guard<std::mutex> tl(it->second->mu);
        it->second->runs.push_back(cell);
      }
      it->second->cv.notify_one();
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
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    threads.swap(threads_);
    finished.swap(finished_);
  }
  for (auto& [cell, t] : threads) {
    {
      std::lock_guard<std::mutex> tl(t->mu);
      t->done = true;
    }
    t->cv.notify_one();
    finished.push_back(std::move(t));
  }
  for (auto& t : finished) {
    if (t->thread.joinable()) t->thread.join();
    for (ActorCell* cell : t->runs) ReleaseCell(cell);
  }
}

}  // namespace cairn::actor::internal
