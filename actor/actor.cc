#include "actor/actor.h"

#include <utility>

#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/actor_cell.h"
#include "actor/internal/system_access.h"
#include "actor/internal/system_settings.h"
#include "actor/messages.h"

namespace cairn::actor {
namespace {

// The behaviour whose handlers Receive declares on this thread, and for
// which actor: one slot per thread rather than a pointer in every actor,
// since a thread declares for one actor at a time.
struct DeclaringSlot {
  const Actor* actor = nullptr;
  internal::Behavior* behavior = nullptr;
};
thread_local DeclaringSlot declaring;

}  // namespace

struct Actor::BehaviorStack {
  std::vector<internal::Behavior> below;  // back() is the one under current
  std::vector<internal::Behavior> retired;
};

Actor::Actor() : cell_(internal::ActorCell::Constructing()) {
  if (cell_ == nullptr) {
    throw IllegalActorStateException(
        "an Actor can only be created by the runtime (ActorOf with Props)");
  }
  declaring = DeclaringSlot{this, &behavior_};
}

Actor::~Actor() = default;

internal::Behavior& Actor::Declaring() {
  if (declaring.actor != this) {
    throw IllegalActorStateException(
        "Receive may only be called in the constructor or inside Become");
  }
  return *declaring.behavior;
}

void Actor::EndDeclaring(bool returned) {
  if (returned && declaring.behavior != nullptr) {
    declaring.behavior->ShrinkToFit();
  }
  declaring = DeclaringSlot{};
}

void Actor::DeclareInto(internal::Behavior& behavior,
                        const std::function<void()>& declare) {
  // Inside the constructor, later Receive calls go on declaring the
  // current behaviour (the new one, once it is in place).
  const DeclaringSlot outer = declaring;
  declaring = DeclaringSlot{this, &behavior};
  try {
    declare();
  } catch (...) {
    declaring = outer;
    throw;
  }
  behavior.ShrinkToFit();
  declaring = outer;
}

void Actor::ClearRetired() { stack_->retired.clear(); }

ActorRef Actor::Self() const { return cell_->Self(); }
ActorRef Actor::Sender() const { return cell_->Sender(); }
ActorRef Actor::Parent() const { return cell_->Parent(); }

Actor::SenderOverride::SenderOverride(ActorRef sender)
    : sender_(std::move(sender)) {
  internal::OverrideSender(sender_.impl(), &previous_, &previous_set_);
}

Actor::SenderOverride::~SenderOverride() {
  internal::RestoreSender(previous_, previous_set_);
}

bool Actor::SystemMessagePending() const {
  return cell_->SystemMessagePending();
}

void Actor::ProcessAgainFirst() { cell_->ProcessCurrentAgainFirst(); }
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
  if (internal::SystemAccess::Settings(system).debug_unhandled) {
    system.Log(Self().Path().ToString())
        .Debug("unhandled message of type " + message.TypeName());
  }
  system.EventStream().Publish(UnhandledMessage{message, Sender(), Self()});
}

void Actor::ReceiveAny(std::function<void(const AnyMessage&)> handler) {
  Declaring().Add(internal::HandlerEntry(
      nullptr, false, [h = std::move(handler)](const internal::Payload& p) {
        p.AddRef();
        h(AnyMessage(&p));
        return true;
      }));
}

void Actor::Become(const std::function<void()>& declare) {
  internal::Behavior next;
  DeclareInto(next, declare);
  if (stack_ == nullptr) stack_ = std::make_unique<BehaviorStack>();
  // The handler running now may belong to the behaviour being replaced:
  // keep it alive until the message is done.
  stack_->retired.push_back(std::move(behavior_));
  behavior_ = std::move(next);
}

void Actor::BecomeStacked(const std::function<void()>& declare) {
  internal::Behavior next;
  DeclareInto(next, declare);
  if (stack_ == nullptr) stack_ = std::make_unique<BehaviorStack>();
  stack_->below.push_back(std::move(behavior_));
  behavior_ = std::move(next);
}

void Actor::Unbecome() {
  if (stack_ == nullptr || stack_->below.empty()) return;
  stack_->retired.push_back(std::move(behavior_));
  behavior_ = std::move(stack_->below.back());
  stack_->below.pop_back();
}

void Actor::Stash() {
  BeforeStash();
  cell_->StashCurrent();
}
void Actor::Unstash() { cell_->Unstash(/*all=*/false); }
void Actor::UnstashAll() { cell_->Unstash(/*all=*/true); }

TimerScheduler& Actor::Timers() { return cell_->Timers(); }

bool Actor::RunBehavior(const MessageView& message) {
  const internal::Payload& payload = message.payload();
  // Iterate over the handler array itself: a handler that calls Become
  // moves the Behavior object, not the array its handlers live in.
  internal::HandlerEntry* it = behavior_.begin();
  internal::HandlerEntry* const end = behavior_.end();
  const std::type_info& type = payload.type();
  for (; it != end; ++it) {
    if (it->MayTake(type) && (*it)(payload)) return true;
  }
  return false;
}

}  // namespace cairn::actor
