#ifndef CAIRN_PERSISTENCE_TYPED_INTERNAL_EVENT_SOURCED_ACTOR_H_
#define CAIRN_PERSISTENCE_TYPED_INTERNAL_EVENT_SOURCED_ACTOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "actor/any_message.h"
#include "actor/exceptions.h"
#include "actor/typed_ref.h"
#include "base/ring_queue.h"
#include "base/variant_traits.h"
#include "persistence/messages.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/tagged.h"
#include "persistence/typed/effect.h"
#include "persistence/typed/internal/definition.h"
#include "persistence/typed/signals.h"
#include "serialization/payload.h"

namespace cairn::persistence::typed::internal {

// The actor that runs an EventSourcedBehavior: a PersistentActor whose
// handlers are the behaviour's, per command and event type. (Its template
// parameters are not named Command and Event: the base's member template
// PersistentActor::Command would hide them.)
template <typename CommandType, typename EventType, typename StateType>
class EventSourcedActor final : public PersistentActor {
 public:
  using BehaviorDefinition = Definition<CommandType, EventType, StateType>;
  using EffectType = Effect<EventType, StateType>;

  explicit EventSourcedActor(std::shared_ptr<const BehaviorDefinition> def)
      : def_(std::move(def)), state_(def_->empty_state) {
    // Handlers are tried in the order declared: the commands first.
    DeclareCommands(typename BehaviorDefinition::CommandList{});
    if constexpr (base::IsVariant<CommandType>::value) {
      // Told as the variant itself (not through a TypedRef, which sends
      // the alternative).
      this->template Command<CommandType>([this](const CommandType& command) {
        std::visit([this](const auto& c) { this->OnAnyCommand(c); }, command);
      });
    }
    DeclareEvents(typename BehaviorDefinition::EventList{});
    Recover<SnapshotOffer>([this](const SnapshotOffer& offer) {
      const StateType* state = offer.snapshot.template As<StateType>();
      if (state == nullptr) {
        throw std::runtime_error("the snapshot at sequence number " +
                                 std::to_string(offer.metadata.sequence_nr) +
                                 " is a " + offer.snapshot.TypeName() +
                                 ", not the behaviour's state");
      }
      state_ = *state;
    });
    Recover<RecoveryCompleted>([this](const RecoveryCompleted& signal) {
      def_->signals.Signal(state_, signal);
    });
    this->template Command<GetStateRequest<StateType>>(
        [this](const GetStateRequest<StateType>&) {
          RequireState();
          Sender().Tell(state_);
        });
    DeclareOutcomeSignals();
  }

  std::string PersistenceId() const override { return def_->persistence_id; }
  Recovery GetRecovery() const override { return def_->recovery; }
  std::optional<RetentionCriteria> GetRetention() const override {
    return def_->retention;
  }
  std::optional<serialization::Payload> RetentionSnapshot() const override {
    return serialization::Payload::Of(state_);
  }
  std::string JournalPluginId() const override {
    return def_->journal_plugin_id;
  }
  std::string SnapshotPluginId() const override {
    return def_->snapshot_plugin_id;
  }

 protected:
  void OnPersistRejected(const absl::Status& cause,
                         const serialization::Payload&, int64_t) override {
    // Its effect's entry stays in pending_ until a later effect's event
    // passes it (OnStored).
    throw EventRejectedException(std::string(cause.message()));
  }
  void OnUnhandledRecoveryEvent(const serialization::Payload& event) override {
    throw std::runtime_error("the event is a " + event.TypeName() +
                             ", none of the behaviour's events");
  }
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload* event) override {
    def_->signals.Signal(state_lost_ ? def_->empty_state : state_,
                         RecoveryFailed{cause});
    PersistentActor::OnRecoveryFailure(cause, event);
  }

 private:
  // An effect whose events are in flight: how many are still to be
  // applied, and what runs after the last.
  struct Pending {
    uint64_t id = 0;
    size_t events_left = 0;
    absl::InlinedVector<SideEffect<StateType>, 1> side_effects;
  };

  template <typename... As>
  void DeclareCommands(TypeList<As...>) {
    (this->template Command<As>([this](const As& c) { OnAnyCommand(c); }), ...);
  }

  template <typename... As>
  void DeclareEvents(TypeList<As...>) {
    (Recover<As>([this](const As& event) { ApplyEvent(event); }), ...);
  }

  // The stores' outcomes, as signals (a command handler never sees them).
  void DeclareOutcomeSignals() {
    Command<SaveSnapshotSuccess>([this](const SaveSnapshotSuccess& m) {
      def_->signals.Signal(state_, SnapshotCompleted{m.metadata});
    });
    Command<SaveSnapshotFailure>([this](const SaveSnapshotFailure& m) {
      def_->signals.Signal(state_, SnapshotFailed{m.metadata, m.cause});
    });
    Command<DeleteSnapshotsSuccess>([this](const DeleteSnapshotsSuccess& m) {
      def_->signals.Signal(state_, DeleteSnapshotsCompleted{m.criteria});
    });
    Command<DeleteSnapshotsFailure>([this](const DeleteSnapshotsFailure& m) {
      def_->signals.Signal(state_, DeleteSnapshotsFailed{m.criteria, m.cause});
    });
    Command<DeleteMessagesSuccess>([this](const DeleteMessagesSuccess& m) {
      def_->signals.Signal(state_, DeleteEventsCompleted{m.to_sequence_nr});
    });
    Command<DeleteMessagesFailure>([this](const DeleteMessagesFailure& m) {
      def_->signals.Signal(state_,
                           DeleteEventsFailed{m.to_sequence_nr, m.cause});
    });
  }

