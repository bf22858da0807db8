#ifndef CAIRN_PERSISTENCE_TYPED_DURABLE_STATE_BEHAVIOR_H_
#define CAIRN_PERSISTENCE_TYPED_DURABLE_STATE_BEHAVIOR_H_

#include <memory>
#include <string>
#include <utility>

#include "actor/props.h"
#include "actor/typed_ref.h"
#include "base/overloaded.h"
#include "persistence/typed/effect.h"
#include "persistence/typed/event_sourced_behavior.h"
#include "persistence/typed/internal/definition.h"
#include "persistence/typed/internal/durable_state_actor.h"
#include "persistence/typed/signals.h"

namespace cairn::persistence::typed {

// An entity whose whole state is stored on each change (Akka's
// DurableStateBehavior): no events, no replay; a command handler decides
// an Effect from the state and the command, and Effect::Persist(new_state)
// replaces the stored state, Effect::Delete() removes it:
//
// clang-format off
//   using Counter = DurableStateBehavior<CounterCommand, Count>;
//   Counter counter = Counter::WithEnforcedReplies(
//       "counter-" + id, Count{},
//       Overloaded{
//           [](const Count& c, const Add& a) {
//             return Counter::Effect::Persist(Count{c.value + a.amount})
//                 .ThenReply(a.reply_to, [](const Count& c) { return c.value; });
//           },
//           [](const Count& c, const Get& g) {
//             return Counter::Effect::Reply(g.reply_to, c.value);
//           }});
//   TypedRef<CounterCommand> ref = Spawn(system, counter, "counter");
// clang-format on
//
// Each write is guarded by a revision (the stored one + 1), so that one
// writer per id is enforced by the store too; a write that fails (the
// store is down, another writer took the revision) stops the actor after
// logging why (put it under a BackoffSupervisor). Commands wait while the
// state is read at start and while a write is in flight; the side effects
// run once the store has the state, and see it. The state is stored
// through the SerializationRegistry (register State), in the durable state
// store `akka.persistence.state.plugin` names (persistence/reference.conf),
// found by CurrentChanges queries under WithTag's tag.
//
// The effects and what the compiler checks are EventSourcedBehavior's
// (event_sourced_behavior.h), with Persist(state) and Delete() for the
// events; signals: RecoveryCompleted and RecoveryFailed (the actor stops
// after it).
//
// A value type: the builder methods return a changed copy; the handlers
// are shared by every actor made from it (called const, from several
// threads at once).
template <typename Command, typename State>
class DurableStateBehavior {
 public:
  using CommandType = Command;
  using Effect = typed::Effect<StateChange<State>, State>;
  using ReplyEffect = typed::ReplyEffect<StateChange<State>, State>;

  template <typename CommandHandler>
  requires HandlesEveryCommand<CommandHandler, Command, State, Effect>
  DurableStateBehavior(std::string persistence_id, State empty_state,
                       const CommandHandler& on_command)
      : def_(std::make_shared<Def>()) {
    def_->persistence_id = std::move(persistence_id);
    def_->empty_state = std::move(empty_state);
    def_->commands = decltype(def_->commands)(on_command);
  }

  // As the constructor, but every command handler must return a
  // ReplyEffect.
  template <typename CommandHandler>
  requires HandlesEveryCommand<CommandHandler, Command, State, ReplyEffect>
  static DurableStateBehavior WithEnforcedReplies(
      std::string persistence_id, State empty_state,
      const CommandHandler& on_command) {
    return DurableStateBehavior(std::move(persistence_id),
                                std::move(empty_state), on_command);
  }

  // The tag the state is stored under, for CurrentChanges (Akka's
  // withTag); empty (the default): none.
  DurableStateBehavior WithTag(std::string tag) const {
    DurableStateBehavior copy = Copy();
    copy.def_->tag = std::move(tag);
    return copy;
  }
  // The durable state store to use (default: akka.persistence.state.plugin).
  DurableStateBehavior WithDurableStateStorePluginId(std::string id) const {
    DurableStateBehavior copy = Copy();
    copy.def_->plugin_id = std::move(id);
    return copy;
  }
  // As EventSourcedBehavior::ReceiveSignal; of the signals, only
  // RecoveryCompleted and RecoveryFailed come to a durable state actor.
  template <typename F>
  requires internal::TakesAnySignal<F, State, internal::Signals>::value
      DurableStateBehavior
      ReceiveSignal(const F& handler)
  const {
    DurableStateBehavior copy = Copy();
    copy.def_->signals.Take(handler);
    return copy;
  }

  const std::string& persistence_id() const { return def_->persistence_id; }

  actor::Props ToProps() const {
    return actor::Props::Create<internal::DurableStateActor<Command, State>>(
        std::shared_ptr<const Def>(def_));
  }

 private:
  using Def = internal::DurableStateDefinition<Command, State>;

  DurableStateBehavior() = default;
  DurableStateBehavior Copy() const {
    DurableStateBehavior copy;
    copy.def_ = std::make_shared<Def>(*def_);
    return copy;
  }

  std::shared_ptr<Def> def_;
};

}  // namespace cairn::persistence::typed

#endif  // CAIRN_PERSISTENCE_TYPED_DURABLE_STATE_BEHAVIOR_H_
