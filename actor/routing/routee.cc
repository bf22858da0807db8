#include "actor/routing/routee.h"

namespace cairn::actor::routing {

void Routee::Send(const AnyMessage& message, const ActorRef& sender) const {
  if (selection_.has_value()) {
    selection_->TellAny(message, sender);
  } else {
    ref_.TellAny(message, sender);
  }
}

std::string Routee::ToString() const {
  return selection_.has_value() ? selection_->ToString()
                                : ref_.Path().ToString();
}

}  // namespace cairn::actor::routing
