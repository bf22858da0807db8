// The TestKit vocabulary that ported Akka test suites use: ReceiveN,
// ExpectMsgAnyOf / AllOf, FishForMessage, Within, IgnoreMessages,
// AutoPilot, AwaitAssert and EventFilter; each with the failure it reports.

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "actor/actor_system.h"
#include "actor/testkit/event_filter.h"
#include "actor/testkit/test_kit.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testkit::EventFilter;
using testkit::TestKit;
using testkit::TestKitAssertion;

// The message `f` fails with; "" if it does not throw TestKitAssertion.
template <typename F>
std::string FailureOf(F f) {
  try {
    f();
  } catch (const TestKitAssertion& e) {
    return e.what();
  }
  return "";
}

TEST(TestKitTest, ReceiveNReturnsTheNextMessagesInOrder) {
  TestKit kit(TestKit::Deterministic{});
  for (int i = 1; i <= 3; ++i) kit.TestActor().Tell(i);
  std::vector<AnyMessage> got = kit.ReceiveN(3);
  ASSERT_EQ(got.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(*got[i].As<int>(), i + 1);
  kit.TestActor().Tell(4);
  EXPECT_THAT(FailureOf([&] { kit.ReceiveN(2); }), HasSubstr("message 2 of 2"));
}

TEST(TestKitTest, ExpectMsgAnyOfTakesOneOfTheCandidates) {
  TestKit kit;
  kit.TestActor().Tell(std::string("b"));
  EXPECT_EQ(kit.ExpectMsgAnyOf<std::string>({"a", "b"}), "b");
  kit.TestActor().Tell(std::string("c"));
  EXPECT_THAT(FailureOf([&] {
                kit.ExpectMsgAnyOf<std::string>({"a", "b"});
              }),
              HasSubstr("one of the candidates"));
}

TEST(TestKitTest, ExpectMsgAllOfTakesThemInAnyOrder) {
  TestKit kit;
  for (int i : {3, 1, 2}) kit.TestActor().Tell(i);
  EXPECT_THAT(kit.ExpectMsgAllOf<int>({1, 2, 3}), ElementsAre(3, 1, 2));
  for (int i : {1, 4}) kit.TestActor().Tell(i);
  EXPECT_THAT(FailureOf([&] {
                kit.ExpectMsgAllOf<int>({1, 2});
              }),
              HasSubstr("none of the 1 still expected"));
}

TEST(TestKitTest, FishForMessageDropsWhatComesBefore) {
  TestKit kit(TestKit::Deterministic{});
  kit.TestActor().Tell(std::string("noise"));
  for (int i = 1; i <= 5; ++i) kit.TestActor().Tell(i);
  kit.TestActor().Tell(6);
  EXPECT_EQ(kit.FishForMessage<int>([](int i) { return i > 4; }), 5);
  EXPECT_EQ(kit.ExpectMsg<int>(), 6);  // what comes after stays
  kit.TestActor().Tell(1);
  EXPECT_THAT(
      FailureOf([&] {
        kit.FishForMessage<int>([](int i) { return i > 4; }, absl::Seconds(3),
                                "a big one");
      }),
      HasSubstr("a big one (FishForMessage, 1 other messages dropped)"));
}

TEST(TestKitTest, WithinCutsTheWaitsInsideAndChecksTheTimeTaken) {
  TestKit kit;
  // A wait inside ends at the block's deadline, not at its own timeout.
  const std::string failure = FailureOf([&] {
    kit.Within(absl::Milliseconds(50),
               [&] { kit.ExpectMsg<int>(absl::Seconds(30)); });
  });
  EXPECT_THAT(failure, HasSubstr("timeout ("));
  EXPECT_THAT(failure, ::testing::Not(HasSubstr("30s")));
  kit.TestActor().Tell(1);
  kit.Within(absl::Seconds(3), [&] { kit.ExpectMsg<int>(1); });
  EXPECT_THAT(FailureOf([&] {
                kit.Within(absl::Seconds(10), absl::Seconds(20), [] {});
              }),
              HasSubstr("less than the minimum 10s"));
  EXPECT_THAT(FailureOf([&] {
                kit.Within(absl::Milliseconds(1), [] {
                  std::this_thread::sleep_for(std::chrono::milliseconds(20));
                });
              }),
              HasSubstr("more than the maximum 1ms"));
}

TEST(TestKitTest, IgnoredMessagesNeverReachTheQueue) {
  TestKit kit;
  kit.IgnoreMessages<int>();
  kit.TestActor().Tell(1);
  kit.TestActor().Tell(std::string("a"));
  kit.TestActor().Tell(2);
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "a");
  kit.IgnoreNoMessages();
  kit.TestActor().Tell(3);
  EXPECT_EQ(kit.ExpectMsg<int>(), 3);
}

