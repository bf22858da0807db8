#ifndef CAIRN_PERSISTENCE_TYPED_EFFECT_H_
#define CAIRN_PERSISTENCE_TYPED_EFFECT_H_

#include <concepts>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/functional/any_invocable.h"
#include "actor/typed_ref.h"

namespace cairn::persistence::typed {

template <typename Event, typename State>
class ReplyEffect;

// The journal rejected an event of an EventSourcedBehavior (e.g. it could
// not be serialized). The actor fails with it, as in Akka typed: its
// supervisor decides (a restart recovers the state the journal holds), and
// the side effects of the effect that persisted it do not run.
class EventRejectedException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What an effect of a DurableStateBehavior stores: the whole new state, or
// (none) a delete. Its Effect is Effect<StateChange<State>, State>.
template <typename State>
struct StateChange {
  std::optional<State> state;
};
template <typename T>
struct IsStateChange : std::false_type {};
template <typename State>
struct IsStateChange<StateChange<State>> : std::true_type {};

namespace internal {

template <typename CommandType, typename EventType, typename StateType>
class EventSourcedActor;
template <typename CommandType, typename StateType>
class DurableStateActor;

// One step to run once an effect's events are stored (at once if it has
// none), in the order they were chained.
template <typename State>
struct SideEffect {
  enum class Kind { kRun, kStop, kUnstashAll };
  Kind kind = Kind::kRun;
  absl::AnyInvocable<void(const State&)> run;  // kRun only
};

template <typename Event, typename State>
struct EffectData {
  absl::InlinedVector<Event, 1> events;  // one atomic write
  bool unhandled = false;
  bool stash = false;
  absl::InlinedVector<SideEffect<State>, 1> side_effects;
};

}  // namespace internal

// What a command handler of an EventSourcedBehavior decides (Akka typed's
// Effect): events to persist, then side effects to run once they are
// stored. Built by the static functions and chained with the Then*
// methods, which are for rvalues:
//
//   return Effect::Persist(Deposited{c.amount})
//       .ThenRun([](const Account& a) { ... })
//       .ThenReply(c.reply_to, [](const Account& a) { return a.balance; });
//
// The side effects run in the order chained, after every event of the
// effect is stored and applied by the event handler, with the state that
// results; while the write is in flight, commands are stashed. With no
// events they run at once. If the write fails the actor stops before any
// of them runs; if the journal rejects an event the actor fails with
// EventRejectedException (above).
//
// A side effect runs after the command handler has returned: capture what
// it needs by value (the command itself is gone by then).
//
// A value type, movable, not copyable (a side effect may own what it
// sends).
template <typename Event, typename State>
class Effect {
 public:
  Effect(Effect&&) noexcept = default;
  Effect& operator=(Effect&&) noexcept = default;

  // Stores `event`, then applies it to the state with the event handler.
  static Effect Persist(Event event) requires(!IsStateChange<Event>::value) {
    Effect effect;
    effect.data_.events.push_back(std::move(event));
    return effect;
  }
  // Stores `events` in one atomic write (all or none), then applies each in
  // order. No events: as None().
  static Effect Persist(std::vector<Event> events) requires(
      !IsStateChange<Event>::value) {
    Effect effect;
    effect.data_.events.reserve(events.size());
    for (Event& e : events) effect.data_.events.push_back(std::move(e));
    return effect;
  }
  static Effect Persist(std::initializer_list<Event> events) requires(
      !IsStateChange<Event>::value) {
    return Persist(std::vector<Event>(events));
  }
  // DurableStateBehavior: stores `state` as the whole state, at the next
  // revision (Akka's Effect.persist(state)); the side effects see it.
  static Effect Persist(State state) requires IsStateChange<Event>::value {
    Effect effect;
    effect.data_.events.push_back(Event{std::move(state)});
    return effect;
  }
  // DurableStateBehavior: deletes the stored state (the revision goes on);
  // the side effects see the empty state.
  static Effect Delete() requires IsStateChange<Event>::value {
    Effect effect;
    effect.data_.events.push_back(Event{std::nullopt});
    return effect;
  }

  // Nothing to store; the side effects chained run at once.
  static Effect None() { return Effect(); }
  // The command is published as an UnhandledMessage (as an actor's
  // Unhandled), and nothing is stored.
  static Effect Unhandled() {
    Effect effect;
    effect.data_.unhandled = true;
    return effect;
  }
  // Stops the actor (after what is chained before it).
  static Effect Stop() { return None().ThenStop(); }
  // Keeps the command for later (UnstashAll gives it back). A
  // ReplyEffect, as Akka typed's: the command is answered when it is
  // handled again.
  static ReplyEffect<Event, State> Stash() {
    return ReplyEffect<Event, State>(Stashing());
  }
  // Gives back every command stashed, in order, ahead of those waiting.
  static Effect UnstashAll() { return None().ThenUnstashAll(); }

