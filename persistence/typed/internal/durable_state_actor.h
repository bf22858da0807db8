#ifndef CAIRN_PERSISTENCE_TYPED_INTERNAL_DURABLE_STATE_ACTOR_H_
#define CAIRN_PERSISTENCE_TYPED_INTERNAL_DURABLE_STATE_ACTOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/any_message.h"
#include "actor/control_message.h"
#include "actor/exceptions.h"
#include "base/variant_traits.h"
#include "persistence/persistence.h"
#include "persistence/storage/durable_state_store.h"
#include "persistence/typed/effect.h"
#include "persistence/typed/internal/definition.h"
#include "persistence/typed/signals.h"
#include "serialization/payload.h"

namespace cairn::persistence::typed::internal {

// The store's answers to a DurableStateActor, tagged with the incarnation
// they are for (a restarted actor drops its predecessor's). Control
// messages: handled before the commands waiting.
struct StateRecovered {
  uint64_t instance = 0;
  absl::StatusOr<DurableStateObject> object;
};
struct StateWritten {
  uint64_t instance = 0;
  absl::Status status;
};

}  // namespace cairn::persistence::typed::internal

template <>
inline constexpr bool cairn::actor::kControlMessage<
    cairn::persistence::typed::internal::StateRecovered> = true;
template <>
inline constexpr bool cairn::actor::kControlMessage<
    cairn::persistence::typed::internal::StateWritten> = true;

namespace cairn::persistence::typed::internal {

// Tells the incarnations of every DurableStateActor apart.
inline uint64_t NextDurableStateInstance() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) + 1;
}

// Everything a DurableStateBehavior says, shared by its actors.
template <typename Command, typename State>
struct DurableStateDefinition {
  using CommandList = typename AlternativesOf<Command>::type;

  std::string persistence_id;
  State empty_state;
  PerAlternative<Effect<StateChange<State>, State>, const State&, CommandList>
      commands;
  std::string tag;
  std::string plugin_id;  // empty: akka.persistence.state.plugin
  SignalHandlers<State, Signals> signals;
};

// The actor that runs a DurableStateBehavior (Akka's): on start it reads
// its state from the durable state store, holding the commands that come
// meanwhile; each command's effect writes the whole new state at the next
// revision, holding the commands until the store has it, then runs the
// side effects. A write the store refuses or fails (another writer took
// the revision, the store is down) stops the actor, as a failed Persist
// stops a persistent actor: put it under a BackoffSupervisor.
//
// One writer per persistence id and store, as for PersistentActor
// (Persistence::ClaimPersistenceId); writes carry the nearest write fence
// scope's fence (sharding's leases).
template <typename CommandType, typename StateType>
class DurableStateActor final : public actor::Actor {
 public:
  using BehaviorDefinition = DurableStateDefinition<CommandType, StateType>;
  using EffectType = Effect<StateChange<StateType>, StateType>;

  explicit DurableStateActor(std::shared_ptr<const BehaviorDefinition> def)
      : def_(std::move(def)),
        instance_(NextDurableStateInstance()),
        state_(def_->empty_state) {
    DeclareCommands(typename BehaviorDefinition::CommandList{});
    if constexpr (base::IsVariant<CommandType>::value) {
      Receive<CommandType>([this](const CommandType& command) {
        std::visit([this](const auto& c) { this->OnAnyCommand(c); }, command);
      });
    }
    Receive<GetStateRequest<StateType>>(
        [this](const GetStateRequest<StateType>&) { Sender().Tell(state_); });
    UnstashThroughInternalStash();
  }

 private:
  template <typename... As>
  void DeclareCommands(TypeList<As...>) {
    (Receive<As>([this](const As& c) { OnAnyCommand(c); }), ...);
  }

  template <typename A, typename... As>
  static constexpr size_t IndexOf(TypeList<As...>) {
    size_t index = 0;
    const bool found =
        ((std::is_same_v<A, As> ? true : (++index, false)) || ...);
    return found ? index : sizeof...(As);
  }

  // The claim key: one writer per id on each durable state store (the
  // default store by its id, so that naming it or not claims the same).
  std::string ClaimKey() const {
    return absl::StrCat("akka.persistence.state:", store_plugin_id_);
  }

  void AroundPreStart() override {
    PreStart();
    StartRecovery();
  }
  // A restart's new instance recovers as a new actor does.
  void AroundPostRestart(const std::exception_ptr& reason) override {
    PostRestart(reason);
    StartRecovery();
  }
  void AroundPostStop() override {
    ReleaseClaim();
    PostStop();
  }
  void AroundPreRestart(const std::exception_ptr& reason,
                        const actor::AnyMessage& message) override {
    ReleaseClaim();
    PreRestart(reason, message);
  }

  bool AroundReceive(const actor::MessageView& message) override {
    if (const StateRecovered* r = message.As<StateRecovered>()) {
      if (r->instance == instance_) OnRecovered(r->object);
      return true;
    }
    if (const StateWritten* w = message.As<StateWritten>()) {
      if (w->instance == instance_) OnWritten(w->status);
      return true;
    }
    if (recovering_ || writing_ || failed_) {
      StashInternally();
      return true;
    }
    const bool handled = RunBehavior(message);
    if (!writing_) UnstashOneInternally();
    return handled;
  }
  // A PoisonPill waits behind the commands held back, as a persistent
  // actor's does.
  bool AroundPoisonPill() override {
    if (recovering_ || writing_) {
      StashInternally();
      return false;
    }
    return true;
  }

