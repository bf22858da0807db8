#ifndef CAIRN_PERSISTENCE_TYPED_EVENT_SOURCED_BEHAVIOR_H_
#define CAIRN_PERSISTENCE_TYPED_EVENT_SOURCED_BEHAVIOR_H_

#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "actor/props.h"
#include "actor/typed_ref.h"
#include "base/overloaded.h"
#include "persistence/messages.h"
#include "persistence/retention_criteria.h"
#include "persistence/typed/effect.h"
#include "persistence/typed/internal/definition.h"
#include "persistence/typed/internal/event_sourced_actor.h"
#include "persistence/typed/signals.h"

namespace cairn::persistence::typed {

// A command handler: effect(state, command) for every alternative of
// Command (a std::variant of the command types, or one type), giving an
// R. A handler that misses one does not compile.
template <typename F, typename Command, typename State, typename R>
concept HandlesEveryCommand = internal::InvocableForEach<
    F, R, const State&,
    typename internal::AlternativesOf<Command>::type>::value;

// An event handler: new_state(std::move(state), event) for every
// alternative of Event.
template <typename F, typename Event, typename State>
concept HandlesEveryEvent = internal::InvocableForEach<
    F, State, State&&, typename internal::AlternativesOf<Event>::type>::value;

// An event-sourced entity as Akka typed's EventSourcedBehavior: a command
// handler that decides an Effect from the state and a command, and a pure
// event handler that makes the next state from the state and an event,
// used both for the events just persisted and for replay:
//
// clang-format off
//   struct Deposit { int64_t amount; ReplyTo<int64_t> reply_to; };
//   struct GetBalance { ReplyTo<int64_t> reply_to; };
//   using AccountCommand = std::variant<Deposit, GetBalance>;
//   struct Deposited { int64_t amount; };
//   using AccountEvent = std::variant<Deposited>;
//   struct Account { int64_t balance = 0; };
//
//   using AccountBehavior =
//       EventSourcedBehavior<AccountCommand, AccountEvent, Account>;
//   using Effect = AccountBehavior::Effect;
//
//   AccountBehavior behavior = AccountBehavior::WithEnforcedReplies(
//       "account-" + id, Account{},
//       Overloaded{
//           [](const Account&, const Deposit& c) {
//             return Effect::Persist(Deposited{c.amount})
//                 .ThenReply(c.reply_to, [](const Account& a) { return a.balance; });
//           },
//           [](const Account& a, const GetBalance& c) {
//             return Effect::Reply(c.reply_to, a.balance);
//           }},
//       [](Account a, const Deposited& e) { a.balance += e.amount; return a; });
//   TypedRef<AccountCommand> ref = Spawn(system, behavior, "account");
// clang-format on
//
// What the compiler checks: every command type has a handler (a missing
// one is a compile error, HandlesEveryCommand), every event type too; with
// WithEnforcedReplies each handler returns a ReplyEffect on every path, which
// only Effect::Reply / NoReply / Stash / ThenReply / ThenNoReply make; a
// reply's type is that of the ReplyTo<R> it goes to; a TypedRef<Command>
// only takes commands. The state is changed by the event handler only (the
// command handler sees it const), and side effects run only after the
// events are stored. A generic lambda (`const auto&`) counts as handling
// every type it compiles for: a catch-all overload turns the coverage
// check off, and an error inside its body is reported there.
//
// It runs as a PersistentActor (persistent_actor.h), with the same
// recovery, plugins, config, event adapters and guarantees: events are
// stored as their own types (the alternative a variant holds), so each
// must be registered with the SerializationRegistry, and the State too when
// snapshots are taken. Commands are stashed while a Persist is in flight
// and during recovery.
//
// A value type: the builder methods return a changed copy. ToProps() shares
// what it was built with; every incarnation of the actor starts from
// `empty_state` and recovers. The handlers are copied into the behaviour
// and shared by every actor made from it, so they are called const and may
// run on several threads at once (each actor calls them on its own
// thread): keep them free of mutable captures. The event handler must not
// have side effects (it runs again on every recovery). An event handler
// that throws leaves the actor without a state: it fails (and refuses
// commands until a restart recovers it).
template <typename Command, typename Event, typename State>
class EventSourcedBehavior {
 public:
  using CommandType = Command;
  using Effect = typed::Effect<Event, State>;
  using ReplyEffect = typed::ReplyEffect<Event, State>;

  // `persistence_id`: the stream's id (not empty; the actor fails to
  // start otherwise).
  template <typename CommandHandler, typename EventHandler>
  requires HandlesEveryCommand<CommandHandler, Command, State, Effect> &&
      HandlesEveryEvent<EventHandler, Event, State>
      EventSourcedBehavior(std::string persistence_id, State empty_state,
                           const CommandHandler& on_command,
                           const EventHandler& on_event)
      : def_(std::make_shared<Def>()) {
    def_->persistence_id = std::move(persistence_id);
    def_->empty_state = std::move(empty_state);
    def_->commands = decltype(def_->commands)(on_command);
    def_->events = decltype(def_->events)(on_event);
  }

