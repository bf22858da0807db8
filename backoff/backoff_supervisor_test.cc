// Ports of Akka's BackoffSupervisorSpec scenarios, on a manual clock.
#include "backoff/backoff_supervisor.h"

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"

namespace cairn::backoff {
namespace {

using actor::ActorRef;
using actor::ManualClock;
using actor::Props;
using actor::testkit::TestKit;

// Echoes strings; "crash" throws, "stop" stops it, "reset" sends Reset up.
class Child final : public actor::Actor {
 public:
  Child() {
    Receive<std::string>([this](const std::string& m) {
      if (m == "crash") throw std::runtime_error("crash");
      if (m == "stop") {
        Context().Stop(Self());
        return;
      }
      if (m == "reset") {
        Parent().Tell(BackoffSupervisor::Reset{});
        return;
      }
      Sender().Tell(m);
    });
  }
};

ActorRef CurrentChild(TestKit& kit, const ActorRef& sup) {
  sup.Tell(BackoffSupervisor::GetCurrentChild{});
  return kit.ExpectMsg<BackoffSupervisor::CurrentChild>().ref;
}

int RestartCount(TestKit& kit, const ActorRef& sup) {
  sup.Tell(BackoffSupervisor::GetRestartCount{});
  return kit.ExpectMsg<BackoffSupervisor::RestartCount>().count;
}

// The test's own Terminated may come before the supervisor has handled
// its one; the restart count moves once it has.
void AwaitRestartCount(TestKit& kit, const ActorRef& sup, int n) {
  kit.AwaitCondition([&] { return RestartCount(kit, sup) == n; },
                     actor::testkit::kDefaultExpectTimeout,
                     "restart count " + std::to_string(n));
}

// Stops the running child and waits until the supervisor has counted the
// restart it schedules. Returns the child that stopped.
ActorRef StopChild(TestKit& kit, const ActorRef& sup, int restart_count) {
  ActorRef c = CurrentChild(kit, sup);
  kit.Watch(c);
  c.Tell(std::string("stop"));
  kit.ExpectTerminated(c);
  AwaitRestartCount(kit, sup, restart_count);
  return c;
}

BackoffOptions OnStop() {
  return Backoff::OnStop(Props::Create<Child>(), "c", absl::Seconds(1),
                         absl::Seconds(10), 0.0);
}

BackoffOptions OnFailure() {
  return Backoff::OnFailure(Props::Create<Child>(), "c", absl::Seconds(1),
                            absl::Seconds(10), 0.0);
}

TEST(BackoffDelayTest, TheSeedsTableComesOut) {
  const absl::Duration min = absl::Seconds(3), max = absl::Seconds(30);
  const absl::Duration expected[] = {absl::Seconds(3),  absl::Seconds(6),
                                     absl::Seconds(12), absl::Seconds(24),
                                     absl::Seconds(30), absl::Seconds(30)};
  for (int n = 0; n < 6; ++n) {
    EXPECT_EQ(CalculateDelay(n, min, max, 0.2, 0.0), expected[n]) << n;
    // The jitter stretches each by up to random_factor.
    EXPECT_EQ(CalculateDelay(n, min, max, 0.2, 0.5), expected[n] * 1.1) << n;
  }
  EXPECT_EQ(CalculateDelay(1000, min, max, 0.0, 0.7), max);  // overflow
}

TEST(BackoffOptionsTest, BadArgumentsAreNamed) {
  auto bad = [](absl::Duration min, absl::Duration max, double rf) {
    return std::string(
        Backoff::OnStop(Props::Create<Child>(), "c", min, max, rf)
            .Validate()
            .message());
  };
  EXPECT_NE(bad(absl::ZeroDuration(), absl::Seconds(1), 0).find("min_backoff"),
            std::string::npos);
  EXPECT_NE(bad(absl::Seconds(2), absl::Seconds(1), 0).find("max_backoff"),
            std::string::npos);
  EXPECT_NE(bad(absl::Seconds(1), absl::Seconds(2), 1.5).find("random_factor"),
            std::string::npos);
  EXPECT_OK(OnStop().Validate());
  EXPECT_THROW(
      BackoffSupervisor::Props(Backoff::OnStop(
          Props::Create<Child>(), "c", absl::Seconds(2), absl::Seconds(1), 0)),
      std::invalid_argument);
}

TEST(BackoffSupervisorTest, OnStopStartsTheChildAgainAfterTheBackoff) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup = kit.Sys().ActorOf(BackoffSupervisor::Props(OnStop()), "sup");
  ActorRef first = CurrentChild(kit, sup);
  EXPECT_EQ(first.Path().ToString(), "akka://test/user/sup/c");
  kit.Watch(first);
  first.Tell(std::string("stop"));
  kit.ExpectTerminated(first);
  AwaitRestartCount(kit, sup, 1);
  clock.Advance(absl::Milliseconds(999));
  EXPECT_TRUE(CurrentChild(kit, sup).IsNobody());
  clock.Advance(absl::Milliseconds(1));
  ActorRef second = CurrentChild(kit, sup);
  EXPECT_FALSE(second.IsNobody());
  EXPECT_NE(second, first);
  // The next delay doubles.
  kit.Watch(second);
  second.Tell(std::string("stop"));
  kit.ExpectTerminated(second);
  AwaitRestartCount(kit, sup, 2);
  clock.Advance(absl::Milliseconds(1999));
  EXPECT_TRUE(CurrentChild(kit, sup).IsNobody());
  clock.Advance(absl::Milliseconds(1));
  EXPECT_FALSE(CurrentChild(kit, sup).IsNobody());
}

TEST(BackoffSupervisorTest, ForwardsMessagesToTheChildWithTheSender) {
  TestKit kit;
  ActorRef sup = kit.Sys().ActorOf(BackoffSupervisor::Props(OnStop()));
  ActorRef child = CurrentChild(kit, sup);
  sup.Tell(std::string("hello"));
  kit.ExpectMsg<std::string>("hello");
  EXPECT_EQ(kit.LastSender(), child);
}

TEST(BackoffSupervisorTest, TheGivenStrategySupervisesTheChild) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  // Stopping strategy: a crash stops the child, and OnStop brings it back.
  ActorRef sup = kit.Sys().ActorOf(BackoffSupervisor::Props(
      OnStop().WithSupervisorStrategy(actor::OneForOneStrategy(
          actor::Decider().Otherwise(actor::Directive::kStop), false))));
  ActorRef first = CurrentChild(kit, sup);
  kit.Watch(first);
  first.Tell(std::string("crash"));
  kit.ExpectTerminated(first);
  AwaitRestartCount(kit, sup, 1);
  clock.Advance(absl::Seconds(1));
  EXPECT_FALSE(CurrentChild(kit, sup).IsNobody());
}

