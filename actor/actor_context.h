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
namespace internal {
class ActorCell;
}  // namespace internal

// An actor's view of the runtime: its identity, its children, watching.
// Available as Actor::Context().
//
// Thread safety: only from within the actor's own message processing (its
// constructor, handlers and lifecycle hooks), like every Akka context.
//
// The runtime's actor cell is the only implementation, so the calls are
// plain (not virtual) and the context adds nothing to an actor's size.
class ActorContext {
 public:
  ActorContext(const ActorContext&) = delete;
  ActorContext& operator=(const ActorContext&) = delete;

  ActorRef Self() const;
  // The sender of the message being processed (NoSender if none).
  ActorRef Sender() const;
  ActorRef Parent() const;
  ActorSystem& System() const;
  const Props& GetProps() const;

  // Creates a child. An empty name generates one ($a, $b, ...). Throws
  // InvalidActorNameException for a bad name or one a living child holds.
  ActorRef ActorOf(const Props& props, std::string_view name = "");
  // Stops `ref` (a child, or Self()) after the message being processed:
  // its children stop first, then its PostStop runs.
  void Stop(const ActorRef& ref);

  // Sends Terminated to this actor when `subject` stops (at once if it
  // already has). Watching twice is watching once. Returns `subject`.
  ActorRef Watch(const ActorRef& subject);
  // No Terminated for `subject` after this, even one already queued.
  ActorRef Unwatch(const ActorRef& subject);

  std::vector<ActorRef> GetChildren() const;
  // The living child of that name, or NoSender.
  ActorRef Child(std::string_view name) const;

  // Actors by path, relative to this one (`child`, `../sibling`) or
  // absolute (`/user/a`).
  actor::ActorSelection ActorSelection(std::string_view path);

  // Sends ReceiveTimeout after `timeout` without messages; nullopt turns it
  // off. ReceiveTimeout itself does not reset the timer.
  void SetReceiveTimeout(std::optional<absl::Duration> timeout);
  std::optional<absl::Duration> GetReceiveTimeout() const;

 private:
  friend class internal::ActorCell;
  ActorContext() = default;
  ~ActorContext() = default;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_ACTOR_CONTEXT_H_
