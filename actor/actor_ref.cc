#include "actor/actor_ref.h"

#include "actor/internal/envelope.h"

namespace cairn::actor {

void ActorRef::TellAny(const AnyMessage& message,
                       const ActorRef& sender) const {
  if (impl_ == nullptr || message.empty()) return;
  message.payload()->AddRef();
  impl_->Deliver(new internal::SharedEnvelope(message.payload(), sender.impl_));
}

ActorPath ActorRef::Path() const {
  if (impl_ == nullptr) return ActorPath("nobody", {});
  return impl_->Path();
}

std::ostream& operator<<(std::ostream& os, const ActorRef& ref) {
  return os << "Actor[" << ref.Path().ToStringWithUid() << "]";
}

}  // namespace cairn::actor
