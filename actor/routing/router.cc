#include "actor/routing/router.h"

#include <algorithm>

namespace cairn::actor::routing {

bool Router::Route(const AnyMessage& message, const ActorRef& sender,
                   ActorContext* context) const {
  if (const auto* broadcast = message.As<Broadcast>()) {
    for (const Routee& r : routees_) r.Send(broadcast->message, sender);
    return !routees_.empty();
  }
  // Also without routees: some logics answer the sender then.
  return logic_->Route(message, sender, routees_, context);
}

Router Router::AddRoutee(const Routee& routee) const {
  std::vector<Routee> routees = routees_;
  if (std::find(routees.begin(), routees.end(), routee) == routees.end()) {
    routees.push_back(routee);
  }
  return Router(logic_, std::move(routees));
}

Router Router::RemoveRoutee(const Routee& routee) const {
  std::vector<Routee> routees = routees_;
  routees.erase(std::remove(routees.begin(), routees.end(), routee),
                routees.end());
  return Router(logic_, std::move(routees));
}

}  // namespace cairn::actor::routing
