// EventSourcedBehavior against the in-memory plugins: Akka typed's
// EventSourcedBehaviorSpec scenarios that apply (effects, side effects
// after the write, stashing, replies, recovery, snapshots, tags, signals,
// a rejected event).

#include "persistence/typed/event_sourced_behavior.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "actor/actor_system.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "actor/supervisor_strategy.h"
#include "actor/testkit/event_filter.h"
#include "actor/testkit/test_kit.h"
#include "actor/typed_ref.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/persistence.h"
#include "persistence/storage/event_adapter.h"
#include "persistence/storage/testing/sync_calls.h"
#include "serialization/serialization.h"

namespace cairn::persistence::typed {
namespace {

using actor::ActorRef;
using actor::ReplyTo;
using actor::TypedRef;
using actor::testkit::TestKit;

// A counter: commands, events, state.
struct Add {
  int64_t amount = 0;
  ReplyTo<int64_t> reply_to;
};
struct AddTwice {  // two events in one atomic write
  int64_t amount = 0;
  ReplyTo<int64_t> reply_to;
};
struct Get {
  ReplyTo<int64_t> reply_to;
};
struct Ignore {};   // Effect::Unhandled
struct Hold {};     // Effect::Stash
struct Release {};  // Effect::UnstashAll
struct Halt {       // Persist, then stop
  ReplyTo<std::string> reply_to;
};
struct Unstorable {  // persists an event no serializer takes
  ReplyTo<int64_t> reply_to;
};
using CounterCommand =
    std::variant<Add, AddTwice, Get, Ignore, Hold, Release, Halt, Unstorable>;

struct Added {
  int64_t amount = 0;
};
struct Halted {};
struct NotSerializable {};
using CounterEvent = std::variant<Added, Halted, NotSerializable>;

struct Counter {
  int64_t value = 0;
  // Events applied by this incarnation (not in snapshots): tells a
  // recovery from a snapshot from a full replay.
  int64_t applied = 0;
};

using CounterBehavior =
    EventSourcedBehavior<CounterCommand, CounterEvent, Counter>;
using Effect = CounterBehavior::Effect;

// Throws for an Added of 13, live and in replay.
Counter Apply(Counter c, const CounterEvent& e) {
  if (const Added* a = std::get_if<Added>(&e)) {
    if (a->amount == 13) throw std::runtime_error("unlucky");
    c.value += a->amount;
  }
  ++c.applied;
  return c;
}

// The command handler, one lambda per command. The probe sees side effects
// in the order they run.
auto CounterCommands(ActorRef probe) {
  return Overloaded{
      [](const Counter&, const Add& c) {
        return Effect::Persist(Added{c.amount})
            .ThenReply(c.reply_to, [](const Counter& s) { return s.value; });
      },
      [probe](const Counter&, const AddTwice& c) {
        return Effect::Persist({Added{c.amount}, Added{c.amount}})
            .ThenRun([probe](const Counter& s) {
              probe.Tell(absl::StrCat("ran at ", s.value));
            })
            .ThenReply(c.reply_to, [](const Counter& s) { return s.value; });
      },
      [](const Counter& s, const Get& c) {
        return Effect::Reply(c.reply_to, s.value);
      },
      [](const Counter&, const Ignore&) { return Effect::Unhandled(); },
      [](const Counter&, const Hold&) -> Effect { return Effect::Stash(); },
      [](const Counter&, const Release&) { return Effect::UnstashAll(); },
      [](const Counter&, const Halt& c) {
        return Effect::Persist(Halted{}).ThenStop().ThenReply(
            c.reply_to, [](const Counter&) { return std::string("halting"); });
      },
      [](const Counter&, const Unstorable& c) {
        return Effect::Persist(NotSerializable{})
            .ThenReply(c.reply_to, [](const Counter& s) { return s.value; });
      },
  };
}

CounterBehavior MakeCounter(std::string id, ActorRef probe) {
  return CounterBehavior(std::move(id), Counter{}, CounterCommands(probe),
                         &Apply)
      .ReceiveSignal(Overloaded{
          [probe](const Counter& s, const RecoveryCompleted&) {
            probe.Tell(
                absl::StrCat("recovered ", s.value, " applied ", s.applied));
          },
          [probe](const Counter& s, const SnapshotCompleted& m) {
            probe.Tell(absl::StrCat("snapshot at ", m.metadata.sequence_nr,
                                    " of ", s.value));
          },
          [probe](const Counter& s, const RecoveryFailed& f) {
            probe.Tell(absl::StrCat("recovery failed at ", s.value, ": ",
                                    f.cause.message()));
          }});
}

absl::Status RegisterTypes(serialization::SerializationRegistry& registry) {
  absl::Status status = registry.Register<Added>(
      "test.Added",
      [](const Added& e) -> absl::StatusOr<std::string> {
        return absl::StrCat(e.amount);
      },
      [](absl::string_view bytes) -> absl::StatusOr<Added> {
        Added e;
        if (!absl::SimpleAtoi(bytes, &e.amount)) {
          return absl::DataLossError("not a number");
        }
        return e;
      });
  if (!status.ok()) return status;
  status = registry.Register<Halted>(
      "test.Halted",
      [](const Halted&) -> absl::StatusOr<std::string> { return ""; },
      [](absl::string_view) -> absl::StatusOr<Halted> { return Halted{}; });
  if (!status.ok()) return status;
  // The snapshot keeps the value only.
  return registry.Register<Counter>(
      "test.Counter",
      [](const Counter& c) -> absl::StatusOr<std::string> {
        return absl::StrCat(c.value);
      },
      [](absl::string_view bytes) -> absl::StatusOr<Counter> {
        Counter c;
        if (!absl::SimpleAtoi(bytes, &c.value)) {
          return absl::DataLossError("not a number");
        }
        return c;
      });
}

class EventSourcedBehaviorTest : public ::testing::Test {
 protected:
  EventSourcedBehaviorTest()
      : kit_(R"(
          akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
          akka.persistence.snapshot-store.plugin =
              "akka.persistence.snapshot-store.inmem"
        )") {
    auto registry = std::make_shared<serialization::SerializationRegistry>();
    EXPECT_OK(RegisterTypes(*registry));
    PersistenceSetup setup;
    setup.serialization = registry;
    EXPECT_OK(Persistence::Get(kit_.Sys()).Setup(std::move(setup)));
  }

