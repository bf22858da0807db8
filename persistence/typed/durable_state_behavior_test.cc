// DurableStateBehavior on the in-memory durable state store: Akka's
// DurableStateBehaviorSpec scenarios that apply (persist and reply, the
// state read back on start, delete, commands held during a write, one
// writer per id, a write the store refuses, tags).

#include "persistence/typed/durable_state_behavior.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "actor/typed_ref.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/persistence.h"
#include "persistence/storage/testing/sync_calls.h"
#include "serialization/serialization.h"

namespace cairn::persistence::typed {
namespace {

using actor::ActorRef;
using actor::ReplyTo;
using actor::TypedRef;
using actor::testkit::TestKit;

struct Add {
  int64_t amount = 0;
  ReplyTo<int64_t> reply_to;
};
struct Get {
  ReplyTo<int64_t> reply_to;
};
struct Reset {
  ReplyTo<int64_t> reply_to;
};
struct Boom {};  // its handler throws: the actor restarts
using CounterCommand = std::variant<Add, Get, Reset, Boom>;
struct Count {
  int64_t value = 0;
};
using Counter = DurableStateBehavior<CounterCommand, Count>;

Counter MakeCounter(std::string id, ActorRef probe) {
  return Counter::WithEnforcedReplies(
             std::move(id), Count{},
             Overloaded{
                 [](const Count& c, const Add& a) {
                   return Counter::Effect::Persist(Count{c.value + a.amount})
                       .ThenReply(a.reply_to,
                                  [](const Count& c) { return c.value; });
                 },
                 [](const Count& c, const Get& g) {
                   return Counter::Effect::Reply(g.reply_to, c.value);
                 },
                 [](const Count&, const Reset& r) {
                   return Counter::Effect::Delete().ThenReply(
                       r.reply_to, [](const Count& c) { return c.value; });
                 },
                 [](const Count&, const Boom&) -> Counter::ReplyEffect {
                   throw std::runtime_error("boom");
                 }})
      .ReceiveSignal(
          Overloaded{[probe](const Count& c, const RecoveryCompleted&) {
                       probe.Tell(absl::StrCat("recovered ", c.value));
                     },
                     [probe](const Count&, const RecoveryFailed& f) {
                       probe.Tell(absl::StrCat("failed: ", f.cause.message()));
                     }});
}

absl::Status RegisterCount(serialization::SerializationRegistry& registry) {
  return registry.Register<Count>(
      "test.Count",
      [](const Count& c) -> absl::StatusOr<std::string> {
        return absl::StrCat(c.value);
      },
      [](absl::string_view bytes) -> absl::StatusOr<Count> {
        Count c;
        if (!absl::SimpleAtoi(bytes, &c.value)) {
          return absl::DataLossError("not a number");
        }
        return c;
      });
}

class DurableStateBehaviorTest : public ::testing::Test {
 protected:
  explicit DurableStateBehaviorTest(
      std::string plugin = "akka.persistence.state.inmem")
      : kit_(absl::StrCat("akka.persistence.state.plugin = \"", plugin,
                          "\"\n")) {
    auto registry = std::make_shared<serialization::SerializationRegistry>();
    EXPECT_OK(RegisterCount(*registry));
    EXPECT_OK(Persistence::Get(kit_.Sys()).Setup({.serialization = registry}));
  }

  TypedRef<CounterCommand> Start(const std::string& id,
                                 const std::string& expected) {
    TypedRef<CounterCommand> counter =
        Spawn(kit_.Sys(), MakeCounter(id, kit_.TestActor()));
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), expected);
    return counter;
  }

  void StopAndWait(const TypedRef<CounterCommand>& ref) {
    kit_.Watch(ref.ref());
    kit_.Sys().Stop(ref.ref());
    kit_.ExpectTerminated(ref.ref());
  }

  DurableStateStore& Store() {
    absl::StatusOr<DurableStateStore*> store =
        Persistence::Get(kit_.Sys()).DurableStateStoreFor("");
    EXPECT_OK(store);
    return **store;
  }

  ReplyTo<int64_t> Me() { return ReplyTo<int64_t>(kit_.TestActor()); }

  TestKit kit_;
};

