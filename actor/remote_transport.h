#ifndef CAIRN_ACTOR_REMOTE_TRANSPORT_H_
#define CAIRN_ACTOR_REMOTE_TRANSPORT_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "actor/actor_path.h"
#include "actor/actor_ref.h"
#include "actor/address.h"
#include "actor/any_message.h"

// The extension point through which a transport (remote/) makes an actor
// system reachable from other processes: Akka's RemoteActorRefProvider,
// cut to what the actor package must know. Nothing here is for
// applications; they set `akka.actor.provider` and use refs.
//
// - `akka.actor.provider = remote` names a transport registered with
//   RemoteTransports::Add (a package's static initializer, as persistence
//   plugins register: link the package's `:registration` target).
// - ActorSystem::Create makes the transport before the guardians, so its
//   address (host and bound port) is in every path of the system, then
//   calls Start once the system is up.
// - A ref to an actor elsewhere is an ExternalRef the transport implements,
//   made an ActorRef by ActorSystem::ExternalActorRef; DeathWatch and
//   ActorSelection reach it through the calls below.
// - Incoming traffic goes to local refs found with
//   ActorSystem::ResolveActorRef; system messages with the Deliver*
//   functions at the end of this file.

namespace cairn::actor {

class ActorSystem;

// An actor in another system, as its transport reaches it. Made by the
// transport, owned by the ActorRef(s) that ActorSystem::ExternalActorRef
// returns: destroyed with the last, on any thread, possibly inside an
// actor's turn and after the transport was shut down or the system
// destroyed (so it holds what it needs, e.g. shared state, not a raw
// pointer to the transport). Thread safety: every method may be called
// from any thread at once, also after Shutdown (then it drops what it is
// given), and none may block for long (they run on senders' threads and
// inside other actors' turns). Stopping it (ActorSystem::Stop) is not
// supported: cairn has no remote deployment; the stop is logged and
// dropped.
class ExternalRef {
 public:
  virtual ~ExternalRef() = default;

  // A user message; `sender` is a local ref, another ExternalRef, or
  // NoSender.
  virtual void Send(const AnyMessage& message, const ActorRef& sender) = 0;
  // An ActorSelection's message, to be followed from this ref along
  // `elements` (relative, wildcards allowed) on the other side.
  virtual void SendSelection(std::vector<std::string> elements,
                             const AnyMessage& message,
                             const ActorRef& sender) = 0;
  // `watcher` (local) wants a DeathWatch notification when this actor stops
  // or its system becomes unreachable; Unwatch withdraws that.
  virtual void Watch(const ActorRef& watcher) = 0;
  virtual void Unwatch(const ActorRef& watcher) = 0;
  // This actor watched the local `subject`, which has stopped (or was
  // already gone: existence_confirmed false).
  virtual void DeathWatchNotification(const ActorRef& subject,
                                      bool existence_confirmed) = 0;
  // Whether the actor is known to be gone (its system quarantined or shut
  // down).
  virtual bool IsTerminated() const = 0;
};

// A transport making one actor system reachable. Owned by the system,
// destroyed after Shutdown, when the system is destroyed. Thread safety:
// ResolveRef from any thread. Incoming traffic must wait for Start: before
// it the system has no actors to deliver to (ResolveActorRef and the
// Deliver* functions below are for use from Start on).
class RemoteTransport {
 public:
  virtual ~RemoteTransport() = default;

  // Where this system is reachable, with a host and the bound port; fixed
  // once the transport is made.
  virtual const Address& address() const = 0;
  // This system's incarnation: a random number drawn when the transport
  // is made, never 0, which peers see in the handshake; a process started
  // again at the same address has another (ActorSystem::Uid).
  virtual uint64_t uid() const = 0;
  // Called once, after the guardians and coordinated shutdown exist: the
  // transport may create system actors and add its shutdown tasks. An
  // error fails ActorSystem::Create with it.
  virtual absl::Status Start() = 0;
  // A ref to the actor at `path` in another system (its address is not
  // address()); an ExternalActorRef, or dead letters for an address the
  // transport cannot reach at all.
  virtual ActorRef ResolveRef(const ActorPath& path) = 0;
  // Called once when the system's actors have all stopped, also when Start
  // was never called or failed: close connections and stop the
  // transport's threads; nothing of the transport calls into the system
  // after this returns.
  virtual void Shutdown() = 0;
};

// Makes the transport for `system`, which is being created: its settings,
// event stream, scheduler, dead letters and setup are there; actors are
// not. An error fails ActorSystem::Create with it.
using RemoteTransportFactory =
    std::function<absl::StatusOr<std::unique_ptr<RemoteTransport>>(
        ActorSystem& system)>;

// The process's transports, by the name `akka.actor.provider` gives.
// Thread safety: Add in static initializers (before main); Find from any
// thread after that.
class RemoteTransports {
 public:
  // Returns true, for a static initializer's constant. A name added twice
  // keeps the first.
  static bool Add(std::string name, RemoteTransportFactory factory);
  // nullptr when no linked package added `name`.
  static const RemoteTransportFactory* Find(std::string_view name);
};

// What a transport delivers to local actors on behalf of remote ones, as
// system messages (ahead of user messages, as locally). In
// DeliverWatch/Unwatch `watchee` is local (from ResolveActorRef: watching
// a path with no actor gives a notification at once) and `watcher` an
// ExternalActorRef; the transport keeps the remote watchers it delivered
// and unwatches them when their system is gone (a local actor keeps its
// watchers until it stops). In DeliverDeathWatchNotification `watcher` is
// local and `subject` the very ref it watched (the one ExternalRef::Watch
// was called on: a ref without uid stays without), or the watcher ignores
// it; `address_terminated` when the subject's system, not the subject,
// is known to be gone.
void DeliverWatch(const ActorRef& watchee, const ActorRef& watcher);
void DeliverUnwatch(const ActorRef& watchee, const ActorRef& watcher);
void DeliverDeathWatchNotification(const ActorRef& watcher,
                                   const ActorRef& subject,
                                   bool existence_confirmed,
                                   bool address_terminated);

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_REMOTE_TRANSPORT_H_