TEST(BackoffSupervisorTest, DefaultStoppingStrategyStopsOnAnyException) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup = kit.Sys().ActorOf(
      BackoffSupervisor::Props(OnStop().WithDefaultStoppingStrategy()));
  ActorRef first = CurrentChild(kit, sup);
  kit.Watch(first);
  first.Tell(std::string("crash"));
  kit.ExpectTerminated(first);
  AwaitRestartCount(kit, sup, 1);
  clock.Advance(absl::Seconds(1));
  EXPECT_NE(CurrentChild(kit, sup), first);
}

TEST(BackoffSupervisorTest, ManualResetComesFromTheChild) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup =
      kit.Sys().ActorOf(BackoffSupervisor::Props(OnStop().WithManualReset()));
  for (int i = 1; i <= 2; ++i) {
    StopChild(kit, sup, i);
    clock.Advance(absl::Seconds(10));
  }
  // Time alone does not reset it.
  clock.Advance(absl::Minutes(5));
  EXPECT_EQ(RestartCount(kit, sup), 2);
  CurrentChild(kit, sup).Tell(std::string("reset"));
  kit.AwaitCondition([&] { return RestartCount(kit, sup) == 0; });
}

TEST(BackoffSupervisorTest, AutoResetAfterTheChildRanLongEnough) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup = kit.Sys().ActorOf(
      BackoffSupervisor::Props(OnStop().WithAutoReset(absl::Seconds(5))));
  StopChild(kit, sup, 1);
  clock.Advance(absl::Seconds(1));  // restarted
  ASSERT_FALSE(CurrentChild(kit, sup).IsNobody());
  AwaitRestartCount(kit, sup, 1);
  clock.Advance(absl::Seconds(5));  // ran 5 s without stopping
  AwaitRestartCount(kit, sup, 0);
}

TEST(BackoffSupervisorTest, ReplyWhileStopped) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup = kit.Sys().ActorOf(BackoffSupervisor::Props(
      OnStop().WithReplyWhileStopped(std::string("not now"))));
  StopChild(kit, sup, 1);
  sup.Tell(std::string("hello"));
  kit.ExpectMsg<std::string>("not now");
}

