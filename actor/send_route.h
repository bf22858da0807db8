#ifndef CAIRN_ACTOR_SEND_ROUTE_H_
#define CAIRN_ACTOR_SEND_ROUTE_H_

#include <cstdint>

#include "actor/actor_ref.h"
#include "actor/any_message.h"

namespace cairn::actor {

// A route that a Tell to an actor takes on the sender's thread, before the
// message is queued in the actor's mailbox (Props::WithSendRoute). It lets
// an actor whose work for most messages is to pass them on (Akka's routers
// route on the sender's thread the same way; cairn's sharding region sends
// a message straight to the region that hosts its shard) take a message
// itself and send it on, so that the message skips one mailbox and one
// turn of the actor.
//
// For each message sent to the actor, OnSend either takes it (it reaches
// the mailbox no more: the route has sent it on) or declines it: the
// message is queued as usual. A route keeps a sender's order by declining
// while a message it must follow is still queued: a decline may carry a
// token, a number the route chooses, and the actor's runtime calls
// Handled(token) once the actor has processed that message (after its
// handler returned or threw; a message the handler stashed counts as
// processed then, and is not counted again when unstashed). A declined
// message that a bounded mailbox refuses is Handled at once, on the
// sender's thread, before it goes to dead letters; one that the actor
// never processes because it stopped first is never Handled.
//
// What never reaches the route: system messages (Stop, Watch, ...), the
// messages the runtime handles itself (PoisonPill, Kill, Identify,
// selections, Terminated, timers' messages), and messages to an actor that
// has stopped (they go to dead letters).
//
// Thread safety: OnSend runs on the thread of whoever sends, concurrently
// with other senders and with the actor, and must not block, send to the
// actor itself, or use ActorContext (it is the sender's thread: Self() and
// Sender() there are the sender's). An exception from OnSend declines the
// message without a token: the sender's Tell never throws because of it.
// Handled runs on the actor's thread, between two of its messages (or on
// the sender's, for a message the mailbox refused).
// Ownership: the actor's cell shares the route; a route must not hold a
// reference to its own actor (a cycle).
class SendRoute {
 public:
  struct Decision {
    bool taken = false;
    uint32_t token = 0;  // with a decline; 0: none (Handled is not called)
  };
  static Decision Take() { return Decision{true, 0}; }
  static Decision Decline(uint32_t token = 0) { return Decision{false, token}; }

  virtual ~SendRoute() = default;

  // `message` sent by `sender` (ActorRef() for NoSender) to the actor.
  virtual Decision OnSend(const AnyMessage& message,
                          const ActorRef& sender) = 0;
  // The actor has processed a message declined with `token` (not 0).
  virtual void Handled(uint32_t token) = 0;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_SEND_ROUTE_H_
