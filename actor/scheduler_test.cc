#include "actor/scheduler.h"

#include <atomic>
#include <memory>
#include <string>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

TEST(SchedulerTest, TellOnceFiresWhenTheClockReachesTheDelay) {
  ManualClock clock;
  TestKit kit(TestKit::Deterministic{.clock = &clock});
  kit.Sys().Scheduler().ScheduleTellOnce(absl::Seconds(2), kit.TestActor(),
                                         std::string("tick"));
  clock.Advance(absl::Milliseconds(1999));
  kit.ExpectNoMsg();
  clock.Advance(absl::Milliseconds(1));
  kit.ExpectMsg<std::string>("tick");
}

TEST(SchedulerTest, RepeatedTellFiresEveryIntervalUntilCancelled) {
  ManualClock clock;
  TestKit kit(TestKit::Deterministic{.clock = &clock});
  Cancellable c = kit.Sys().Scheduler().ScheduleTellRepeatedly(
      absl::Seconds(1), absl::Seconds(1), kit.TestActor(), 7);
  clock.Advance(absl::Seconds(3));
  for (int i = 0; i < 3; ++i) kit.ExpectMsg<int>(7);
  EXPECT_TRUE(c.Cancel());
  EXPECT_FALSE(c.Cancel());
  clock.Advance(absl::Seconds(3));
  kit.ExpectNoMsg();
}

TEST(SchedulerTest, CancelledOneOffNeverFires) {
  ManualClock clock;
  TestKit kit(TestKit::Deterministic{.clock = &clock});
  Cancellable c = kit.Sys().Scheduler().ScheduleTellOnce(absl::Seconds(1),
                                                         kit.TestActor(), 1);
  EXPECT_TRUE(c.Cancel());
  EXPECT_TRUE(c.IsCancelled());
  clock.Advance(absl::Seconds(2));
  kit.ExpectNoMsg();
}

TEST(SchedulerTest, ATaskScheduledAfterShutdownKeepsNothing) {
  // Its action would otherwise keep what it captured forever: with an
  // ask's promise that was a reference cycle, a leak at exit.
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  kit.Sys().Scheduler().Shutdown();
  auto captured = std::make_shared<int>(1);
  std::weak_ptr<int> watch = captured;
  Cancellable c = kit.Sys().Scheduler().ScheduleOnce(
      absl::Seconds(1), [captured = std::move(captured)] {});
  EXPECT_TRUE(c.IsCancelled());
  EXPECT_TRUE(watch.expired());
}

TEST(SchedulerTest, ACancelledTaskReleasesWhatItCapturedAtOnce) {
  // Not at its due time: an ask's day-long timeout, cancelled by the reply,
  // would otherwise keep the asker's reply target alive all day.
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  auto captured = std::make_shared<int>(1);
  std::weak_ptr<int> watch = captured;
  Cancellable c = kit.Sys().Scheduler().ScheduleOnce(
      absl::Hours(24), [captured = std::move(captured)] {});
  EXPECT_FALSE(watch.expired());
  EXPECT_TRUE(c.Cancel());
  EXPECT_TRUE(watch.expired());
}

TEST(SchedulerTest, ACancelledRepeatingTaskReleasesWhatItCapturedAtOnce) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  auto captured = std::make_shared<int>(1);
  std::weak_ptr<int> watch = captured;
  std::atomic<int> runs = 0;
  Cancellable c = kit.Sys().Scheduler().ScheduleRepeatedly(
      absl::Seconds(1), absl::Seconds(1),
      [captured = std::move(captured), &runs] { ++runs; });
  clock.Advance(absl::Seconds(2));
  EXPECT_EQ(runs.load(), 2);
  EXPECT_TRUE(c.Cancel());
  EXPECT_TRUE(watch.expired());
  clock.Advance(absl::Seconds(2));
  EXPECT_EQ(runs.load(), 2);
}

TEST(SchedulerTest, CancelledTasksDoNotPileUpUntilTheirDueTime) {
  // A million asks answered within the day leave a million cancelled
  // timeouts: the scheduler drops them as they pile up, not when due.
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  auto& scheduler = kit.Sys().Scheduler();
  const size_t before = scheduler.PendingTasks();
  for (int i = 0; i < 10'000; ++i) {
    scheduler.ScheduleOnce(absl::Hours(24), [] {}).Cancel();
  }
  EXPECT_LE(scheduler.PendingTasks(), before + 200);
  // The live ones stay and fire.
  std::atomic<int> fired = 0;
  for (int i = 0; i < 1'000; ++i) {
    scheduler.ScheduleOnce(absl::Seconds(1), [&fired] { ++fired; });
    scheduler.ScheduleOnce(absl::Seconds(1), [] {}).Cancel();
  }
  EXPECT_GE(scheduler.PendingTasks(), before + 1'000);
  EXPECT_LE(scheduler.PendingTasks(), before + 2'200);
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(fired.load(), 1'000);
}

TEST(SchedulerTest, TasksFireInDeadlineOrder) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  auto& scheduler = kit.Sys().Scheduler();
  scheduler.ScheduleTellOnce(absl::Seconds(3), kit.TestActor(), 3);
  scheduler.ScheduleTellOnce(absl::Seconds(1), kit.TestActor(), 1);
  scheduler.ScheduleTellOnce(absl::Seconds(2), kit.TestActor(), 2);
  clock.Advance(absl::Seconds(5));
  kit.ExpectMsg<int>(1);
  kit.ExpectMsg<int>(2);
  kit.ExpectMsg<int>(3);
}

TEST(SchedulerTest, RealClockFiresWithinAGenerousBound) {
  TestKit kit;
  const absl::Time start = absl::Now();
  kit.Sys().Scheduler().ScheduleTellOnce(absl::Milliseconds(50),
                                         kit.TestActor(), 1);
  kit.ExpectMsg<int>(1, absl::Seconds(5));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(50));
}

}  // namespace
}  // namespace cairn::actor