TEST(BackoffSupervisorTest, WithoutAReplyMessagesGoToDeadLetters) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  auto dead = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<actor::DeadLetter>(dead->Ref());
  ActorRef sup = kit.Sys().ActorOf(BackoffSupervisor::Props(OnStop()));
  StopChild(kit, sup, 1);
  sup.Tell(std::string("hello"));
  EXPECT_EQ(*dead->ExpectMsg<actor::DeadLetter>().message.As<std::string>(),
            "hello");
  kit.ExpectNoMsg(absl::Milliseconds(20));
}

TEST(BackoffSupervisorTest,
     OnFailureRestartsAfterTheBackoffAndStopsWithTheChild) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup = kit.Sys().ActorOf(BackoffSupervisor::Props(OnFailure()));
  kit.Watch(sup);
  ActorRef first = CurrentChild(kit, sup);
  kit.Watch(first);
  first.Tell(std::string("crash"));
  kit.ExpectTerminated(first);  // stopped now, started after the back-off
  AwaitRestartCount(kit, sup, 1);
  clock.Advance(absl::Seconds(1));
  ActorRef second = CurrentChild(kit, sup);
  ASSERT_FALSE(second.IsNobody());
  kit.Watch(second);
  second.Tell(std::string("stop"));  // stopping by itself ends it all
  kit.ExpectTerminated(second);
  kit.ExpectTerminated(sup);
}

TEST(BackoffSupervisorTest, MaxRetriesStopsTheSupervisorOnStop) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup = kit.Sys().ActorOf(
      BackoffSupervisor::Props(OnStop().WithMaxNrOfRetries(2)));
  kit.Watch(sup);
  for (int i = 0; i < 2; ++i) {
    StopChild(kit, sup, i + 1);
    clock.Advance(absl::Seconds(10));
  }
  ActorRef last = CurrentChild(kit, sup);
  kit.Watch(last);
  last.Tell(std::string("stop"));
  kit.ExpectTerminated(last);
  kit.ExpectTerminated(sup);
}

TEST(BackoffSupervisorTest, MaxRetriesStopsTheSupervisorOnFailure) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup = kit.Sys().ActorOf(
      BackoffSupervisor::Props(OnFailure().WithMaxNrOfRetries(1)));
  kit.Watch(sup);
  ActorRef c = CurrentChild(kit, sup);
  c.Tell(std::string("crash"));
  AwaitRestartCount(kit, sup, 1);
  clock.Advance(absl::Seconds(1));
  ActorRef again = CurrentChild(kit, sup);
  ASSERT_FALSE(again.IsNobody());
  again.Tell(std::string("crash"));
  kit.ExpectTerminated(sup);
}

TEST(BackoffSupervisorTest, AFinalStopMessageStopsTheSupervisorWithTheChild) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup = kit.Sys().ActorOf(BackoffSupervisor::Props(
      OnStop().WithFinalStopMessage([](const actor::AnyMessage& m) {
        const std::string* s = m.As<std::string>();
        return s != nullptr && *s == "stop";
      })));
  kit.Watch(sup);
  ActorRef c = CurrentChild(kit, sup);
  kit.Watch(c);
  sup.Tell(std::string("stop"));  // reaches the child, which stops
  kit.ExpectTerminated(c);
  kit.ExpectTerminated(sup);
}

TEST(BackoffSupervisorTest, ManySupervisorsRestartAtSpreadOutTimes) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  constexpr int kSupervisors = 20;
  std::vector<ActorRef> sups;
  for (int i = 0; i < kSupervisors; ++i) {
    sups.push_back(kit.Sys().ActorOf(BackoffSupervisor::Props(
        Backoff::OnStop(Props::Create<Child>(), "c", absl::Seconds(1),
                        absl::Seconds(10), /*random_factor=*/0.5))));
  }
  // The shared resource fails: every child stops at once.
  for (const ActorRef& sup : sups) StopChild(kit, sup, 1);
  // Delays fall in [1 s, 1.5 s): count the restarts in each 100 ms step from
  // 0.9 s up to and including 1.5 s, so that a delay just under the top of the
  // range is still inside the last step.
  clock.Advance(absl::Milliseconds(900));
  std::set<int> steps_with_restarts;
  int restarted = 0;
  for (int step = 0; step < 6; ++step) {
    clock.Advance(absl::Milliseconds(100));
    int now = 0;
    for (const ActorRef& sup : sups) now += !CurrentChild(kit, sup).IsNobody();
    if (now > restarted) steps_with_restarts.insert(step);
    restarted = now;
  }
  EXPECT_EQ(restarted, kSupervisors);
  EXPECT_GE(steps_with_restarts.size(), 3u);
}

}  // namespace
}  // namespace cairn::backoff
