#ifndef CAIRN_PERSISTENCE_TYPED_EVENT_SOURCED_BEHAVIOR_TEST_KIT_H_
#define CAIRN_PERSISTENCE_TYPED_EVENT_SOURCED_BEHAVIOR_TEST_KIT_H_

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/testkit/test_probe.h"
#include "actor/typed_ref.h"
#include "base/variant_traits.h"
#include "persistence/persistence.h"
#include "persistence/testkit/persistence_test_kit.h"
#include "persistence/typed/event_sourced_behavior.h"
#include "persistence/typed/internal/event_sourced_actor.h"
#include "serialization/payload.h"
#include "serialization/serialization.h"

namespace cairn::persistence::typed {

// Akka typed's EventSourcedBehaviorTestKit: runs one EventSourcedBehavior
// on the PersistenceTestKit's in-memory journal and snapshot store, one
// command at a time, and gives back what the command persisted, the state
// after it and its reply:
//
//   actor::testkit::TestKit kit(testkit::PersistenceTestKit::Config());
//   auto account = EventSourcedBehaviorTestKit<Cmd, Evt, Account>::Create(
//       kit.Sys(), MakeAccount("a"), {.serialization = registry}).value();
//   auto result = account->RunCommand<int64_t>(
//       [](ReplyTo<int64_t> to) { return Deposit{5, to}; });
//   EXPECT_EQ(result.reply, 5);
//   EXPECT_EQ(result.state.balance, 5);
//   ASSERT_EQ(result.events.size(), 1u);
//   EXPECT_EQ(account->Restart().balance, 5);  // recovered by replay
//
// Every event a command persists and the state after it go through the
// system's SerializationRegistry and back (Settings), as a real store and a
// snapshot would take them: a type that is not registered, or whose bytes
// read back as another type, fails the command's check here rather than in
// production. The PersistenceTestKit (persistence()) fails, rejects and
// expects as for any persistent actor.
//
// A failed expectation (no reply, no state in time, an event that does not
// serialize) throws actor::testkit::TestKitAssertion.
//
// Ownership: the caller owns the kit; `system` must outlive it, and is
// given to no other PersistenceTestKit. Thread safety: one test thread; the
// calls block it until the actor has answered.
template <typename Command, typename Event, typename State>
class EventSourcedBehaviorTestKit {
 public:
  using Behavior = EventSourcedBehavior<Command, Event, State>;

  struct Settings {
    // Round-trips each event persisted, and the state after each command,
    // through the registry.
    bool verify_events = true;
    bool verify_state = true;
    absl::Duration timeout = actor::testkit::kDefaultExpectTimeout;
  };

  // What a command did: the events it persisted (in order; none for a
  // command that persists nothing) and the state after them.
  struct CommandResult {
    std::vector<Event> events;
    State state;
  };
  template <typename R>
  struct CommandResultWithReply {
    std::vector<Event> events;
    State state;
    R reply;
  };

  // Installs a PersistenceTestKit in `system` (whose config must be
  // testkit::PersistenceTestKit::Config(), or name its plugins) with
  // `setup`, starts `behavior` and waits for its recovery. Fails as
  // PersistenceTestKit::Create does, and with InvalidArgument if a check
  // is on and `setup` has no serialization registry; throws
  // TestKitAssertion if the behaviour does not recover in time.
  static absl::StatusOr<std::unique_ptr<EventSourcedBehaviorTestKit>> Create(
      actor::ActorSystem& system, Behavior behavior,
      PersistenceSetup setup = {}, Settings settings = {}) {
    std::shared_ptr<const serialization::SerializationRegistry> registry =
        setup.serialization;
    if (registry == nullptr &&
        (settings.verify_events || settings.verify_state)) {
      return absl::InvalidArgumentError(
          "EventSourcedBehaviorTestKit checks serialization: give "
          "setup.serialization, or turn Settings::verify_events and "
          "verify_state off");
    }
    absl::StatusOr<std::unique_ptr<testkit::PersistenceTestKit>> persistence =
        testkit::PersistenceTestKit::Create(system, std::move(setup));
    if (!persistence.ok()) return persistence.status();
    std::unique_ptr<EventSourcedBehaviorTestKit> kit(
        new EventSourcedBehaviorTestKit(system, std::move(behavior),
                                        *std::move(persistence),
                                        std::move(registry), settings));
    kit->Start();
    return kit;
  }

  ~EventSourcedBehaviorTestKit() { system_.Stop(ref_.ref()); }
  EventSourcedBehaviorTestKit(const EventSourcedBehaviorTestKit&) = delete;
  EventSourcedBehaviorTestKit& operator=(const EventSourcedBehaviorTestKit&) =
      delete;

