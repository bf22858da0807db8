#ifndef CAIRN_PERSISTENCE_TYPED_INTERNAL_DEFINITION_H_
#define CAIRN_PERSISTENCE_TYPED_INTERNAL_DEFINITION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "base/variant_traits.h"
#include "persistence/messages.h"
#include "persistence/retention_criteria.h"
#include "persistence/typed/effect.h"
#include "persistence/typed/signals.h"

namespace cairn::persistence::typed::internal {

template <typename... Ts>
struct TypeList {};

// The types a handler must take: a std::variant's alternatives, or the one
// type given.
template <typename T>
struct AlternativesOf {
  using type = TypeList<T>;
};
template <typename... Ts>
struct AlternativesOf<std::variant<Ts...>> {
  using type = TypeList<Ts...>;
};

// Whether f(state, alternative, extra...) gives an R for every
// alternative, f const: the handlers of a behaviour are shared by every
// actor made from it, and may be called from several threads at once.
template <typename F, typename R, typename StateArg, typename List,
          typename... Extra>
struct InvocableForEach;
template <typename F, typename R, typename StateArg, typename... As,
          typename... Extra>
struct InvocableForEach<F, R, StateArg, TypeList<As...>, Extra...>
    : std::bool_constant<(
          std::is_invocable_r_v<R, const F&, StateArg, const As&, Extra...> &&
          ...)> {};

// The signals a ReceiveSignal handler may take.
using Signals =
    TypeList<RecoveryCompleted, RecoveryFailed, SnapshotCompleted,
             SnapshotFailed, DeleteSnapshotsCompleted, DeleteSnapshotsFailed,
             DeleteEventsCompleted, DeleteEventsFailed>;

template <typename F, typename State, typename List>
struct TakesAnySignal;
template <typename F, typename State, typename... Ss>
struct TakesAnySignal<F, State, TypeList<Ss...>>
    : std::bool_constant<(
          std::is_invocable_v<const F&, const State&, const Ss&> || ...)> {};

// One function per alternative, so that a handler is called with the
// command or event itself, not a variant copied around it (a handler that
// takes the variant gets one made by conversion).
template <typename Result, typename StateArg, typename List, typename... Extra>
struct PerAlternative;
template <typename Result, typename StateArg, typename... As, typename... Extra>
struct PerAlternative<Result, StateArg, TypeList<As...>, Extra...> {
  std::tuple<std::function<Result(StateArg, const As&, Extra...)>...> functions;

  PerAlternative() = default;
  template <typename F>
  explicit PerAlternative(const F& f)
      : functions(std::function<Result(StateArg, const As&, Extra...)>(
            [f](StateArg s, const As& a, Extra... extra) -> Result {
              return f(std::forward<StateArg>(s), a, extra...);
            })...) {}

  template <size_t I>
  const auto& get() const {
    return std::get<I>(functions);
  }
};

template <typename State, typename List>
struct SignalHandlers;
template <typename State, typename... Ss>
struct SignalHandlers<State, TypeList<Ss...>> {
  std::tuple<std::function<void(const State&, const Ss&)>...> functions;

  // Sets the handler of each signal `f` takes.
  template <typename F>
  void Take(const F& f) {
    (TakeOne<Ss>(f), ...);
  }
  template <typename S>
  void Signal(const State& state, const S& signal) const {
    const auto& handler =
        std::get<std::function<void(const State&, const S&)>>(functions);
    if (handler) handler(state, signal);
  }

 private:
  template <typename S, typename F>
  void TakeOne(const F& f) {
    if constexpr (std::is_invocable_v<const F&, const State&, const S&>) {
      std::get<std::function<void(const State&, const S&)>>(functions) =
          [f](const State& state, const S& signal) { f(state, signal); };
    }
  }
};

// Asks a typed persistent actor for its state, answered to the sender (the
// behaviour test kits' GetState): handled like a command, so it waits
// behind a write in flight.
template <typename State>
struct GetStateRequest {};

// Everything an EventSourcedBehavior says, shared by the actor's
// incarnations. Immutable once the behaviour is built.
template <typename Command, typename Event, typename State>
struct Definition {
  using CommandList = typename AlternativesOf<Command>::type;
  using EventList = typename AlternativesOf<Event>::type;

  std::string persistence_id;
  State empty_state;
  PerAlternative<Effect<Event, State>, const State&, CommandList> commands;
  PerAlternative<State, State&&, EventList> events;
  PerAlternative<bool, const State&, EventList, int64_t> snapshot_when;
  bool has_snapshot_when = false;
  std::function<std::vector<std::string>(const Event&)> tagger;
  std::optional<RetentionCriteria> retention;
  Recovery recovery;
  std::string journal_plugin_id;
  std::string snapshot_plugin_id;
  SignalHandlers<State, Signals> signals;
};

}  // namespace cairn::persistence::typed::internal

#endif  // CAIRN_PERSISTENCE_TYPED_INTERNAL_DEFINITION_H_