TEST_F(DurableStateBehaviorTest, PersistsTheStateAndReadsItBackOnStart) {
  TypedRef<CounterCommand> counter = Start("d1", "recovered 0");
  counter.Tell(Add{5, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 5);
  counter.Tell(Add{2, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 7);
  StopAndWait(counter);
  TypedRef<CounterCommand> again = Start("d1", "recovered 7");
  again.Tell(Get{Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 7);
  absl::StatusOr<DurableStateObject> stored = testing::GetObject(Store(), "d1");
  ASSERT_OK(stored);
  EXPECT_EQ(stored->revision, 2);  // one per write
}

TEST_F(DurableStateBehaviorTest, DeleteEmptiesTheStateAndTheRevisionGoesOn) {
  TypedRef<CounterCommand> counter = Start("d2", "recovered 0");
  counter.Tell(Add{5, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 5);
  counter.Tell(Reset{Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 0);
  counter.Tell(Add{1, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
  StopAndWait(counter);
  Start("d2", "recovered 1");
  EXPECT_EQ(testing::GetObject(Store(), "d2")->revision, 3);
}

TEST_F(DurableStateBehaviorTest, ARestartReadsTheStoredStateAgain) {
  TypedRef<CounterCommand> counter = Start("d8", "recovered 0");
  counter.Tell(Add{4, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 4);
  counter.Tell(Boom{});  // the default supervisor restarts it
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "recovered 4");
  counter.Tell(Add{1, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 5);
}

TEST_F(DurableStateBehaviorTest, CommandsWaitWhileAWriteIsInFlight) {
  TypedRef<CounterCommand> counter = Start("d3", "recovered 0");
  for (int i = 0; i < 20; ++i) {
    counter.Tell(Add{1, Me()});
    counter.Tell(Get{Me()});
  }
  for (int i = 1; i <= 20; ++i) {
    EXPECT_EQ(kit_.ExpectMsg<int64_t>(), i);
    EXPECT_EQ(kit_.ExpectMsg<int64_t>(), i);
  }
}

TEST_F(DurableStateBehaviorTest, ASecondLiveWriterOfAnIdFailsToStart) {
  TypedRef<CounterCommand> first = Start("d4", "recovered 0");
  TypedRef<CounterCommand> second =
      Spawn(kit_.Sys(), MakeCounter("d4", kit_.TestActor()));
  kit_.Watch(second.ref());
  std::string failed = kit_.ExpectMsg<std::string>();
  EXPECT_NE(failed.find("in use by"), std::string::npos) << failed;
  kit_.ExpectTerminated(second.ref());
  first.Tell(Add{1, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
}

TEST_F(DurableStateBehaviorTest, AWriteTheStoreRefusesStopsTheActor) {
  TypedRef<CounterCommand> counter = Start("d5", "recovered 0");
  // Another writer (another process) takes revision 1 behind its back.
  ASSERT_OK(testing::UpsertObject(Store(), "d5", 1,
                                  serialization::Payload::Of(Count{40})));
  kit_.Watch(counter.ref());
  counter.Tell(Add{1, Me()});
  kit_.ExpectTerminated(counter.ref());  // no reply: nothing was stored
  EXPECT_EQ(testing::GetObject(Store(), "d5")->revision, 1);
  Start("d5", "recovered 40");
}

TEST_F(DurableStateBehaviorTest, TheTaggedStateIsFoundByItsTag) {
  TypedRef<CounterCommand> counter =
      Spawn(kit_.Sys(), MakeCounter("d6", kit_.TestActor()).WithTag("counts"));
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "recovered 0");
  counter.Tell(Add{3, Me()});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 3);
  absl::StatusOr<std::vector<DurableStateChange>> changes =
      testing::CurrentChanges(Store(), "counts", 0, 10);
  ASSERT_OK(changes);
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].persistence_id, "d6");
  EXPECT_EQ((*changes)[0].value.As<Count>()->value, 3);
}

class NoDurableStateStoreTest : public DurableStateBehaviorTest {
 protected:
  NoDurableStateStoreTest() : DurableStateBehaviorTest("") {}
};

TEST_F(NoDurableStateStoreTest, AnActorWithoutAStoreFailsToStartSayingWhy) {
  TypedRef<CounterCommand> counter =
      Spawn(kit_.Sys(), MakeCounter("d7", kit_.TestActor()));
  std::string failed = kit_.ExpectMsg<std::string>();
  EXPECT_NE(failed.find("akka.persistence.state.plugin is empty"),
            std::string::npos)
      << failed;
}

}  // namespace
}  // namespace cairn::persistence::typed
