#include "actor/routing/router.h"

#include <algorithm>

namespace cairn::actor::routing {

bool Router::Route(const AnyMessage& message, const ActorRef& sender) const {
  if (routees_.empty()) return false;
  if (const auto* broadcast = message.As<Broadcast>()) {
    for (const Routee& r : routees_) r.Send(broadcast->message, sender);
    return true;
  }
  const std::vector<size_t> picked = logic_->Select(message, routees_);
  for (size_t i : picked) routees_[i].Send(message, sender);
  return !picked.empty();
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
