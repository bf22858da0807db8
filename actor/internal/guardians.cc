#include "actor/internal/guardians.h"

#include "actor/actor_system.h"
#include "actor/messages.h"

namespace cairn::actor::internal {

RootGuardian::RootGuardian() {
  Receive<Terminated>([this](const Terminated& t) {
    if (t.actor == user_) {
      Context().System().Terminate();
      Context().Stop(system_);
    } else if (t.actor == system_) {
      Context().Stop(Self());
    }
  });
}

void RootGuardian::PreStart() {
  user_ = Context().Watch(Context().Child("user"));
  system_ = Context().Watch(Context().Child("system"));
}

std::unique_ptr<actor::SupervisorStrategy> RootGuardian::SupervisorStrategy() {
  return actor::SupervisorStrategy::StoppingStrategy();
}

Guardian::Guardian(bool stopping_strategy)
    : stopping_strategy_(stopping_strategy) {}

std::unique_ptr<actor::SupervisorStrategy> Guardian::SupervisorStrategy() {
  return stopping_strategy_ ? actor::SupervisorStrategy::StoppingStrategy()
                            : actor::SupervisorStrategy::DefaultStrategy();
}

}  // namespace cairn::actor::internal
