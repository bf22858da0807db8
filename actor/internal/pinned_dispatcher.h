#ifndef CAIRN_ACTOR_INTERNAL_PINNED_DISPATCHER_H_
#define CAIRN_ACTOR_INTERNAL_PINNED_DISPATCHER_H_

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "actor/internal/dispatcher.h"

namespace cairn::actor::internal {

// One thread per actor, for actors that block (on I/O, on a library call):
// blocking there holds up nobody else.
class PinnedDispatcher final : public Dispatcher {
 public:
  PinnedDispatcher(ActorSystem* system, std::string id, int throughput)
      : Dispatcher(system, std::move(id), throughput) {}
  ~PinnedDispatcher() override;

  void Attach(ActorCell* cell) override;
  void Detach(ActorCell* cell) override;
  void Execute(ActorCell* cell) override;
  void Shutdown() override;

 private:
  struct Thread {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<ActorCell*> runs;  // guarded by mu
    bool done = false;             // guarded by mu
    std::thread thread;
  };
  static void Loop(Thread* t);

  std::mutex mu_;
  std::map<ActorCell*, std::unique_ptr<Thread>> threads_;
  std::vector<std::unique_ptr<Thread>> finished_;  // to join
  bool stopped_ = false;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_PINNED_DISPATCHER_H_
