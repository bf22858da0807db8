// ActorContext's calls, forwarded to the actor cell that implements them.
#include "actor/actor_context.h"

#include "actor/internal/actor_cell.h"

namespace cairn::actor {
namespace {

internal::ActorCell& Cell(ActorContext& context) {
  return static_cast<internal::ActorCell&>(context);
}
const internal::ActorCell& Cell(const ActorContext& context) {
  return static_cast<const internal::ActorCell&>(context);
}

}  // namespace

ActorRef ActorContext::Self() const { return Cell(*this).Self(); }
ActorRef ActorContext::Sender() const { return Cell(*this).Sender(); }
ActorRef ActorContext::Parent() const { return Cell(*this).Parent(); }
ActorSystem& ActorContext::System() const { return Cell(*this).System(); }
const Props& ActorContext::GetProps() const { return Cell(*this).GetProps(); }

ActorRef ActorContext::ActorOf(const Props& props, std::string_view name) {
  return Cell(*this).ActorOf(props, name);
}
void ActorContext::Stop(const ActorRef& ref) { Cell(*this).Stop(ref); }

ActorRef ActorContext::Watch(const ActorRef& subject) {
  return Cell(*this).Watch(subject);
}
ActorRef ActorContext::Unwatch(const ActorRef& subject) {
  return Cell(*this).Unwatch(subject);
}

std::vector<ActorRef> ActorContext::GetChildren() const {
  return Cell(*this).GetChildren();
}
ActorRef ActorContext::Child(std::string_view name) const {
  return Cell(*this).Child(name);
}

actor::ActorSelection ActorContext::ActorSelection(std::string_view path) {
  return Cell(*this).ActorSelection(path);
}

void ActorContext::SetReceiveTimeout(std::optional<absl::Duration> timeout) {
  Cell(*this).SetReceiveTimeout(timeout);
}
std::optional<absl::Duration> ActorContext::GetReceiveTimeout() const {
  return Cell(*this).GetReceiveTimeout();
}

}  // namespace cairn::actor
