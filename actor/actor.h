#ifndef CAIRN_ACTOR_ACTOR_H_
#define CAIRN_ACTOR_ACTOR_H_

#include <exception>
#include <functional>
#include <memory>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "actor/actor_context.h"
#include "actor/actor_ref.h"
#include "actor/any_message.h"
#include "actor/internal/behavior.h"
#include "actor/internal/payload.h"
#include "actor/internal/type_match.h"
#include "actor/supervisor_strategy.h"
#include "actor/timer_scheduler.h"

namespace cairn::actor {

namespace internal {
class ActorCell;
}  // namespace internal
}  // namespace cairn::actor

namespace cairn::actor {

// Base class of every actor. Subclasses declare their handlers in the
// constructor with Receive<T>(...), the way Akka.NET's ReceiveActor does:
//
//   class Counter final : public Actor {
//    public:
//     Counter() {
//       Receive<int>([this](int x) { count_ += x; });
//       Receive<Get>([this](const Get&) { Sender().Tell(count_); });
//     }
//    private:
//     int count_ = 0;
//   };
//
// Instances are made only by the runtime (ActorOf with Props); constructing
// one elsewhere throws IllegalActorStateException.
//
// Thread safety: an actor is only ever run by one thread at a time; its
// members need no locks. Its methods are for its own use inside handlers.
class Actor {
 public:
  Actor(const Actor&) = delete;
  Actor& operator=(const Actor&) = delete;
  virtual ~Actor();

  ActorRef Self() const;
  // The sender of the message being processed; NoSender if none.
  ActorRef Sender() const;
  ActorRef Parent() const;
  ActorContext& Context() const;

  // Lifecycle hooks, as in Akka.
  virtual void PreStart() {}
  virtual void PostStop() {}
  // Before the old instance is dropped. Default: stop all children, then
  // PostStop(). `message` is the one that failed (empty if none).
  virtual void PreRestart(const std::exception_ptr& reason,
                          const AnyMessage& message);
  // On the new instance. Default: PreStart().
  virtual void PostRestart(const std::exception_ptr& reason);

  // How this actor supervises its children. Default:
  // SupervisorStrategy::DefaultStrategy(). Called once per instance.
  virtual std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy();

  // Called for a message no handler took. Default: a Terminated becomes
  // DeathPactException; anything else is published as UnhandledMessage.
  virtual void Unhandled(const AnyMessage& message);

 protected:
  Actor();

  // Handles messages of type T (and, when T is polymorphic, of types derived
  // from it) with `handler(const T&)`. Handlers are tried in the order they
  // were declared; the first that matches takes the message.
  template <typename T, typename F>
  void Receive(F&& handler) {
    AddHandler<T>([h = std::forward<F>(handler)](const T& m) mutable {
      h(m);
      return true;
    });
  }
  // As above, but only messages for which `predicate(const T&)` holds.
  template <typename T, typename P, typename F>
  void Receive(P&& predicate, F&& handler) {
    AddHandler<T>([p = std::forward<P>(predicate),
                   h = std::forward<F>(handler)](const T& m) mutable {
      if (!p(m)) return false;
      h(m);
      return true;
    });
  }
  // Handles any message (declare it last: it takes everything).
  void ReceiveAny(std::function<void(const AnyMessage&)> handler);

  // Replaces the current behaviour: `declare` runs now and its Receive calls
  // make up the new set of handlers.
  void Become(const std::function<void()>& declare);
  // Pushes a behaviour on top of the current one; Unbecome returns to it.
  void BecomeStacked(const std::function<void()>& declare);
  // Pops the behaviour pushed last (the first behaviour is never popped).
  void Unbecome();

  // Keeps the message being processed for later. Throws
  // StashOverflowException beyond akka.actor.default-mailbox.stash-capacity.
  void Stash();
  // Puts the oldest stashed message back in front of the mailbox. (In a
  // persistent actor: in front of the commands waiting for a persist.)
  void Unstash();
  // Puts all stashed messages back in front of the mailbox, in order.
  void UnstashAll();

  // This actor's timers: messages it sends itself later, under keys,
  // cancelled on restart and stop (Akka.NET's IWithTimers.Timers; see
  // timer_scheduler.h). A method of every actor rather than a mixin: the
  // scheduler lives in the cell's rarely-used state, made on first call,
  // so an actor without timers pays nothing, and the cell can drop a
  // stale timer's message before any handler or stash sees it.
  TimerScheduler& Timers();

 protected:
  // --- Extension points for base classes ------------------------------------
  // The steps between the runtime and an actor's handlers and hooks, as
  // Akka's aroundReceive and aroundPreStart: the runtime calls the Around*
  // steps, and by default they call the handlers and hooks above. A base
  // class that runs a protocol of its own around its subclass's code
  // overrides them (PersistentActor: recovery, stashing while persisting);
  // an override calls the default to go on to the user's code. Every step
  // runs on the actor's thread, and what it throws is a failure of the
  // actor, as a handler's would be.

