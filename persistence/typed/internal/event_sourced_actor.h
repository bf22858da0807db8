#ifndef CAIRN_PERSISTENCE_TYPED_INTERNAL_EVENT_SOURCED_ACTOR_H_
#define CAIRN_PERSISTENCE_TYPED_INTERNAL_EVENT_SOURCED_ACTOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "actor/any_message.h"
#include "base/ring_queue.h"
#include "persistence/messages.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/tagged.h"
#include "persistence/typed/effect.h"
#include "persistence/typed/internal/definition.h"
#include "persistence/typed/signals.h"
#include "serialization/payload.h"

namespace cairn::persistence::typed {

// The journal rejected an event of an EventSourcedBehavior (e.g. it could
// not be serialized). The actor fails with it, as in Akka typed: its
// supervisor decides (a restart recovers the state the journal holds), and
// the side effects of the effect that persisted it do not run.
class EventRejectedException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace internal {

// The actor that runs an EventSourcedBehavior: a PersistentActor whose
// handlers are the behaviour's, per command and event type.
// (Its template parameters are not named Command and Event: a member of
// the base, PersistentActor::Command, would hide them.)
template <typename Cmd, typename Evt, typename State>
class EventSourcedActor final : public PersistentActor {
 public:
  using Def = Definition<Cmd, Evt, State>;
  using EffectT = Effect<Evt, State>;

  explicit EventSourcedActor(std::shared_ptr<const Def> definition)
      : def_(std::move(definition)), state_(def_->empty_state) {
    DeclareEvents(typename Def::EventList{});
    Recover<SnapshotOffer>([this](const SnapshotOffer& offer) {
      const State* state = offer.snapshot.template As<State>();
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
    DeclareCommands(typename Def::CommandList{});
    if constexpr (IsVariant<Cmd>::value) {
      // Told as the variant itself (not through a TypedRef, which sends
      // the alternative).
      this->template Command<Cmd>([this](const Cmd& command) {
        std::visit([this](const auto& c) { this->OnAnyCommand(c); }, command);
      });
    }
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
    throw EventRejectedException(std::string(cause.message()));
  }
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload* event) override {
    def_->signals.Signal(state_, RecoveryFailed{cause});
    PersistentActor::OnRecoveryFailure(cause, event);
  }

 private:
  // An effect whose events are in flight: how many are still to be
  // applied, and what runs after the last.
  struct Pending {
    size_t events_left = 0;
    absl::InlinedVector<SideEffect<State>, 1> side_effects;
  };

  template <typename... As>
  void DeclareEvents(TypeList<As...>) {
    DeclareEvents<0, As...>();
  }
  template <size_t I, typename A, typename... Rest>
  void DeclareEvents() {
    Recover<A>([this](const A& event) {
      state_ = def_->events.template get<I>()(std::move(state_), event);
    });
    if constexpr (sizeof...(Rest) > 0) DeclareEvents<I + 1, Rest...>();
  }

  template <typename... As>
  void DeclareCommands(TypeList<As...>) {
    (this->template Command<As>([this](const As& c) { OnAnyCommand(c); }), ...);
  }

  template <typename A>
  void OnAnyCommand(const A& command) {
    constexpr size_t kIndex = IndexOf<A>(typename Def::CommandList{});
    Apply(def_->commands.template get<kIndex>()(state_, command), command);
  }

  template <typename A, typename... As>
  static constexpr size_t IndexOf(TypeList<As...>) {
    size_t index = 0;
    const bool found =
        ((std::is_same_v<A, As> ? true : (++index, false)) || ...);
    return found ? index : sizeof...(As);
  }

  template <typename A>
  void Apply(EffectT effect, const A& command) {
    EffectData<Evt, State>& data = effect.data();
    if (data.unhandled) Unhandled(actor::AnyMessage::Of(command));
    if (data.stash) Stash();
    if (data.events.empty()) {
      RunSideEffects(data.side_effects);
      return;
    }
    pending_.push_back(
        Pending{data.events.size(), std::move(data.side_effects)});
    auto stored = [this](const serialization::Payload& p) { OnStored(p); };
    if (data.events.size() == 1) {
      PersistPayload(ToPayload(std::move(data.events[0])), stored,
                     /*stashing=*/true);
      return;
    }
    std::vector<serialization::Payload> payloads;
    payloads.reserve(data.events.size());
    for (Evt& e : data.events) payloads.push_back(ToPayload(std::move(e)));
    PersistAllPayloads(std::move(payloads), stored, /*stashing=*/true);
  }

  serialization::Payload ToPayload(Evt event) const {
    std::vector<std::string> tags;
    if (def_->tagger) tags = def_->tagger(event);
    serialization::Payload payload;
    if constexpr (IsVariant<Evt>::value) {
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

  // An event of the effect at pending_'s front is stored: applies it, and
  // after the effect's last one runs its side effects.
  void OnStored(const serialization::Payload& stored) {
    const Tagged* tagged = stored.As<Tagged>();
    ApplyStored(tagged != nullptr ? tagged->event : stored,
                typename Def::EventList{});
    if (--pending_.front().events_left > 0) return;
    absl::InlinedVector<SideEffect<State>, 1> side_effects =
        std::move(pending_.front().side_effects);
    pending_.pop_front();
    RunSideEffects(side_effects);
  }

  template <typename... As>
  void ApplyStored(const serialization::Payload& event, TypeList<As...>) {
    const bool applied = (ApplyIf<As>(event) || ...);
    if (!applied) {
      throw std::logic_error("stored an event of type " + event.TypeName() +
                             " that is none of the behaviour's");
    }
  }
  template <typename A>
  bool ApplyIf(const serialization::Payload& payload) {
    const A* stored = payload.template As<A>();
    if (stored == nullptr) return false;
    const A& event = *stored;
    constexpr size_t kIndex = IndexOf<A>(typename Def::EventList{});
    state_ = def_->events.template get<kIndex>()(std::move(state_), event);
    if (def_->has_snapshot_when && def_->snapshot_when.template get<kIndex>()(
                                       state_, event, LastSequenceNr())) {
      SaveSnapshot(state_);
    }
    return true;
  }

  void RunSideEffects(absl::InlinedVector<SideEffect<State>, 1>& steps) {
    for (SideEffect<State>& step : steps) {
      switch (step.kind) {
        case SideEffect<State>::Kind::kRun:
          step.run(state_);
          break;
        case SideEffect<State>::Kind::kStop:
          Context().Stop(Self());
          break;
        case SideEffect<State>::Kind::kUnstashAll:
          UnstashAll();
          break;
      }
    }
  }

  const std::shared_ptr<const Def> def_;
  State state_;
  base::RingQueue<Pending> pending_;
};

}  // namespace internal
}  // namespace cairn::persistence::typed

#endif  // CAIRN_PERSISTENCE_TYPED_INTERNAL_EVENT_SOURCED_ACTOR_H_