  // Answers `reply_to` with `message`, nothing stored: a ReplyEffect, as
  // a behaviour WithEnforcedReplies requires. `message` must be an R, or
  // convert to one without narrowing (actor::AcceptedBy).
  template <typename R, typename M>
  requires actor::AcceptedBy<M, R>
  static ReplyEffect<Event, State> Reply(const actor::ReplyTo<R>& reply_to,
                                         M&& message) {
    return None().ThenReply(
        reply_to, [m = R(std::forward<M>(message))](const State&) mutable {
          return std::move(m);
        });
  }
  // Declares that this command is not answered, for a behaviour
  // WithEnforcedReplies (Akka typed's Effect.noReply).
  static ReplyEffect<Event, State> NoReply() {
    return ReplyEffect<Event, State>(None());
  }

  // Runs `f(state)` once the events are stored and applied.
  template <typename F>
  requires std::invocable<F&, const State&> Effect ThenRun(F&& f) && {
    internal::SideEffect<State> step;
    step.run = [f = std::forward<F>(f)](const State& s) mutable {
      static_cast<void>(f(s));
    };
    data_.side_effects.push_back(std::move(step));
    return std::move(*this);
  }
  Effect ThenStop() && {
    internal::SideEffect<State> step;
    step.kind = internal::SideEffect<State>::Kind::kStop;
    data_.side_effects.push_back(std::move(step));
    return std::move(*this);
  }
  Effect ThenUnstashAll() && {
    internal::SideEffect<State> step;
    step.kind = internal::SideEffect<State>::Kind::kUnstashAll;
    data_.side_effects.push_back(std::move(step));
    return std::move(*this);
  }
  // Answers `reply_to` with `f(state)` once the events are stored and
  // applied; f's result must be an R, or convert to one without narrowing.
  template <typename R, typename F>
  requires std::invocable<F&, const State&> &&
      actor::AcceptedBy<std::invoke_result_t<F&, const State&>, R>
          ReplyEffect<Event, State> ThenReply(const actor::ReplyTo<R>& reply_to,
                                              F&& f) && {
    // An init-capture: a plain [reply_to] would hold a const copy, which
    // cannot be moved, so the side effect would not fit in AnyInvocable's
    // inline storage (an allocation per command).
    return ReplyEffect<Event, State>(std::move(*this).ThenRun(
        [to = actor::ReplyTo<R>(reply_to), f = std::forward<F>(f)](
            const State& s) mutable { to.Tell(R(f(s))); }));
  }
  // Declares that this command is not answered.
  ReplyEffect<Event, State> ThenNoReply() && {
    return ReplyEffect<Event, State>(std::move(*this));
  }

 private:
  template <typename, typename, typename>
  friend class internal::EventSourcedActor;
  template <typename, typename>
  friend class internal::DurableStateActor;

  Effect() = default;
  static Effect Stashing() {
    Effect effect;
    effect.data_.stash = true;
    return effect;
  }

  internal::EffectData<Event, State> data_;
};

// An Effect that answers the command (or says it will not): what a command
// handler of a behaviour made WithEnforcedReplies must return, so that a
// handler with a path that forgets to decide on a reply does not compile.
// Only Effect::Reply, NoReply, Stash, ThenReply and ThenNoReply make one.
// (Which reference it answers is the handler's business: the compiler
// checks the reply's type against that ReplyTo<R>, not that it is the
// command's.) It converts to an Effect, for a behaviour without enforced
// replies.
template <typename Event, typename State>
class ReplyEffect {
 public:
  ReplyEffect(ReplyEffect&&) noexcept = default;
  ReplyEffect& operator=(ReplyEffect&&) noexcept = default;

  ReplyEffect ThenUnstashAll() && {
    return ReplyEffect(std::move(effect_).ThenUnstashAll());
  }

  operator Effect<Event, State>() && { return std::move(effect_); }

 private:
  friend class Effect<Event, State>;
  explicit ReplyEffect(Effect<Event, State> effect)
      : effect_(std::move(effect)) {}

  Effect<Event, State> effect_;
};

}  // namespace cairn::persistence::typed

#endif  // CAIRN_PERSISTENCE_TYPED_EFFECT_H_
