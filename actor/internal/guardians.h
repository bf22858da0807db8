#ifndef CAIRN_ACTOR_INTERNAL_GUARDIANS_H_
#define CAIRN_ACTOR_INTERNAL_GUARDIANS_H_

#include <memory>

#include "actor/actor.h"

namespace cairn::actor::internal {

// `/`: watches /user and /system. When /user has stopped (Terminate, or it
// escalated a failure) it stops /system, then itself; its end ends the
// system. Its children that fail are stopped.
class RootGuardian final : public Actor {
 public:
  RootGuardian();
  void PreStart() override;
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override;

 private:
  ActorRef user_;
  ActorRef system_;
};

// `/user` and `/system`: parents of top-level actors, with a configured
// strategy. They handle no messages of their own.
class Guardian final : public Actor {
 public:
  explicit Guardian(bool stopping_strategy);
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override;

 private:
  bool stopping_strategy_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_GUARDIANS_H_