  // Tells `command` and waits until it is handled (and what it persisted
  // is stored).
  template <typename C>
  requires actor::AcceptedBy<C, Command> CommandResult RunCommand(C&& command) {
    ref_.Tell(std::forward<C>(command));
    State state = GetState();
    return CommandResult{TakeEvents(), std::move(state)};
  }
  // Tells the command `make_command(reply_to)` builds and waits for its
  // reply, of type R.
  template <typename R, typename F>
  requires std::invocable<F&, actor::ReplyTo<R>> &&
      actor::AcceptedBy<std::invoke_result_t<F&, actor::ReplyTo<R>>, Command>
          CommandResultWithReply<R> RunCommand(F make_command) {
    R reply =
        Await(actor::Ask<R>(ref_, std::move(make_command), settings_.timeout),
              "the command's reply");
    State state = GetState();
    return CommandResultWithReply<R>{TakeEvents(), std::move(state),
                                     std::move(reply)};
  }

  // The state now (after the commands told before).
  State GetState() {
    State state =
        Await(actor::Ask<State>(ref_.ref(), internal::GetStateRequest<State>{},
                                settings_.timeout),
              "the state");
    if (settings_.verify_state) {
      Verify(serialization::Payload::Of(state), "the state");
    }
    return state;
  }

  // Stops the actor and starts it again: it recovers from the store. Returns
  // the state it recovered.
  State Restart() {
    actor::testkit::TestProbe probe(system_);
    probe.Watch(ref_.ref());
    system_.Stop(ref_.ref());
    probe.ExpectTerminated(ref_.ref(), settings_.timeout);
    Start();
    return GetState();
  }

  const actor::TypedRef<Command>& ref() const { return ref_; }
  testkit::PersistenceTestKit& persistence() { return *persistence_; }

 private:
  EventSourcedBehaviorTestKit(
      actor::ActorSystem& system, Behavior behavior,
      std::unique_ptr<testkit::PersistenceTestKit> persistence,
      std::shared_ptr<const serialization::SerializationRegistry> registry,
      Settings settings)
      : system_(system),
        behavior_(std::move(behavior)),
        persistence_(std::move(persistence)),
        registry_(std::move(registry)),
        settings_(settings) {}

  void Start() {
    ref_ = actor::TypedRef<Command>(system_.ActorOf(behavior_.ToProps()));
    GetState();  // once recovered
    persistence_->TakeRecordedEvents(behavior_.persistence_id());
  }

  template <typename T>
  T Await(actor::Future<T> future, const char* what) {
    try {
      return future.get();
    } catch (const std::exception& e) {
      throw actor::testkit::TestKitAssertion(absl::StrCat(
          "expected ", what, " from ", behavior_.persistence_id(), " within ",
          absl::FormatDuration(settings_.timeout), ": ", e.what()));
    }
  }

  std::vector<Event> TakeEvents() {
    std::vector<Event> events;
    for (const serialization::Payload& payload :
         persistence_->TakeRecordedEvents(behavior_.persistence_id())) {
      if (settings_.verify_events) Verify(payload, "an event");
      events.push_back(ToEvent(payload));
    }
    return events;
  }

  Event ToEvent(const serialization::Payload& payload) const {
    if constexpr (base::IsVariant<Event>::value) {
      return ToAlternative(payload, static_cast<Event*>(nullptr));
    } else {
      const Event* event = payload.As<Event>();
      if (event == nullptr) ThrowNotAnEvent(payload);
      return *event;
    }
  }
  template <typename... As>
  Event ToAlternative(const serialization::Payload& payload,
                      std::variant<As...>*) const {
    std::optional<Event> event;
    auto take = [&](const auto* alternative) {
      if (alternative != nullptr && !event.has_value()) {
        event.emplace(*alternative);
      }
    };
    (take(payload.template As<As>()), ...);
    if (!event.has_value()) ThrowNotAnEvent(payload);
    return *std::move(event);
  }
  [[noreturn]] void ThrowNotAnEvent(
      const serialization::Payload& payload) const {
    throw actor::testkit::TestKitAssertion(
        absl::StrCat(behavior_.persistence_id(), " persisted a ",
                     payload.TypeName(), ", none of its behaviour's events"));
  }

  // Serializes `payload` and reads it back; throws unless it comes back as
  // the same type.
  void Verify(const serialization::Payload& payload, const char* what) const {
    absl::StatusOr<serialization::SerializedPayload> bytes =
        registry_->Serialize(payload);
    absl::StatusOr<serialization::Payload> back =
        bytes.ok() ? registry_->Deserialize(bytes->serializer_id,
                                            bytes->manifest, bytes->bytes)
                   : absl::StatusOr<serialization::Payload>(bytes.status());
    if (!back.ok() || back->type() != payload.type()) {
      throw actor::testkit::TestKitAssertion(absl::StrCat(
          what, " of ", behavior_.persistence_id(), ", a ", payload.TypeName(),
          ", does not round-trip through the serialization registry: ",
          back.ok() ? absl::StrCat("it reads back as a ", back->TypeName())
                    : std::string(back.status().message())));
    }
  }

  actor::ActorSystem& system_;
  const Behavior behavior_;
  const std::unique_ptr<testkit::PersistenceTestKit> persistence_;
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  const Settings settings_;
  actor::TypedRef<Command> ref_;
};

}  // namespace cairn::persistence::typed

#endif  // CAIRN_PERSISTENCE_TYPED_EVENT_SOURCED_BEHAVIOR_TEST_KIT_H_
