// What the typed API refuses to compile. Each check is a requires-expression
// over the API's own constraints: it is false exactly when the code it
// names would not compile, so a loosened constraint fails this build.

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include "actor/typed_ref.h"
#include "gtest/gtest.h"
#include "persistence/typed/durable_state_behavior.h"
#include "persistence/typed/event_sourced_behavior.h"

namespace cairn::persistence::typed {
namespace {

using actor::ReplyTo;
using actor::TypedRef;

struct Deposit {
  int64_t amount = 0;
  ReplyTo<int64_t> reply_to;
};
struct Close {};
using Command = std::variant<Deposit, Close>;
struct Deposited {
  int64_t amount = 0;
};
struct Closed {};
using Event = std::variant<Deposited, Closed>;
struct State {
  int64_t balance = 0;
};
using Behavior = EventSourcedBehavior<Command, Event, State>;
using Effect = Behavior::Effect;
using ReplyEffect = Behavior::ReplyEffect;

// Handlers, each as its own type.
struct AllCommands {
  Effect operator()(const State&, const Deposit&) const {
    return Effect::None();
  }
  Effect operator()(const State&, const Close&) const { return Effect::None(); }
};
struct DepositOnly {
  Effect operator()(const State&, const Deposit&) const {
    return Effect::None();
  }
};
struct AllReplying {
  ReplyEffect operator()(const State&, const Deposit& c) const {
    return Effect::Reply(c.reply_to, int64_t{1});
  }
  ReplyEffect operator()(const State&, const Close&) const {
    return Effect::NoReply();
  }
};
struct OneForgetsToReply {
  ReplyEffect operator()(const State&, const Deposit& c) const {
    return Effect::Persist(Deposited{c.amount})
        .ThenReply(c.reply_to, [](const State& s) { return s.balance; });
  }
  Effect operator()(const State&, const Close&) const {
    return Effect::Persist(Closed{});  // no reply: refused when enforced
  }
};
struct AllEvents {
  State operator()(State s, const Event&) const { return s; }
};
struct DepositedOnly {
  State operator()(State s, const Deposited&) const { return s; }
};

template <typename C, typename E>
concept Builds = requires(const C& c, const E& e) {
  Behavior("id", State{}, c, e);
};
template <typename C, typename E>
concept BuildsEnforced = requires(const C& c, const E& e) {
  Behavior::WithEnforcedReplies("id", State{}, c, e);
};

// Every command and event type needs a handler.
static_assert(Builds<AllCommands, AllEvents>);
static_assert(!Builds<DepositOnly, AllEvents>);
static_assert(!Builds<AllCommands, DepositedOnly>);

// Under WithEnforcedReplies each handler returns a ReplyEffect; one that
// returns a plain Effect (which may not reply) is refused. A replying
// handler is fine without enforcement too.
static_assert(BuildsEnforced<AllReplying, AllEvents>);
static_assert(!BuildsEnforced<OneForgetsToReply, AllEvents>);
static_assert(!BuildsEnforced<AllCommands, AllEvents>);
static_assert(Builds<AllReplying, AllEvents>);
static_assert(Builds<OneForgetsToReply, AllEvents>);

// The handlers are shared by every actor made from the behaviour: one that
// must be called non-const (a mutable lambda) is refused.
struct MutableCommands {
  Effect operator()(const State&, const Deposit&) { return Effect::None(); }
  Effect operator()(const State&, const Close&) { return Effect::None(); }
};
static_assert(!Builds<MutableCommands, AllEvents>);

// Only the reply helpers make a ReplyEffect (Stash too: the command is
// answered when it is handled again, as Akka typed's).
static_assert(!std::is_convertible_v<Effect, ReplyEffect>);
static_assert(!std::is_constructible_v<ReplyEffect, Effect>);
static_assert(std::is_convertible_v<ReplyEffect, Effect>);
static_assert(std::is_same_v<decltype(Effect::Stash()), ReplyEffect>);
static_assert(std::is_same_v<decltype(Effect::None()), Effect>);

// A reply's type is the command's ReplyTo<R>.
template <typename M>
concept RepliesWith = requires(const ReplyTo<int64_t>& to, M m) {
  Effect::Reply(to, m);
};
static_assert(RepliesWith<int64_t>);
static_assert(RepliesWith<int>);      // converts to int64_t
static_assert(!RepliesWith<double>);  // would narrow
static_assert(!RepliesWith<std::string>);
template <typename F>
concept ThenRepliesWith = requires(const ReplyTo<int64_t>& to, F f) {
  Effect::None().ThenReply(to, f);
};
static_assert(ThenRepliesWith<int64_t (*)(const State&)>);
static_assert(!ThenRepliesWith<std::string (*)(const State&)>);

// Only events of the behaviour are persisted.
template <typename E>
concept Persists = requires(E e) {
  Effect::Persist(e);
};
static_assert(Persists<Deposited>);
static_assert(!Persists<Deposit>);
static_assert(!Persists<int>);

// A durable state behaviour persists its whole state, or deletes it; an
// event-sourced one persists events and has no Delete.
using DurableEffect = DurableStateBehavior<Command, State>::Effect;
template <typename E, typename T>
concept PersistsAs = requires(T t) {
  E::Persist(t);
};
template <typename E>
concept Deletes = requires {
  E::Delete();
};
static_assert(PersistsAs<DurableEffect, State>);
static_assert(!PersistsAs<DurableEffect, Deposited>);
static_assert(Deletes<DurableEffect>);
static_assert(!Deletes<Effect>);
static_assert(!PersistsAs<Effect, State>);

// A TypedRef takes only the behaviour's commands.
template <typename M>
concept Tells = requires(const TypedRef<Command>& ref, M m) {
  ref.Tell(m);
};
static_assert(Tells<Deposit>);
static_assert(Tells<Command>);
static_assert(!Tells<Deposited>);
static_assert(!Tells<std::string>);

// A signal handler that takes no signal is a mistake.
template <typename F>
concept TakesSignals = requires(const Behavior& b, const F& f) {
  b.ReceiveSignal(f);
};
static_assert(TakesSignals<void (*)(const State&, const RecoveryCompleted&)>);
static_assert(!TakesSignals<void (*)(const State&, const Deposit&)>);

TEST(CompileChecksTest, AreCheckedWhenThisFileCompiles) { SUCCEED(); }

}  // namespace
}  // namespace cairn::persistence::typed
