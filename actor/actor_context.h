#ifndef CAIRN_ACTOR_ACTOR_CONTEXT_H_
#define CAIRN_ACTOR_ACTOR_CONTEXT_H_

#include <optional>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/actor_selection.h"
#include "actor/props.h"

namespace cairn::actor {

class ActorSystem;

// An actor's view of the runtime: its identity, its children, watching.
// Available as Actor::Context().
//
// Thread safety: only from within the actor's own message processing (its
// constructor, handlers and lifecycle hooks), like every Akka context.
class ActorContext {
 public:
  virtual ~ActorContext() = default;

  virtual ActorRef Self() const = 0;
  // The sender of the message being processed (NoSender if none).
  virtual ActorRef Sender() const = 0;
  virtual ActorRef Parent() const = 0;
  virtual ActorSystem& System() const = 0;
  virtual const Props& GetProps() const = 0;

  // Creates a child. An empty name generates one ($a, $b, ...). Throws
  // InvalidActorNameException for a bad name or one a living child holds.
  virtual ActorRef ActorOf(const Props& props, std::string_view name = "") = 0;
  // Stops `ref` (a child, or Self()) after the message being processed:
  // its children stop first, then its PostStop runs.
  virtual void Stop(const ActorRef& ref) = 0;

  // Sends Terminated to this actor when `subject` stops (at once if it
  // already has). Watching twice is watching once. Returns `subject`.
  virtual ActorRef Watch(const ActorRef& subject) = 0;
  // No Terminated for `subject` after this, even one already queued.
  virtual ActorRef Unwatch(const ActorRef& subject) = 0;

  virtual std::vector<ActorRef> GetChildren() const = 0;
  // The living child of that name, or NoSender.
  virtual ActorRef Child(std::string_view name) const = 0;

  // Actors by path, relative to this one (`child`, `../sibling`) or
  // absolute (`/user/a`).
  virtual actor::ActorSelection ActorSelection(std::string_view path) = 0;

  // Sends ReceiveTimeout after `timeout` without messages; nullopt turns it
  // off. ReceiveTimeout itself does not reset the timer.
  virtual void SetReceiveTimeout(std::optional<absl::Duration> timeout) = 0;
  virtual std::optional<absl::Duration> GetReceiveTimeout() const = 0;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_ACTOR_CONTEXT_H_
