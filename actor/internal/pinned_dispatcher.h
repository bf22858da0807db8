#ifndef CAIRN_ACTOR_INTERNAL_PINNED_DISPATCHER_H_
#define CAIRN_ACTOR_INTERNAL_PINNED_DISPATCHER_H_

#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "actor/internal/dispatcher.h"
#include "base/mutex.h"

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
    base::Mutex mu;
    base::CondVar cv;
    std::vector<ActorCell*> runs ABSL_GUARDED_BY(mu);
    bool done ABSL_GUARDED_BY(mu) = false;
    std::thread thread;
  };
  static void Loop(Thread* t);

  base::Mutex mu_;
  std::map<ActorCell*, std::unique_ptr<Thread>> threads_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Thread>> finished_
      ABSL_GUARDED_BY(mu_);  // to join
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_PINNED_DISPATCHER_H_