  void StartRecovery() {
    Persistence& persistence = Persistence::Get(Context().System());
    if (def_->persistence_id.empty()) {
      return FailRecovery(absl::InvalidArgumentError(
          "a durable state actor needs a persistence id"));
    }
    absl::StatusOr<DurableStateStore*> store =
        persistence.DurableStateStoreFor(def_->plugin_id);
    if (!store.ok()) return FailRecovery(store.status());
    store_plugin_id_ = def_->plugin_id.empty()
                           ? persistence.DefaultDurableStateStorePluginId()
                           : def_->plugin_id;
    if (absl::Status claim = persistence.ClaimPersistenceId(
            ClaimKey(), def_->persistence_id, Self());
        !claim.ok()) {
      return FailRecovery(claim);
    }
    claims_id_ = true;
    store_ = *store;
    fence_scope_ = persistence.WriteFenceScopeOf(Self());
    store_->AsyncGetObject(
        def_->persistence_id, [self = Self(), instance = instance_](
                                  absl::StatusOr<DurableStateObject> object) {
          self.Tell(StateRecovered{instance, std::move(object)}, self);
        });
  }

  void OnRecovered(const absl::StatusOr<DurableStateObject>& object) {
    if (!object.ok()) return FailRecovery(object.status());
    if (object->value.has_value()) {
      const StateType* state = object->value->template As<StateType>();
      if (state == nullptr) {
        return FailRecovery(absl::DataLossError(absl::StrCat(
            "the durable state of ", def_->persistence_id, " is a ",
            object->value->TypeName(), ", not the behaviour's state")));
      }
      state_ = *state;
    }
    revision_ = object->revision;
    recovering_ = false;
    def_->signals.Signal(state_, RecoveryCompleted{});
    UnstashOneInternally();
  }

  void FailRecovery(const absl::Status& cause) {
    failed_ = true;
    const absl::Status described(
        cause.code(),
        absl::StrCat("recovery of durable state ", def_->persistence_id, " (",
                     Self().Path().ToString(), ") failed: ", cause.message()));
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Error(std::string(described.message()));
    def_->signals.Signal(state_, RecoveryFailed{described});
    Context().Stop(Self());
  }

  template <typename A>
  void OnAnyCommand(const A& command) {
    constexpr size_t kIndex =
        IndexOf<A>(typename BehaviorDefinition::CommandList{});
    Apply(def_->commands.template get<kIndex>()(state_, command), command);
  }

  template <typename A>
  void Apply(EffectType effect, const A& command) {
    EffectData<StateChange<StateType>, StateType>& data = effect.data_;
    if (data.unhandled) Unhandled(actor::AnyMessage::Of(command));
    if (data.stash) Stash();
    if (data.events.empty()) {
      RunSideEffects(data.side_effects);
      return;
    }
    std::optional<StateType>& next = data.events.front().state;
    side_effects_ = std::move(data.side_effects);
    deleting_ = !next.has_value();
    written_ = deleting_ ? serialization::Payload()
                         : serialization::Payload::Of(std::move(*next));
    writing_ = true;
    const int64_t revision = revision_ + 1;
    std::optional<WriteFence> fence;
    if (fence_scope_ != nullptr) {
      std::shared_ptr<const WriteFence> current = fence_scope_->Current();
      if (current == nullptr) {
        return OnWritten(absl::FailedPreconditionError(
            absl::StrCat("no write fence in ", fence_scope_->path(),
                         ": the state is not written")));
      }
      fence = *current;
    }
    auto done = [self = Self(), instance = instance_](absl::Status status) {
      self.Tell(StateWritten{instance, std::move(status)}, self);
    };
    if (deleting_) {
      store_->AsyncDeleteObject(def_->persistence_id, revision,
                                std::move(fence), std::move(done));
    } else {
      store_->AsyncUpsertObject(def_->persistence_id, revision, written_,
                                def_->tag, std::move(fence), std::move(done));
    }
  }

  void OnWritten(const absl::Status& status) {
    writing_ = false;
    if (!status.ok()) {
      failed_ = true;
      Context()
          .System()
          .Log(Self().Path().ToString())
          .Error(absl::StrCat("failed to write the durable state of ",
                              def_->persistence_id, " at revision ",
                              revision_ + 1, ": ", status.message(),
                              "; stopping"));
      Context().Stop(Self());
      return;
    }
    ++revision_;
    state_ = deleting_ ? def_->empty_state : *written_.As<StateType>();
    written_ = serialization::Payload();
    absl::InlinedVector<SideEffect<StateType>, 1> side_effects =
        std::move(side_effects_);
    RunSideEffects(side_effects);
    if (!writing_) UnstashOneInternally();
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

  void ReleaseClaim() {
    if (!claims_id_) return;
    claims_id_ = false;
    Persistence::Get(Context().System())
        .ReleasePersistenceId(ClaimKey(), def_->persistence_id, Self());
  }

  const std::shared_ptr<const BehaviorDefinition> def_;
  const uint64_t instance_;
  StateType state_;
  int64_t revision_ = 0;
  DurableStateStore* store_ = nullptr;
  std::string store_plugin_id_;
  std::shared_ptr<const WriteFenceScope> fence_scope_;
  bool claims_id_ = false;
  bool recovering_ = true;
  bool failed_ = false;
  // A write in flight: what it stores (a delete: empty) and what runs once
  // it is stored.
  bool writing_ = false;
  bool deleting_ = false;
  serialization::Payload written_;
  absl::InlinedVector<SideEffect<StateType>, 1> side_effects_;
};

}  // namespace cairn::persistence::typed::internal

#endif  // CAIRN_PERSISTENCE_TYPED_INTERNAL_DURABLE_STATE_ACTOR_H_
