// Waiting while recoveries progress, on a manual clock: a wait goes on as
// long as progress keeps coming, however long that is in total, and fails
// as soon as none has come for the idle timeout, saying how far the
// recovery it waited for got.
#include "examples/bank/recovery_wait.h"

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "actor/clock.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "examples/bank/recovery_progress.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cairn::examples::bank {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr absl::Duration kIdle = absl::Seconds(10);

TEST(StalledTest, OnlyOnceNothingMovedForTheIdleTimeout) {
  actor::ManualClock clock;
  RecoveryProgress progress(&clock);
  const absl::Time start = clock.Now();
  clock.Advance(absl::Seconds(9));
  EXPECT_FALSE(Stalled(progress, start, kIdle));
  progress.StreamOf("account-1").Reached(1);
  clock.Advance(absl::Seconds(9));  // 18 s in all, 9 s since the event
  EXPECT_FALSE(Stalled(progress, start, kIdle));
  clock.Advance(absl::Seconds(1));
  EXPECT_TRUE(Stalled(progress, start, kIdle));
}

TEST(StalledTest, EverySignOfLifeCounts) {
  actor::ManualClock clock;
  RecoveryProgress progress(&clock);
  const absl::Time start = clock.Now();
  RecoveryProgress::Stream& stream = progress.StreamOf("account-1");
  clock.Advance(absl::Seconds(9));
  stream.SetExpected(5);
  clock.Advance(absl::Seconds(9));
  stream.Finished();
  clock.Advance(absl::Seconds(9));
  progress.MarkProgress();  // an answer came
  clock.Advance(absl::Seconds(9));
  EXPECT_FALSE(Stalled(progress, start, kIdle));
  clock.Advance(absl::Seconds(1));
  EXPECT_TRUE(Stalled(progress, start, kIdle));
}

TEST(StalledTest, CountsFromTheStartOfTheWaitAtTheEarliest) {
  actor::ManualClock clock;
  RecoveryProgress progress(&clock);
  progress.StreamOf("account-1").Reached(1);
  clock.Advance(absl::Minutes(5));  // long before this wait began
  const absl::Time start = clock.Now();
  EXPECT_FALSE(Stalled(progress, start, kIdle));
  clock.Advance(kIdle);
  EXPECT_TRUE(Stalled(progress, start, kIdle));
}

TEST(RecoveryProgressTest, TotalsTheSequenceNumbersReached) {
  actor::ManualClock clock;
  RecoveryProgress progress(&clock);
  RecoveryProgress::Stream& a = progress.StreamOf("account-1");
  RecoveryProgress::Stream& b = progress.StreamOf("account-2");
  EXPECT_EQ(&a, &progress.StreamOf("account-1"));
  a.Reached(3);  // a snapshot at 3
  a.Reached(4);
  b.Reached(1);
  EXPECT_EQ(progress.total(), 5);
  a.Restart();  // a new incarnation recovers again
  EXPECT_EQ(progress.total(), 1);
  EXPECT_EQ(progress.Find("account-3"), nullptr);
}

TEST(RecoveryProgressTest, KeepsAFailureOfOneIncarnationUntilTheNextStarts) {
  actor::ManualClock clock;
  RecoveryProgress progress(&clock);
  // Two actors: only their identity counts here.
  actor::testkit::TestKit kit;
  const actor::ActorRef failed = kit.CreateTestProbe()->Ref();
  const actor::ActorRef other = kit.CreateTestProbe()->Ref();
  RecoveryProgress::Stream& a = progress.StreamOf("account-1");
  progress.StreamOf("account-2");
  const absl::Time before = progress.last_progress();
  clock.Advance(absl::Seconds(1));
  a.Fail("event 3 is unreadable", failed);
  EXPECT_EQ(progress.FailureOf("account-1", failed), "event 3 is unreadable");
  EXPECT_GT(progress.last_progress(), before);  // a sign of life too
  // Not another actor's: a message it never got is not the recovery's.
  EXPECT_EQ(progress.FailureOf("account-1", other), std::nullopt);
  EXPECT_EQ(progress.FailureOf("account-2", failed), std::nullopt);
  EXPECT_EQ(progress.FailureOf("account-3", failed), std::nullopt);
  a.Restart();
  EXPECT_EQ(progress.FailureOf("account-1", failed), std::nullopt);
}

// A `ready` for AwaitWhileProgressing that never becomes true: each call
// (each poll) moves the clock by `step` and first runs `on_poll(n)` with
// the number of the poll.
struct Polls {
  actor::ManualClock& clock;
  absl::Duration step;
  std::function<bool(int)> on_poll;
  int count = 0;

  std::function<bool(absl::Duration)> Ready() {
    return [this](absl::Duration) {
      ++count;
      const bool done = on_poll(count);
      clock.Advance(step);
      return done;
    };
  }
};

TEST(AwaitWhileProgressingTest, WaitsAsLongAsTheRecoveryProgresses) {
  actor::ManualClock clock;
  RecoveryProgress progress(&clock);
  RecoveryProgress::Stream& stream = progress.StreamOf("account-1");
  // An event every 3/4 of the idle timeout, for 40 polls: 30 idle timeouts
  // in all.
  Polls polls{clock, kIdle * 3 / 4, [&](int n) {
                stream.Reached(n);
                return n == 40;
              }};
  EXPECT_OK(AwaitWhileProgressing(polls.Ready(), progress, "account 1",
                                  "account-1", Patience{kIdle}));
  EXPECT_EQ(polls.count, 40);
}

TEST(AwaitWhileProgressingTest, FailsOnceNothingMovedNamingTheRecovery) {
  actor::ManualClock clock;
  RecoveryProgress progress(&clock);
  RecoveryProgress::Stream& stream = progress.StreamOf("account-7");
  stream.SetExpected(4000001);
  Polls polls{clock, kIdle * 3 / 4, [&](int n) {
                if (n <= 5) stream.Reached(n * 1000);
                return false;
              }};
  absl::Status s = AwaitWhileProgressing(polls.Ready(), progress, "account 7",
                                         "account-7", Patience{kIdle});
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("account 7 (persistence id account-7)"),
                    HasSubstr("its recovery"),
                    HasSubstr("no recovery made progress for 10s"),
                    HasSubstr("stuck at event 5000 of 4000001")));
  // The last event came at poll 5, and 3/4 of the idle timeout passed
  // after it; poll 6 moved the clock past the idle timeout: it failed at
  // the first look past it, not later.
  EXPECT_EQ(polls.count, 6);
}

TEST(AwaitWhileProgressingTest, SaysWhenTheRecoveryHadNotBegun) {
  actor::ManualClock clock;
  RecoveryProgress progress(&clock);
  Polls polls{clock, kIdle, [](int) { return false; }};
  absl::Status s = AwaitWhileProgressing(polls.Ready(), progress, "account 7",
                                         "account-7", Patience{kIdle});
  EXPECT_THAT(s.message(), HasSubstr("nothing of it recovered yet"));
}

TEST(AwaitWhileProgressingTest, SaysWhenTheRecoveryEndedButNoAnswerCame) {
  actor::ManualClock clock;
  RecoveryProgress progress(&clock);
  RecoveryProgress::Stream& stream = progress.StreamOf("account-7");
  stream.SetExpected(12);
  stream.Reached(12);
  stream.Finished();
  Polls polls{clock, kIdle, [](int) { return false; }};
  absl::Status s = AwaitWhileProgressing(polls.Ready(), progress, "account 7",
                                         "account-7", Patience{kIdle});
  EXPECT_THAT(s.message(),
              HasSubstr("recovered to event 12 of 12, but no answer came"));
}

}  // namespace
}  // namespace cairn::examples::bank
