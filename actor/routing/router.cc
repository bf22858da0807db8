#include "actor/routing/router.h"

#include <algorithm>

namespace cairn::actor::routing {

bool Router::Route(const AnyMessage& message, const ActorRef& sender,
                   ActorContext* context) const {
  if (routees_.empty()) {
    // Some logics answer the sender then.
    return !message.Is<Broadcast>() &&
           logic_->RouteWithoutRoutees(message, sender, context);
  }
  if (const auto* broadcast = message.As<Broadcast>()) {
    for (const Routee& r : routees_) r.Send(broadcast->message, sender);
    return true;
  }
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
