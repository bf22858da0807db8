#ifndef CAIRN_ACTOR_CONTROL_MESSAGE_H_
#define CAIRN_ACTOR_CONTROL_MESSAGE_H_

namespace cairn::actor {

// Control messages (Akka's ControlMessage with a ControlAwareMailbox, here
// in every mailbox): a message of a type declared one is processed ahead
// of the ordinary messages already waiting in the recipient's mailbox,
// right after the message being processed, the system messages waiting and
// the messages the actor has put back in front (unstashed, or put back with
// ProcessAgainFirst). Control messages keep their order among themselves
// (the order in which they reached the mailbox). They go around a bounded
// or priority mailbox's queue, so neither its capacity nor its priority
// applies to them. A send route (a router's, a sharding region's) sees
// them first like any other message. Only a message told directly is
// one: sent through an ActorSelection, or as a timer's message, it is an
// ordinary message. While the actor is suspended, or before it starts,
// they wait like any other message; to a stopped actor they are dead
// letters.
//
// For replies that make a busy actor's queued work cheaper or unblock it
// (a persistent actor's journal replies are control messages), not for
// ordinary traffic: a stream of control messages starves the others.
//
// Declared by specializing, right after the type's definition (every use
// of the type must see it):
//
//   struct Flush {};
//   template <>
//   inline constexpr bool cairn::actor::kControlMessage<Flush> = true;
template <typename T>
inline constexpr bool kControlMessage = false;

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_CONTROL_MESSAGE_H_
