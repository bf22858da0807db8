#ifndef CAIRN_ACTOR_ROUTING_ROUTER_H_
#define CAIRN_ACTOR_ROUTING_ROUTER_H_

#include <memory>
#include <utility>
#include <vector>

#include "actor/actor_ref.h"
#include "actor/any_message.h"
#include "actor/routing/routee.h"
#include "actor/routing/routing_logic.h"

namespace cairn::actor::routing {

// Sent to a router: `message` goes to every routee, whatever the logic.
struct Broadcast {
  AnyMessage message;
};

// Management messages a router actor takes itself (never routed).
// GetRoutees is answered with Routees (in routing order).
struct GetRoutees {};
struct Routees {
  std::vector<Routee> routees;
};
// Adds a routee (any actor, also to a pool). Adding one twice adds it once.
struct AddRoutee {
  Routee routee;
};
// Removes a routee; a pool's child is stopped as well, as in Akka.
struct RemoveRoutee {
  Routee routee;
};
// Changes the size of a pool (Akka's AdjustPoolSize): a positive `change`
// adds that many new routees, a negative one removes that many (the ones
// listed last; a child is stopped, as with RemoveRoutee, so a pool without
// a resizer whose last routee goes stops). Within no bounds: a resizer
// only applies its own on its next resize. A group does not take it (it
// is unhandled: published as UnhandledMessage, as in Akka).
struct AdjustPoolSize {
  int change = 0;
};

// Routees and a logic, as Akka's Router: an immutable value whose With*
// calls return a changed copy. Used by the router actors of pools and
// groups, and usable in a user's own actor.
//
// Thread safety: a const value; Route may be called from any thread (the
// logic is shared by copies and guards its own state).
class Router {
 public:
  explicit Router(std::shared_ptr<RoutingLogic> logic,
                  std::vector<Routee> routees = {})
      : logic_(std::move(logic)), routees_(std::move(routees)) {}

  // Sends `message` to the routees the logic picks, keeping `sender`; a
  // Broadcast's message to every routee. Returns false, having sent
  // nothing, when there is no routee to take it (the caller sends it to
  // dead letters); with no routees at all, scatter-gather and
  // tail-chopping instead answer the sender at once with StatusFailure
  // (AskTimeoutException), as Akka does, and return true. `context`: the router
  // actor's, for logics that make actors of their own (scatter-gather,
  // tail-chopping); they throw std::logic_error without one.
  bool Route(const AnyMessage& message, const ActorRef& sender,
             ActorContext* context = nullptr) const;

  const std::vector<Routee>& routees() const { return routees_; }
  const std::shared_ptr<RoutingLogic>& logic() const { return logic_; }

  Router WithRoutees(std::vector<Routee> routees) const {
    return Router(logic_, std::move(routees));
  }
  // Appends `routee` unless it is there already.
  Router AddRoutee(const Routee& routee) const;
  // Drops every routee equal to `routee`.
  Router RemoveRoutee(const Routee& routee) const;

 private:
  std::shared_ptr<RoutingLogic> logic_;
  std::vector<Routee> routees_;
};

}  // namespace cairn::actor::routing

#endif  // CAIRN_ACTOR_ROUTING_ROUTER_H_