  // Called with each message for the actor (not the ones the runtime takes
  // first: PoisonPill, Kill, Identify). Returns whether something handled
  // it; false makes the runtime call Unhandled(message). Default:
  // RunBehavior(message).
  virtual bool AroundReceive(const MessageView& message) {
    return RunBehavior(message);
  }
  // Called when a PoisonPill is taken from the mailbox; true stops the
  // actor (the default). A base class whose protocol holds messages back
  // (PersistentActor while it recovers or persists) returns false after
  // StashInternally(), so that the PoisonPill comes again after the
  // messages sent before it: stopping then would drop them.
  virtual bool AroundPoisonPill() { return true; }
  virtual void AroundPreStart() { PreStart(); }
  virtual void AroundPostStop() { PostStop(); }
  virtual void AroundPreRestart(const std::exception_ptr& reason,
                                const AnyMessage& message) {
    PreRestart(reason, message);
  }
  virtual void AroundPostRestart(const std::exception_ptr& reason) {
    PostRestart(reason);
  }
  // Runs the current behaviour's handlers on `message`; false when none
  // took it.
  bool RunBehavior(const MessageView& message);
  // Called by Stash() before it stashes; throws to refuse (PersistentActor:
  // inside a persist handler the message being processed is the journal's
  // reply, not the user's).
  virtual void BeforeStash() {}

  // A second stash that the user's Stash/Unstash never see, for a base
  // class's protocol (Akka's internal stash): same capacity; its messages
  // go back to the mailbox on restart and to dead letters on stop, like
  // the user's. StashInternally keeps the message being processed.
  void StashInternally();
  // Its oldest message back in front of the mailbox, unless one let out
  // before is still waiting there. Letting messages out one at a time, each
  // after the previous one was processed, keeps a long queue from being
  // stashed again after every persisted event (quadratic in its length).
  void UnstashOneInternally();
  void UnstashAllInternally();
  // Makes the user's Unstash/UnstashAll go to the front of the internal
  // stash, so that they keep their place among the messages it holds.
  void UnstashThroughInternalStash();

  // While one lives, Sender() (and Forward) answer `sender` instead of the
  // sender of the message being processed: for a base class that runs
  // user code on behalf of several messages in one (PersistentActor: one
  // journal reply runs the handler of each event it wrote with the sender
  // of the command that persisted it). Scopes nest; create and destroy
  // one on the actor's thread, inside its processing.
  class SenderOverride {
   public:
    explicit SenderOverride(ActorRef sender);
    ~SenderOverride();
    SenderOverride(const SenderOverride&) = delete;
    SenderOverride& operator=(const SenderOverride&) = delete;

   private:
    ActorRef sender_;  // kept alive while Sender() may return it
    internal::ActorRefImpl* previous_ = nullptr;
    bool previous_set_ = false;
  };
  // Whether a system message (a stop, a restart, a watch) waits for this
  // actor (a control message, control_message.h, does not count). The runtime
  // handles those before the next message; a base class that runs several steps
  // of user code for one message checks between them, and leaves the rest for
  // later when one waits (a step after a Stop(Self()) must not run).
  bool SystemMessagePending() const;
  // Puts the message being processed back in front of the mailbox, ahead
  // of every other message (also of unstashed ones): it is processed
  // again right after the system messages that wait, or after a failure
  // the supervisor resumes (a restart keeps it too; a stop drops it). For
  // a base class that leaves the rest of a message's steps for later
  // (PersistentActor: the rest of a write's handlers). At most once per
  // message, and not for a message stashed too: throws
  // IllegalActorStateException.
  void ProcessAgainFirst();

 private:
  friend class internal::ActorCell;

  template <typename T, typename F>
  void AddHandler(F&& typed) {
    using M = std::decay_t<T>;
    Declaring().Add(internal::HandlerEntry(
        &typeid(M), std::is_polymorphic_v<M> && !std::is_final_v<M>,
        [f = std::forward<F>(typed)](const internal::Payload& p) mutable {
          const M* m = internal::PayloadAs<M>(p);
          return m != nullptr && f(*m);
        }));
  }

  // The behaviour this actor's Receive calls declare now (in its
  // constructor, or in the function given to Become). Throws
  // IllegalActorStateException at any other time.
  internal::Behavior& Declaring();
  // Ends the constructor's declaring (the runtime, once T() has returned
  // or thrown); `returned`: T() returned, and the declared behaviour gives
  // back the room it does not use (after a throw it is gone).
  static void EndDeclaring(bool returned);
  // Runs `declare` with its Receive calls going to `behavior`.
  void DeclareInto(internal::Behavior& behavior,
                   const std::function<void()>& declare);
  // Drops behaviours replaced during the message just processed (on the
  // path of every message: the test is inline).
  void ReleaseRetiredBehaviors() {
    if (stack_ != nullptr) ClearRetired();
  }
  void ClearRetired();

  // Behaviours under the current one (BecomeStacked) and those replaced
  // while their handler may still be running; made on first use.
  struct BehaviorStack;

  internal::ActorCell* cell_;
  internal::Behavior behavior_;  // the current one
  std::unique_ptr<BehaviorStack> stack_;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_ACTOR_H_