  // As the constructor, but every command handler must return a
  // ReplyEffect (Akka typed's EventSourcedBehavior.withEnforcedReplies).
  template <typename CommandHandler, typename EventHandler>
  requires HandlesEveryCommand<CommandHandler, Command, State, ReplyEffect> &&
      HandlesEveryEvent<EventHandler, Event, State>
  static EventSourcedBehavior WithEnforcedReplies(
      std::string persistence_id, State empty_state,
      const CommandHandler& on_command, const EventHandler& on_event) {
    return EventSourcedBehavior(std::move(persistence_id),
                                std::move(empty_state), on_command, on_event);
  }

  // The tags each event is stored with (Akka typed's withTagger), for
  // EventsByTag queries and projections; handlers see the event itself.
  template <typename F>
  requires std::is_invocable_r_v<std::vector<std::string>, F&, const Event&>
      EventSourcedBehavior WithTagger(F tagger) const {
    EventSourcedBehavior copy = Copy();
    copy.def_->tagger = std::move(tagger);
    return copy;
  }

  // Saves a snapshot of the state after an event for which
  // `predicate(state, event, sequence_nr)` holds (Akka typed's
  // snapshotWhen); outcomes come as SnapshotCompleted / SnapshotFailed.
  template <typename F>
  requires internal::InvocableForEach<
      F, bool, const State&, typename internal::AlternativesOf<Event>::type,
      int64_t>::value EventSourcedBehavior
  SnapshotWhen(F predicate)
  const {
    EventSourcedBehavior copy = Copy();
    copy.def_->snapshot_when = decltype(copy.def_->snapshot_when)(predicate);
    copy.def_->has_snapshot_when = true;
    return copy;
  }

  // Snapshots every N events and what is deleted after them
  // (retention_criteria.h). Without it, the journal plugin's `retention`
  // config applies, as for a PersistentActor.
  EventSourcedBehavior WithRetention(RetentionCriteria criteria) const {
    EventSourcedBehavior copy = Copy();
    copy.def_->retention = criteria;
    return copy;
  }

  // How to recover (messages.h): e.g. Recovery::None() to start empty.
  EventSourcedBehavior WithRecovery(Recovery recovery) const {
    EventSourcedBehavior copy = Copy();
    copy.def_->recovery = recovery;
    return copy;
  }

  // The plugins to use (default: akka.persistence.journal.plugin and
  // akka.persistence.snapshot-store.plugin).
  EventSourcedBehavior WithJournalPluginId(std::string id) const {
    EventSourcedBehavior copy = Copy();
    copy.def_->journal_plugin_id = std::move(id);
    return copy;
  }
  EventSourcedBehavior WithSnapshotPluginId(std::string id) const {
    EventSourcedBehavior copy = Copy();
    copy.def_->snapshot_plugin_id = std::move(id);
    return copy;
  }

  // handler(state, signal) for each signal type (signals.h) it takes, e.g.
  // an overload set; a later call replaces the handlers of the signals it
  // takes. A handler that takes none does not compile.
  template <typename F>
  requires internal::TakesAnySignal<F, State, internal::Signals>::value
      EventSourcedBehavior
      ReceiveSignal(const F& handler)
  const {
    EventSourcedBehavior copy = Copy();
    copy.def_->signals.Take(handler);
    return copy;
  }

  const std::string& persistence_id() const { return def_->persistence_id; }

  // The recipe for the actor (to give to ActorOf, or Props' With* first).
  actor::Props ToProps() const {
    return actor::Props::Create<
        internal::EventSourcedActor<Command, Event, State>>(
        std::shared_ptr<const Def>(def_));
  }

 private:
  using Def = internal::Definition<Command, Event, State>;

  EventSourcedBehavior() = default;
  EventSourcedBehavior Copy() const {
    EventSourcedBehavior copy;
    copy.def_ = std::make_shared<Def>(*def_);
    return copy;
  }

  std::shared_ptr<Def> def_;
};

// Starts `behavior` (an EventSourcedBehavior or a DurableStateBehavior) as
// a child of `factory` (an ActorSystem or an actor's Context()) and returns
// its reference, typed by its commands. Throws as ActorOf does
// (InvalidActorNameException for a name taken).
template <typename Factory, typename Behavior>
requires requires(const Behavior& b) {
  typename Behavior::CommandType;
  { b.ToProps() } -> std::same_as<actor::Props>;
}
actor::TypedRef<typename Behavior::CommandType> Spawn(
    Factory& factory, const Behavior& behavior, std::string_view name = "") {
  return actor::TypedRef<typename Behavior::CommandType>(
      factory.ActorOf(behavior.ToProps(), name));
}

// A set of handlers as one callable, for a command or event handler that
// takes each type with its own lambda: Overloaded{[](...) {...}, ...}.
using base::Overloaded;

}  // namespace cairn::persistence::typed

#endif  // CAIRN_PERSISTENCE_TYPED_EVENT_SOURCED_BEHAVIOR_H_
