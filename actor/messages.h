#ifndef CAIRN_ACTOR_MESSAGES_H_
#define CAIRN_ACTOR_MESSAGES_H_

#include <exception>
#include <optional>
#include <string>

#include "actor/actor_ref.h"
#include "actor/any_message.h"

namespace cairn::actor {

// Stops the receiver when processed. An ordinary message: what was queued
// before it is processed first.
struct PoisonPill {};

// Makes the receiver throw ActorKilledException; its supervisor decides
// (the default strategy stops it).
struct Kill {};

// Sent to watchers (Context().Watch) when `actor` has stopped. Delivered
// exactly once per watch. A watcher that does not handle it fails with
// DeathPactException.
struct Terminated {
  ActorRef actor;
  // True when the actor was alive when the watch reached it and this is the
  // notice of its stop; false when the watch found it already gone (or
  // never an actor), as Akka's dead letters answer.
  bool existence_confirmed = true;
  bool address_terminated = false;
};

// Sent to an actor that set a receive timeout and got no message for that
// long (Context().SetReceiveTimeout).
struct ReceiveTimeout {};

// Every actor answers Identify with ActorIdentity; `subject` is NoSender
// when nothing was found (e.g. from an ActorSelection).
struct Identify {
  AnyMessage message_id;
};
struct ActorIdentity {
  AnyMessage message_id;
  ActorRef subject;  // NoSender when nothing answered to the path
};

// A message that could not be delivered, published on the event stream.
struct DeadLetter {
  AnyMessage message;
  ActorRef sender;
  ActorRef recipient;
};

// A message no handler took, published on the event stream.
struct UnhandledMessage {
  AnyMessage message;
  ActorRef sender;
  ActorRef recipient;
};

// The failure answer of PipeTo and of actors that reply with an error.
// Ask completes its future with `cause` when it receives one.
struct StatusFailure {
  std::exception_ptr cause;
};

namespace internal {
// Taken by the runtime before the actor's handlers (see payload.h).
template <>
inline constexpr bool kRuntimeMessage<PoisonPill> = true;
template <>
inline constexpr bool kRuntimeMessage<Kill> = true;
template <>
inline constexpr bool kRuntimeMessage<Identify> = true;
template <>
inline constexpr bool kRuntimeMessage<Terminated> = true;
}  // namespace internal

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_MESSAGES_H_