  // Spawns `behavior` and waits for its recovery; returns what its
  // RecoveryCompleted signal said.
  std::pair<TypedRef<CounterCommand>, std::string> Start(
      const CounterBehavior& behavior) {
    TypedRef<CounterCommand> ref = Spawn(kit_.Sys(), behavior);
    return {ref, kit_.ExpectMsg<std::string>()};
  }

  void StopAndWait(const TypedRef<CounterCommand>& ref) {
    kit_.Watch(ref.ref());
    kit_.Sys().Stop(ref.ref());
    kit_.ExpectTerminated(ref.ref());
  }

  ReplyTo<int64_t> Me() { return ReplyTo<int64_t>(kit_.TestActor()); }

  TestKit kit_;
};

TEST_F(EventSourcedBehaviorTest, PersistsAppliesTheEventAndThenReplies) {
  auto [counter, recovered] = Start(MakeCounter("c1", kit_.TestActor()));
  EXPECT_EQ(recovered, "recovered 0 applied 0");
  counter.Tell(Add{5, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 5);
  counter.Tell(Add{2, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 7);
  counter.Tell(Get{Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 7);
}

TEST_F(EventSourcedBehaviorTest, ReplaysItsEventsThroughTheEventHandler) {
  auto [counter, recovered] = Start(MakeCounter("c2", kit_.TestActor()));
  counter.Tell(Add{5, Me()});
  kit_.ExpectMsg<int64_t>();
  counter.Tell(Add{3, Me()});
  kit_.ExpectMsg<int64_t>();
  StopAndWait(counter);
  auto [again, replayed] = Start(MakeCounter("c2", kit_.TestActor()));
  EXPECT_EQ(replayed, "recovered 8 applied 2");
  again.Tell(Get{Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 8);
}

TEST_F(EventSourcedBehaviorTest, SideEffectsRunOnceAfterEveryEventOfTheWrite) {
  auto [counter, recovered] = Start(MakeCounter("c3", kit_.TestActor()));
  counter.Tell(AddTwice{4, Me()});
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "ran at 8");  // both applied
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 8);               // then the reply
  absl::StatusOr<Journal*> journal =
      Persistence::Get(kit_.Sys()).JournalFor("");
  ASSERT_OK(journal);
  testing::ReplayOutcome stored =
      testing::ReplayMessages(**journal, "c3", 1, kMaxSequenceNr, 10);
  ASSERT_OK(stored.status);
  EXPECT_EQ(stored.events.size(), 2u);
}

TEST_F(EventSourcedBehaviorTest, CommandsWaitWhileAWriteIsInFlight) {
  auto [counter, recovered] = Start(MakeCounter("c4", kit_.TestActor()));
  // Told back to back: each Get is handled after the write before it, so
  // it sees its event applied.
  for (int i = 1; i <= 20; ++i) {
    counter.Tell(Add{1, Me()});
    counter.Tell(Get{Me()});
  }
  for (int i = 1; i <= 20; ++i) {
    EXPECT_EQ(kit_.ExpectMsg<int64_t>(), i);
    EXPECT_EQ(kit_.ExpectMsg<int64_t>(), i);
  }
}

TEST_F(EventSourcedBehaviorTest, AnUnhandledCommandIsPublished) {
  kit_.Sys().EventStream().Subscribe<actor::UnhandledMessage>(kit_.TestActor());
  auto [counter, recovered] = Start(MakeCounter("c5", kit_.TestActor()));
  counter.Tell(Ignore{});
  actor::UnhandledMessage unhandled = kit_.ExpectMsg<actor::UnhandledMessage>();
  EXPECT_TRUE(unhandled.message.Is<Ignore>());
  EXPECT_EQ(unhandled.recipient, counter.ref());
}

TEST_F(EventSourcedBehaviorTest, StashedCommandsComeBackOnUnstashAll) {
  auto [counter, recovered] = Start(MakeCounter("c6", kit_.TestActor()));
  counter.Tell(Hold{});
  counter.Tell(Add{1, Me()});  // handled: only Hold is stashed
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
  kit_.Sys().EventStream().Subscribe<actor::UnhandledMessage>(kit_.TestActor());
  counter.Tell(Release{});
  // Hold comes back, and is stashed again; nothing is unhandled.
  counter.Tell(Get{Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
  kit_.ExpectNoMsg();
}

TEST_F(EventSourcedBehaviorTest, ThenStopStopsAfterTheWriteAndTheReply) {
  auto [counter, recovered] = Start(MakeCounter("c7", kit_.TestActor()));
  kit_.Watch(counter.ref());
  counter.Tell(Halt{ReplyTo<std::string>(kit_.TestActor())});
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "halting");
  kit_.ExpectTerminated(counter.ref());
  auto [again, replayed] = Start(MakeCounter("c7", kit_.TestActor()));
  EXPECT_EQ(replayed, "recovered 0 applied 1");  // the Halted event
}

TEST_F(EventSourcedBehaviorTest, AVariantToldAsItselfIsHandledAsItsCommand) {
  auto [counter, recovered] = Start(MakeCounter("c8", kit_.TestActor()));
  counter.ref().Tell(CounterCommand(Add{3, Me()}));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 3);
}

TEST_F(EventSourcedBehaviorTest, SnapshotWhenSavesAndRecoveryStartsFromIt) {
  CounterBehavior behavior =
      MakeCounter("c9", kit_.TestActor())
          .SnapshotWhen([](const Counter&, const CounterEvent&,
                           int64_t sequence_nr) { return sequence_nr == 2; });
  auto [counter, recovered] = Start(behavior);
  counter.Tell(Add{1, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
  counter.Tell(Add{2, Me()});
  // The reply is a side effect of the write; the snapshot's outcome comes
  // as a signal after it.
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 3);
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "snapshot at 2 of 3");
  counter.Tell(Add{4, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 7);
  StopAndWait(counter);
  auto [again, replayed] = Start(behavior);
  EXPECT_EQ(replayed, "recovered 7 applied 1");  // the snapshot, one event
}

TEST_F(EventSourcedBehaviorTest, RetentionSnapshotsEveryNEvents) {
  CounterBehavior behavior =
      MakeCounter("c10", kit_.TestActor())
          .WithRetention(RetentionCriteria::SnapshotEvery(2, 1));
  auto [counter, recovered] = Start(behavior);
  counter.Tell(Add{1, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
  counter.Tell(Add{1, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 2);
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "snapshot at 2 of 2");
}

TEST_F(EventSourcedBehaviorTest, TheTaggerTagsTheStoredEvents) {
  CounterBehavior behavior =
      MakeCounter("c11", kit_.TestActor())
          .WithTagger([](const CounterEvent& e) {
            return std::holds_alternative<Added>(e)
                       ? std::vector<std::string>{"added"}
                       : std::vector<std::string>{};
          });
  auto [counter, recovered] = Start(behavior);
  counter.Tell(Add{6, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 6);  // the handler saw an Added
  absl::StatusOr<Journal*> journal =
      Persistence::Get(kit_.Sys()).JournalFor("");
  ASSERT_OK(journal);
  testing::ReplayOutcome stored =
      testing::ReplayMessages(**journal, "c11", 1, kMaxSequenceNr, 10);
  ASSERT_OK(stored.status);
  ASSERT_EQ(stored.events.size(), 1u);
  EXPECT_EQ(stored.events[0].payload.As<Added>()->amount, 6);
  EXPECT_EQ(stored.events[0].tags, std::vector<std::string>{"added"});
}

TEST_F(EventSourcedBehaviorTest, ARejectedEventFailsTheActorWithoutItsReply) {
  auto [counter, recovered] = Start(MakeCounter("c12", kit_.TestActor()));
  counter.Tell(Add{2, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 2);
  counter.Tell(Unstorable{Me()});
  // The default supervisor restarts it: it recovers what was stored, and
  // the rejected event's reply never comes.
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "recovered 2 applied 1");
  counter.Tell(Get{Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 2);
}

// Starts a behaviour as its child under a strategy that resumes it, and
// passes on what it is told to the child.
class ResumingParent final : public actor::Actor {
 public:
  explicit ResumingParent(CounterBehavior child) {
    child_ = Context().ActorOf(child.ToProps(), "child");
    ReceiveAny(
        [this](const actor::AnyMessage& m) { child_.TellAny(m, Sender()); });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<actor::OneForOneStrategy>(
        100, absl::Minutes(1),
        actor::Decider().Otherwise(actor::Directive::kResume));
  }

 private:
  ActorRef child_;
};

TEST_F(EventSourcedBehaviorTest, ARejectedEffectLeavesTheNextOnesInStep) {
  ActorRef parent = kit_.Sys().ActorOf(actor::Props::Create<ResumingParent>(
      MakeCounter("c14", kit_.TestActor())));
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "recovered 0 applied 0");
  parent.Tell(Unstorable{Me()});  // rejected; resumed
  parent.Tell(Add{2, Me()});
  // Its own reply, with its own state: nothing of the rejected effect's.
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 2);
  parent.Tell(AddTwice{1, Me()});
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "ran at 4");
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 4);
}

TEST_F(EventSourcedBehaviorTest, AThrowingEventHandlerLeavesNoStateToUse) {
  ActorRef parent = kit_.Sys().ActorOf(actor::Props::Create<ResumingParent>(
      MakeCounter("c15", kit_.TestActor())));
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "recovered 0 applied 0");
  parent.Tell(Add{5, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 5);
  // Stored, then its handler throws; resumed. A command after it is
  // refused, not answered from what the handler was given.
  // (A resumed failure is logged as a warning.)
  actor::testkit::EventFilter::Warning("(Resume): std::runtime_error: unlucky")
      .ExpectOne(kit_.Sys(), [&] {
        parent.Tell(Add{13, Me()});
      });
  actor::testkit::EventFilter::Warning(
      "IllegalActorStateException: the state of c15 was lost")
      .ExpectOne(kit_.Sys(), [&] { parent.Tell(Get{Me()}); });
}

TEST_F(EventSourcedBehaviorTest,
       ARecoveryWhoseHandlerThrowsSignalsTheEmptyState) {
  auto [counter, recovered] = Start(MakeCounter("c16", kit_.TestActor()));
  kit_.Watch(counter.ref());
  counter.Tell(Add{5, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 5);
  // Stored, then its handler throws; the restart's replay applies the 5
  // and throws at the 13: the signal gets the empty state, not what the
  // throwing handler was given.
  counter.Tell(Add{13, Me()});
  std::string failed = kit_.ExpectMsg<std::string>();
  EXPECT_TRUE(absl::StartsWith(failed, "recovery failed at 0: ")) << failed;
  EXPECT_NE(failed.find("unlucky"), std::string::npos) << failed;
  kit_.ExpectTerminated(counter.ref());
}

// A behaviour of another state over the same stream: the snapshot there is
// not its state, so its recovery fails.
struct Other {};
using OtherBehavior = EventSourcedBehavior<Get, CounterEvent, Other>;

TEST_F(EventSourcedBehaviorTest, ARecoveryThatFailsIsSignalled) {
  auto [counter, recovered] =
      Start(MakeCounter("c13", kit_.TestActor())
                .SnapshotWhen(
                    [](const Counter&, const auto&, int64_t) { return true; }));
  counter.Tell(Add{1, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "snapshot at 1 of 1");
  StopAndWait(counter);
  ActorRef probe = kit_.TestActor();
  OtherBehavior other =
      OtherBehavior(
          "c13", Other{},
          [](const Other&, const Get&) {
            return OtherBehavior::Effect::None();
          },
          [](Other o, const CounterEvent&) { return o; })
          .ReceiveSignal([probe](const Other&, const RecoveryFailed& f) {
            probe.Tell(std::string(f.cause.message()));
          });
  TypedRef<Get> ref = Spawn(kit_.Sys(), other);
  kit_.Watch(ref.ref());
  std::string why = kit_.ExpectMsg<std::string>();
  EXPECT_NE(why.find("not the behaviour's state"), std::string::npos) << why;
  kit_.ExpectTerminated(ref.ref());
}

// A behaviour whose events leave out one the stream holds: its recovery
// fails, naming the event, rather than skip it.
using Narrow = EventSourcedBehavior<Get, Added, Counter>;

TEST_F(EventSourcedBehaviorTest,
       AStoredEventOutsideTheBehavioursFailsRecovery) {
  auto [counter, recovered] = Start(MakeCounter("c17", kit_.TestActor()));
  kit_.Watch(counter.ref());
  counter.Tell(Halt{ReplyTo<std::string>(kit_.TestActor())});  // a Halted
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "halting");
  kit_.ExpectTerminated(counter.ref());
  ActorRef probe = kit_.TestActor();
  Narrow narrow =
      Narrow(
          "c17", Counter{},
          [](const Counter&, const Get&) { return Narrow::Effect::None(); },
          [](Counter c, const Added&) { return c; })
          .ReceiveSignal([probe](const Counter&, const RecoveryFailed& f) {
            probe.Tell(std::string(f.cause.message()));
          });
  Spawn(kit_.Sys(), narrow);
  std::string why = kit_.ExpectMsg<std::string>();
  EXPECT_NE(why.find("Halted, none of the behaviour's events"),
            std::string::npos)
      << why;
}

// The journal's event adapters apply to a typed behaviour as to a classic
// actor: one bound in code reads each stored Added as two (a schema
// change), so the replay applies both.
class TwiceOnReplay final : public EventAdapter {
 public:
  absl::StatusOr<EventSeq> FromJournal(const serialization::Payload& event,
                                       std::string_view) const override {
    return EventSeq{event, event};
  }
};

TEST(EventSourcedBehaviorAdapterTest, TheJournalsEventAdaptersApply) {
  TestKit kit(R"(
      akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
      akka.persistence.snapshot-store.plugin =
          "akka.persistence.snapshot-store.inmem"
    )");
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  ASSERT_OK(RegisterTypes(*registry));
  PersistenceSetup setup;
  setup.serialization = registry;
  setup.bind_event_adapters = [](std::string_view, EventAdapters& adapters) {
    return adapters.Bind<Added>(std::make_shared<TwiceOnReplay>());
  };
  ASSERT_OK(Persistence::Get(kit.Sys()).Setup(std::move(setup)));
  ReplyTo<int64_t> me(kit.TestActor());
  TypedRef<CounterCommand> counter =
      Spawn(kit.Sys(), MakeCounter("adapted", kit.TestActor()));
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "recovered 0 applied 0");
  counter.Tell(Add{5, me});
  EXPECT_EQ(kit.ExpectMsg<int64_t>(), 5);  // live: the event as persisted
  kit.Watch(counter.ref());
  kit.Sys().Stop(counter.ref());
  kit.ExpectTerminated(counter.ref());
  Spawn(kit.Sys(), MakeCounter("adapted", kit.TestActor()));
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "recovered 10 applied 2");
}

// WithEnforcedReplies: every handler returns a ReplyEffect.
using Greeting = std::variant<Get, Ignore>;
using Greeter = EventSourcedBehavior<Greeting, CounterEvent, Counter>;

TEST_F(EventSourcedBehaviorTest, EnforcedRepliesReplyOrSayTheyWillNot) {
  Greeter greeter = Greeter::WithEnforcedReplies(
      "g1", Counter{},
      Overloaded{[](const Counter& s, const Get& c) {
                   return Greeter::Effect::Reply(c.reply_to, s.value + 42);
                 },
                 [](const Counter&, const Ignore&) {
                   return Greeter::Effect::NoReply();
                 }},
      &Apply);
  TypedRef<Greeting> ref = Spawn(kit_.Sys(), greeter);
  ref.Tell(Ignore{});
  ref.Tell(Get{Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 42);
}

}  // namespace
}  // namespace cairn::persistence::typed