  template <typename A, typename... As>
  static constexpr size_t IndexOf(TypeList<As...>) {
    size_t index = 0;
    const bool found =
        ((std::is_same_v<A, As> ? true : (++index, false)) || ...);
    return found ? index : sizeof...(As);
  }

  template <typename A>
  void OnAnyCommand(const A& command) {
    RequireState();
    constexpr size_t kIndex =
        IndexOf<A>(typename BehaviorDefinition::CommandList{});
    Apply(def_->commands.template get<kIndex>()(state_, command), command);
  }

  template <typename A>
  void Apply(EffectType effect, const A& command) {
    EffectData<EventType, StateType>& data = effect.data_;
    if (data.unhandled) Unhandled(actor::AnyMessage::Of(command));
    if (data.stash) Stash();
    if (data.events.empty()) {
      RunSideEffects(data.side_effects);
      return;
    }
    const uint64_t id = ++last_effect_id_;
    pending_.push_back(
        Pending{id, data.events.size(), std::move(data.side_effects)});
    auto stored = [this, id](const serialization::Payload& p) {
      OnStored(id, p);
    };
    if (data.events.size() == 1) {
      PersistPayload(ToPayload(std::move(data.events[0])), stored,
                     /*stashing=*/true);
      return;
    }
    std::vector<serialization::Payload> payloads;
    payloads.reserve(data.events.size());
    for (EventType& e : data.events) {
      payloads.push_back(ToPayload(std::move(e)));
    }
    PersistAllPayloads(std::move(payloads), stored, /*stashing=*/true);
  }

  serialization::Payload ToPayload(EventType event) const {
    std::vector<std::string> tags;
    if (def_->tagger) tags = def_->tagger(event);
    serialization::Payload payload;
    if constexpr (base::IsVariant<EventType>::value) {
      payload = std::visit(
          [](auto&& e) {
            return serialization::Payload::Of(std::forward<decltype(e)>(e));
          },
          std::move(event));
    } else {
      payload = serialization::Payload::Of(std::move(event));
    }
    if (tags.empty()) return payload;
    return serialization::Payload::Of(
        Tagged{std::move(payload), std::move(tags)});
  }

  // An event of effect `id` is stored: applies it, and after the effect's
  // last one runs its side effects. Effects ahead of it in pending_ were
  // rejected (their events never come): their side effects never run.
  void OnStored(uint64_t id, const serialization::Payload& stored) {
    while (!pending_.empty() && pending_.front().id != id) {
      pending_.pop_front();
    }
    if (pending_.empty()) {
      throw std::logic_error("an event was stored for an effect not pending");
    }
    // Counted before it is applied: a handler that throws does not leave
    // its effect's count behind for the next event.
    absl::InlinedVector<SideEffect<StateType>, 1> side_effects;
    const bool last = --pending_.front().events_left == 0;
    if (last) {
      side_effects = std::move(pending_.front().side_effects);
      pending_.pop_front();
    }
    RequireState();
    const Tagged* tagged = stored.As<Tagged>();
    const serialization::Payload& event =
        tagged != nullptr ? tagged->event : stored;
    if (!ApplyStored(event, typename BehaviorDefinition::EventList{})) {
      throw std::logic_error("stored an event of type " + event.TypeName() +
                             " that is none of the behaviour's");
    }
    if (last) RunSideEffects(side_effects);
  }

  template <typename... As>
  bool ApplyStored(const serialization::Payload& event, TypeList<As...>) {
    return (ApplyStoredIf<As>(event) || ...);
  }
  template <typename A>
  bool ApplyStoredIf(const serialization::Payload& payload) {
    const A* stored = payload.template As<A>();
    if (stored == nullptr) return false;
    ApplyEvent(*stored);
    constexpr size_t kIndex =
        IndexOf<A>(typename BehaviorDefinition::EventList{});
    const int64_t sequence_nr = LastSequenceNr();
    // Retention saves a snapshot at its own numbers: not a second one.
    const bool retention_saves = def_->retention.has_value() &&
                                 def_->retention->SnapshotWhen(sequence_nr);
    if (def_->has_snapshot_when && !retention_saves &&
        def_->snapshot_when.template get<kIndex>()(state_, *stored,
                                                   sequence_nr)) {
      SaveSnapshot(state_);
    }
    return true;
  }

  // The event handler, live and in replay. If it throws, the state it was
  // given is gone: the actor refuses to go on (a restart recovers it).
  template <typename A>
  void ApplyEvent(const A& event) {
    constexpr size_t kIndex =
        IndexOf<A>(typename BehaviorDefinition::EventList{});
    state_lost_ = true;
    state_ = def_->events.template get<kIndex>()(std::move(state_), event);
    state_lost_ = false;
  }

  void RequireState() const {
    if (state_lost_) {
      throw actor::IllegalActorStateException(
          "the state of " + def_->persistence_id +
          " was lost when its event handler threw: restart the actor");
    }
  }

  void RunSideEffects(absl::InlinedVector<SideEffect<StateType>, 1>& steps) {
    for (SideEffect<StateType>& step : steps) {
      switch (step.kind) {
        case SideEffect<StateType>::Kind::kRun:
          step.run(state_);
          break;
        case SideEffect<StateType>::Kind::kStop:
          Context().Stop(Self());
          break;
        case SideEffect<StateType>::Kind::kUnstashAll:
          UnstashAll();
          break;
      }
    }
  }

  const std::shared_ptr<const BehaviorDefinition> def_;
  StateType state_;
  // The event handler threw: state_ is moved-from.
  bool state_lost_ = false;
  uint64_t last_effect_id_ = 0;
  base::RingQueue<Pending> pending_;
};

}  // namespace cairn::persistence::typed::internal

#endif  // CAIRN_PERSISTENCE_TYPED_INTERNAL_EVENT_SOURCED_ACTOR_H_