struct Question {
  int n;
};

// Asks `oracle` and passes its answer on to `listener`.
class Asker final : public Actor {
 public:
  Asker(ActorRef oracle, ActorRef listener)
      : oracle_(std::move(oracle)), listener_(std::move(listener)) {
    Receive<Question>([this](const Question& q) { oracle_.Tell(q); });
    Receive<int>([this](int answer) { listener_.Tell(answer); });
  }

 private:
  ActorRef oracle_;
  ActorRef listener_;
};

TEST(TestKitTest, AnAutoPilotAnswersUntilItStops) {
  TestKit kit(TestKit::Deterministic{});
  auto oracle = kit.CreateTestProbe();
  auto listener = kit.CreateTestProbe();
  oracle->SetAutoPilot([](const ActorRef& sender, const AnyMessage& m) {
    sender.Tell(m.As<Question>()->n * 10);
    return m.As<Question>()->n < 2;  // stays for 1, stops after 2
  });
  ActorRef asker =
      kit.Sys().ActorOf(Props::Create<Asker>(oracle->Ref(), listener->Ref()));
  for (int n = 1; n <= 3; ++n) asker.Tell(Question{n});
  EXPECT_EQ(listener->ExpectMsg<int>(), 10);
  EXPECT_EQ(listener->ExpectMsg<int>(), 20);
  // The messages are queued as well; the third found no pilot.
  for (int n = 1; n <= 3; ++n) EXPECT_EQ(oracle->ExpectMsg<Question>().n, n);
  listener->ExpectNoMsg();
}

TEST(TestKitTest, AwaitAssertRetriesUntilTheAssertionHolds) {
  TestKit kit;
  std::atomic<int> counter{0};
  std::thread bump([&] {
    for (int i = 0; i < 3; ++i) counter.fetch_add(1);
  });
  kit.AwaitAssert([&] {
    if (counter.load() != 3) throw TestKitAssertion("not yet 3");
  });
  bump.join();
  EXPECT_THAT(FailureOf([&] {
                kit.AwaitAssert(
                    [&] {
                      if (counter.load() != 4) {
                        throw TestKitAssertion("counter is not 4");
                      }
                    },
                    absl::Milliseconds(30));
              }),
              HasSubstr("counter is not 4"));
}

struct Crash {};

class Crasher final : public Actor {
 public:
  Crasher() {
    Receive<Crash>([](const Crash&) -> void {
      throw std::runtime_error("boom on purpose");
    });
    Receive<std::string>([](const std::string&) {});
  }
};

TEST(TestKitTest, EventFilterExpectsLoggedExceptions) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef crasher = kit.Sys().ActorOf(Props::Create<Crasher>(), "crasher");
  EventFilter::Exception<std::runtime_error>("boom on purpose")
      .ExpectOne(kit.Sys(), [&] { crasher.Tell(Crash{}); });
  EventFilter::Error("boom on purpose")
      .From("akka://test/user")
      .Expect(kit.Sys(), 2, [&] {
        crasher.Tell(Crash{});
        crasher.Tell(Crash{});
      });
  EXPECT_THAT(FailureOf([&] {
                EventFilter::Exception<std::logic_error>().ExpectOne(
                    kit.Sys(), [&] { crasher.Tell(Crash{}); });
              }),
              HasSubstr("expected 1 ERROR log event once nothing was left "
                        "to run, got 0"));
  // More than expected: both published (synchronously, from this thread)
  // before the filter counts.
  EXPECT_THAT(FailureOf([&] {
                EventFilter::Warning("disk").ExpectOne(kit.Sys(), [&] {
                  kit.Sys().Log("store").Warning("disk almost full");
                  kit.Sys().Log("store").Warning("disk full");
                });
              }),
              HasSubstr("expected 1 WARNING log event containing \"disk\", "
                        "got 2"));
}

TEST(TestKitTest, EventFilterExpectsDeadLetters) {
  TestKit kit;
  ActorRef crasher = kit.Sys().ActorOf(Props::Create<Crasher>());
  kit.Watch(crasher);
  kit.Sys().Stop(crasher);
  kit.ExpectTerminated(crasher);
  EventFilter::DeadLetter<std::string>().Expect(kit.Sys(), 2, [&] {
    crasher.Tell(std::string("a"));
    crasher.Tell(3);  // not a string: not counted
    crasher.Tell(std::string("b"));
  });
}

}  // namespace
}  // namespace cairn::actor
