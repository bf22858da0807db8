#include "persistence/internal/recovery_watchdog.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/clock.h"
#include "actor/scheduler.h"
#include "base/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cairn::persistence::internal {
namespace {

using ::testing::UnorderedElementsAre;

// A watchdog on a manual clock, recording the instances it ticks.
class RecoveryWatchdogTest : public ::testing::Test {
 protected:
  RecoveryWatchdogTest()
      : scheduler_(&clock_),
        watchdog_(std::make_unique<RecoveryWatchdog>(
            scheduler_, [this](const actor::ActorRef&, uint64_t instance) {
              base::MutexLock lock(&mu_);
              ticked_.push_back(instance);
            })) {}

  // The instances ticked by advancing the clock by `d`.
  std::vector<uint64_t> Advance(absl::Duration d) {
    clock_.Advance(d);
    base::MutexLock lock(&mu_);
    return std::exchange(ticked_, {});
  }

  actor::ManualClock clock_;
  actor::Scheduler scheduler_;
  base::Mutex mu_;
  std::vector<uint64_t> ticked_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<RecoveryWatchdog> watchdog_;
};

TEST_F(RecoveryWatchdogTest, TicksEachRecoveryEveryTimeoutOfIts) {
  watchdog_->Watch(1, actor::ActorRef(), absl::Seconds(5));
  watchdog_->Watch(2, actor::ActorRef(), absl::Seconds(5));
  watchdog_->Watch(3, actor::ActorRef(), absl::Seconds(10));
  EXPECT_TRUE(Advance(absl::Seconds(4)).empty());
  EXPECT_THAT(Advance(absl::Seconds(1)), UnorderedElementsAre(1, 2));
  EXPECT_THAT(Advance(absl::Seconds(5)), UnorderedElementsAre(1, 2, 3));
  EXPECT_THAT(Advance(absl::Seconds(5)), UnorderedElementsAre(1, 2));
}

TEST_F(RecoveryWatchdogTest, ARecoveryWatchedBetweenTicksIsTickedAtTheNext) {
  watchdog_->Watch(1, actor::ActorRef(), absl::Seconds(5));
  Advance(absl::Seconds(4));
  // One task ticks every recovery of a timeout: the one watched now gets
  // its first tick with the others', a second later (PersistentActor lets
  // a first tick pass).
  watchdog_->Watch(2, actor::ActorRef(), absl::Seconds(5));
  EXPECT_THAT(Advance(absl::Seconds(1)), UnorderedElementsAre(1, 2));
}

TEST_F(RecoveryWatchdogTest, AnUnwatchedRecoveryIsNoLongerTicked) {
  watchdog_->Watch(1, actor::ActorRef(), absl::Seconds(5));
  watchdog_->Watch(2, actor::ActorRef(), absl::Seconds(5));
  watchdog_->Unwatch(1, absl::Seconds(5));
  watchdog_->Unwatch(7, absl::Seconds(5));   // never watched: nothing
  watchdog_->Unwatch(2, absl::Seconds(30));  // another timeout: nothing
  EXPECT_EQ(watchdog_->watched(), 1u);
  EXPECT_THAT(Advance(absl::Seconds(5)), UnorderedElementsAre(2));
  watchdog_->Unwatch(2, absl::Seconds(5));
  EXPECT_TRUE(Advance(absl::Seconds(5)).empty());
  EXPECT_EQ(watchdog_->watched(), 0u);
}

TEST_F(RecoveryWatchdogTest, NothingIsTickedOnceTheWatchdogIsGone) {
  watchdog_->Watch(1, actor::ActorRef(), absl::Seconds(5));
  watchdog_.reset();
  EXPECT_TRUE(Advance(absl::Seconds(10)).empty());
  // Its task is cancelled, not only idle.
  EXPECT_EQ(scheduler_.PendingTasks(), 0u);
}

}  // namespace
}  // namespace cairn::persistence::internal
