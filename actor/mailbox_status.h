#ifndef CAIRN_ACTOR_MAILBOX_STATUS_H_
#define CAIRN_ACTOR_MAILBOX_STATUS_H_

#include <cstddef>
#include <optional>

#include "actor/actor_ref.h"

namespace cairn::actor {

// What can be seen of a local actor's mailbox from outside: what routers
// that balance load read (smallest-mailbox routing, the pool resizer), as
// Akka's routers read a routee's ActorCell.
struct MailboxStatus {
  // User messages sent and not yet taken from the mailbox: neither the
  // message being processed nor stashed ones (system messages never count).
  size_t queued = 0;
  // The mailbox is scheduled: the actor is processing a message or is
  // about to (it has messages and waits for a thread). False for an idle
  // actor, and for a suspended one (a failed actor waiting for its
  // supervisor) that is not running.
  bool scheduled = false;
};

// The mailbox of `ref` now, or nullopt when `ref` is not a living local
// actor whose Props asked for it (Props::WithMailboxStatus; a pool router's
// routees do): NoSender, dead letters, an ask's temporary target, a
// stopped actor, any ref whose mailbox is not in this process, and every
// other actor.
//
// A snapshot that may be stale by the time it returns: senders on other
// threads keep adding. It costs two atomic loads (no lock): every send to
// such an actor counts itself with one relaxed atomic increment, and the
// mailbox's consumer counts what it takes with a plain store. Sends to
// other actors pay nothing.
//
// Thread safety: any thread.
std::optional<MailboxStatus> LocalMailboxStatus(const ActorRef& ref);

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_MAILBOX_STATUS_H_
