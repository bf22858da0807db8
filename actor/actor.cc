#include "actor/actor.h"

#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/actor_cell.h"
#include "actor/internal/system_settings.h"
#include "actor/messages.h"

namespace cairn::actor {

Actor::Actor() : cell_(internal::ActorCell::Constructing()) {
  if (cell_ == nullptr) {
    throw IllegalActorStateException(
        "an Actor can only be created by the runtime (ActorOf with Props)");
  }
  behaviors_.emplace_back();
  building_ = &behaviors_.back();
}

Actor::~Actor() = default;

ActorRef Actor::Self() const { return cell_->Self(); }
ActorRef Actor::Sender() const { return cell_->Sender(); }
ActorRef Actor::Parent() const { return cell_->Parent(); }
ActorContext& Actor::Context() const { return *cell_; }

void Actor::PreRestart(const std::exception_ptr&, const AnyMessage&) {
  for (const ActorRef& child : cell_->GetChildren()) cell_->Stop(child);
  PostStop();
}

void Actor::PostRestart(const std::exception_ptr&) { PreStart(); }

void Actor::StashInternally() { cell_->StashCurrent(/*internal=*/true); }
void Actor::UnstashOneInternally() { cell_->UnstashInternal(/*all=*/false); }
void Actor::UnstashAllInternally() { cell_->UnstashInternal(/*all=*/true); }
void Actor::UnstashThroughInternalStash() {
  cell_->UnstashThroughInternalStash();
}

std::unique_ptr<actor::SupervisorStrategy> Actor::SupervisorStrategy() {
  return actor::SupervisorStrategy::DefaultStrategy();
}

void Actor::Unhandled(const AnyMessage& message) {
  if (const Terminated* t = message.As<Terminated>()) {
    throw DeathPactException("monitored actor " + t->actor.Path().ToString() +
                             " terminated and " + Self().Path().ToString() +
                             " does not handle Terminated");
  }
  ActorSystem& system = cell_->System();
  if (system.settings().debug_unhandled) {
    system.Log(Self().Path().ToString())
        .Debug("unhandled message of type " + message.TypeName());
  }
  system.EventStream().Publish(UnhandledMessage{message, Sender(), Self()});
}

void Actor::ThrowNotDeclaring() {
  throw IllegalActorStateException(
      "Receive may only be called in the constructor or inside Become");
}

void Actor::ReceiveAny(std::function<void(const AnyMessage&)> handler) {
  if (building_ == nullptr) ThrowNotDeclaring();
  building_->push_back(internal::HandlerEntry{
      nullptr, false, [h = std::move(handler)](const internal::Payload& p) {
        p.AddRef();
        h(AnyMessage(&p));
        return true;
      }});
}

void Actor::Become(const std::function<void()>& declare) {
  const bool was_declaring = building_ != nullptr;
  internal::Behavior next;
  building_ = &next;
  declare();
  // The handler running now may belong to the behaviour being replaced:
  // keep it alive until the message is done.
  retired_.push_back(std::move(behaviors_.back()));
  behaviors_.back() = std::move(next);
  building_ = was_declaring ? &behaviors_.back() : nullptr;
}

void Actor::BecomeStacked(const std::function<void()>& declare) {
  const bool was_declaring = building_ != nullptr;
  internal::Behavior next;
  building_ = &next;
  declare();
  behaviors_.push_back(std::move(next));
  building_ = was_declaring ? &behaviors_.back() : nullptr;
}

void Actor::Unbecome() {
  if (behaviors_.size() <= 1) return;
  retired_.push_back(std::move(behaviors_.back()));
  behaviors_.pop_back();
}

void Actor::Stash() { cell_->StashCurrent(); }
void Actor::Unstash() { cell_->Unstash(/*all=*/false); }
void Actor::UnstashAll() { cell_->Unstash(/*all=*/true); }

bool Actor::Dispatch(const internal::Payload& payload) {
  // Iterate over the handler array itself: a handler that calls Become
  // moves the Behavior object, not the array its handlers live in.
  internal::HandlerEntry* it = behaviors_.back().data();
  internal::HandlerEntry* const end = it + behaviors_.back().size();
  const std::type_info& type = payload.type();
  for (; it != end; ++it) {
    if (it->type != nullptr && !it->base_match && it->type != &type &&
        *it->type != type) {
      continue;
    }
    if (it->handler(payload)) return true;
  }
  return false;
}

}  // namespace cairn::actor
