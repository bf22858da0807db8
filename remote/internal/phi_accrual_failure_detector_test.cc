// The phi-accrual failure detector against the behaviour of Akka's
// (AccrualFailureDetectorSpec's cases, restated): heartbeat arrival times
// come from a ManualClock, so every phi below is exact and nothing waits.
#include "remote/internal/phi_accrual_failure_detector.h"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "actor/clock.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::remote::internal {
namespace {

using ::testing::HasSubstr;

// The normal CDF at phi's point, read back from phi.
double Cdf(double phi) { return 1.0 - std::pow(10.0, -phi); }

// Akka's spec's detector: threshold 8, no acceptable pause, a large
// window, 100 ms floor, 1 s first estimate.
PhiAccrualSettings SpecSettings() {
  PhiAccrualSettings s;
  s.threshold = 8;
  s.max_sample_size = 1000;
  s.min_std_deviation = absl::Milliseconds(100);
  s.acceptable_heartbeat_pause = absl::ZeroDuration();
  s.first_heartbeat_estimate = absl::Seconds(1);
  return s;
}

// Advances `clock` by `ms` and heartbeats.
void HeartbeatAfter(actor::ManualClock& clock, PhiAccrualFailureDetector& fd,
                    int64_t ms) {
  clock.Advance(absl::Milliseconds(ms));
  fd.Heartbeat();
}

// Heartbeats now and then after each of `intervals_ms`.
void Heartbeats(actor::ManualClock& clock, PhiAccrualFailureDetector& fd,
                std::initializer_list<int64_t> intervals_ms) {
  fd.Heartbeat();
  for (int64_t ms : intervals_ms) HeartbeatAfter(clock, fd, ms);
}

TEST(LogisticPhiTest, ApproximatesTheNormalCdfWithinAThousandth) {
  // Standard normal CDF values at (x - 0) / 10.
  EXPECT_NEAR(Cdf(LogisticPhi(0, 0, 10)), 0.5, 0.001);
  EXPECT_NEAR(Cdf(LogisticPhi(6, 0, 10)), 0.7257, 0.001);
  EXPECT_NEAR(Cdf(LogisticPhi(15, 0, 10)), 0.9332, 0.001);
  EXPECT_NEAR(Cdf(LogisticPhi(20, 0, 10)), 0.97725, 0.001);
  EXPECT_NEAR(Cdf(LogisticPhi(25, 0, 10)), 0.99379, 0.001);
  EXPECT_NEAR(Cdf(LogisticPhi(35, 0, 10)), 0.99977, 0.001);
  EXPECT_NEAR(Cdf(LogisticPhi(40, 0, 10)), 0.99997, 0.0001);
  // Another mean and deviation: (22 - 20) / 3 = 0.667.
  EXPECT_NEAR(Cdf(LogisticPhi(22, 20, 3)), 0.7475, 0.001);
}

TEST(LogisticPhiTest, IncreasesStrictlyWithTheTimeSinceTheLastHeartbeat) {
  for (int x = 0; x < 40; ++x) {
    EXPECT_LT(LogisticPhi(x, 0, 10), LogisticPhi(x + 1, 0, 10)) << x;
  }
}

TEST(LogisticPhiTest, StaysPreciseForOutliersOnBothSides) {
  // Ten deviations out, 1 - CDF is about 1e-38: still a number.
  EXPECT_NEAR(LogisticPhi(10, 0, 1), 38.0, 1.0);
  EXPECT_EQ(LogisticPhi(-25, 0, 1), 0.0);
}

TEST(LogisticPhiTest, GivesRealisticValuesAroundAOneSecondMean) {
  const struct {
    double time_diff;
    double phi;
  } cases[] = {{0, 0.0},    {500, 0.1},   {1000, 0.3}, {1200, 1.6},
               {1400, 4.7}, {1600, 10.8}, {1700, 15.3}};
  for (const auto& c : cases) {
    EXPECT_NEAR(LogisticPhi(c.time_diff, 1000, 100), c.phi, 0.1) << c.time_diff;
  }
  // The more the intervals vary, the less a given delay is suspicious.
  EXPECT_LT(LogisticPhi(1100, 1000, 500), LogisticPhi(1100, 1000, 100));
}

TEST(PhiAccrualFailureDetectorTest, IsAvailableWithPhiZeroBeforeAnyHeartbeat) {
  actor::ManualClock clock;
  PhiAccrualFailureDetector fd(SpecSettings(), clock);
  EXPECT_FALSE(fd.IsMonitoring());
  EXPECT_EQ(fd.Phi(), 0.0);
  clock.Advance(absl::Hours(1));
  EXPECT_EQ(fd.Phi(), 0.0);
  EXPECT_TRUE(fd.IsAvailable());
  EXPECT_FALSE(fd.IsMonitoring());
}

TEST(PhiAccrualFailureDetectorTest, AfterOneHeartbeatPhiFollowsTheEstimate) {
  actor::ManualClock clock;
  PhiAccrualFailureDetector fd(SpecSettings(), clock);
  fd.Heartbeat();
  EXPECT_TRUE(fd.IsMonitoring());
  // Estimate 1 s: mean 1000 ms, deviation 250 ms.
  clock.Advance(absl::Seconds(1));
  EXPECT_NEAR(fd.Phi(), 0.3, 0.2);
  clock.Advance(absl::Seconds(1));
  EXPECT_NEAR(fd.Phi(), 4.5, 0.3);
  clock.Advance(absl::Seconds(1));
  EXPECT_GT(fd.Phi(), 15.0);
  // So a system heard from once becomes unavailable.
  EXPECT_FALSE(fd.IsAvailable());
}

TEST(PhiAccrualFailureDetectorTest, PhiRisesWithTheTimeSinceTheLastHeartbeat) {
  actor::ManualClock clock;
  PhiAccrualFailureDetector fd(SpecSettings(), clock);
  Heartbeats(clock, fd, {100, 100});
  double previous = fd.Phi();
  EXPECT_GT(previous, 0.0);
  for (int i = 0; i < 10; ++i) {
    clock.Advance(absl::Milliseconds(50));
    const double phi = fd.Phi();
    EXPECT_GT(phi, previous) << i;
    previous = phi;
  }
  // A heartbeat brings it down again.
  fd.Heartbeat();
  EXPECT_LT(fd.Phi(), previous);
}

TEST(PhiAccrualFailureDetectorTest, RegularHeartbeatsKeepTheSystemAvailable) {
  actor::ManualClock clock;
  PhiAccrualFailureDetector fd(SpecSettings(), clock);
  Heartbeats(clock, fd, {1000, 100});
  clock.Advance(absl::Milliseconds(100));
  EXPECT_TRUE(fd.IsMonitoring());
  EXPECT_TRUE(fd.IsAvailable());
  for (int i = 0; i < 100; ++i) {
    HeartbeatAfter(clock, fd, 1000);
    clock.Advance(absl::Milliseconds(900));
    EXPECT_TRUE(fd.IsAvailable()) << i;
    clock.Advance(absl::Milliseconds(100));
  }
}

TEST(PhiAccrualFailureDetectorTest, MissedHeartbeatsMakeItUnavailable) {
  PhiAccrualSettings settings = SpecSettings();
  settings.threshold = 3;
  actor::ManualClock clock;
  PhiAccrualFailureDetector fd(settings, clock);
  Heartbeats(clock, fd, {1000, 100});
  clock.Advance(absl::Milliseconds(100));
  EXPECT_TRUE(fd.IsAvailable());
  clock.Advance(absl::Seconds(7));
  EXPECT_FALSE(fd.IsAvailable());
}

TEST(PhiAccrualFailureDetectorTest,
     AvailableAgainWhenHeartbeatsResumeAndTheOutageIsNotLearned) {
  PhiAccrualSettings settings = SpecSettings();
  settings.acceptable_heartbeat_pause = absl::Seconds(3);
  actor::ManualClock clock;
  PhiAccrualFailureDetector fd(settings, clock);
  fd.Heartbeat();
  for (int i = 0; i < 999; ++i) HeartbeatAfter(clock, fd, 1000);
  clock.Advance(absl::Minutes(5));
  EXPECT_FALSE(fd.IsAvailable());
  HeartbeatAfter(clock, fd, 100);
  clock.Advance(absl::Milliseconds(900));
  EXPECT_TRUE(fd.IsAvailable());
  HeartbeatAfter(clock, fd, 100);
  // Had the 5 minutes entered the history, 7 s would not be suspicious.
  clock.Advance(absl::Seconds(7));
  EXPECT_FALSE(fd.IsAvailable());
  HeartbeatAfter(clock, fd, 100);
  clock.Advance(absl::Milliseconds(900));
  EXPECT_TRUE(fd.IsAvailable());
  HeartbeatAfter(clock, fd, 100);
  clock.Advance(absl::Milliseconds(900));
  EXPECT_TRUE(fd.IsAvailable());
}

TEST(PhiAccrualFailureDetectorTest, APauseWithinTheAcceptableOneIsNoFailure) {
  PhiAccrualSettings settings = SpecSettings();
  settings.acceptable_heartbeat_pause = absl::Seconds(3);
  actor::ManualClock clock;
  PhiAccrualFailureDetector fd(settings, clock);
  Heartbeats(clock, fd, {1000, 1000, 1000});
  clock.Advance(absl::Seconds(4));
  EXPECT_TRUE(fd.IsAvailable());
  HeartbeatAfter(clock, fd, 1000);
  clock.Advance(absl::Seconds(1));
  EXPECT_TRUE(fd.IsAvailable());

  // Without the acceptable pause the same 4 s is a failure.
  actor::ManualClock strict_clock;
  PhiAccrualFailureDetector strict(SpecSettings(), strict_clock);
  Heartbeats(strict_clock, strict, {1000, 1000, 1000});
  strict_clock.Advance(absl::Seconds(4));
  EXPECT_FALSE(strict.IsAvailable());
}

TEST(PhiAccrualFailureDetectorTest, APauseBeyondTheAcceptableOneIsAFailure) {
  PhiAccrualSettings settings = SpecSettings();
  settings.acceptable_heartbeat_pause = absl::Seconds(3);
  actor::ManualClock clock;
  PhiAccrualFailureDetector fd(settings, clock);
  Heartbeats(clock, fd, {1000, 1000, 1000, 1000, 1000});
  clock.Advance(absl::Milliseconds(500));
  EXPECT_TRUE(fd.IsAvailable());
  HeartbeatAfter(clock, fd, 500);
  clock.Advance(absl::Seconds(5));
  EXPECT_FALSE(fd.IsAvailable());
}

TEST(PhiAccrualFailureDetectorTest, MinStdDeviationIsTheFloorOfTheDeviation) {
  // A window of identical 1 s intervals has deviation 0: phi uses the floor.
  for (absl::Duration floor : {absl::Milliseconds(100), absl::Seconds(1)}) {
    PhiAccrualSettings settings = SpecSettings();
    settings.max_sample_size = 3;
    settings.min_std_deviation = floor;
    actor::ManualClock clock;
    PhiAccrualFailureDetector fd(settings, clock);
    Heartbeats(clock, fd, {1000, 1000, 1000});
    clock.Advance(absl::Milliseconds(1200));
    EXPECT_DOUBLE_EQ(fd.Phi(),
                     LogisticPhi(1200, 1000, absl::ToDoubleMilliseconds(floor)))
        << floor;
  }
  // A larger floor makes the same delay less suspicious.
  EXPECT_LT(LogisticPhi(1200, 1000, 1000), LogisticPhi(1200, 1000, 100));
}

TEST(PhiAccrualFailureDetectorTest, OnlyTheNewestMaxSampleSizeIntervalsCount) {
  PhiAccrualSettings settings = SpecSettings();
  settings.max_sample_size = 3;
  actor::ManualClock clock;
  PhiAccrualFailureDetector fd(settings, clock);
  Heartbeats(clock, fd, {100, 100, 100});
  clock.Advance(absl::Milliseconds(100));
  const double phi_of_100ms_window = fd.Phi();
  // The 600 ms gap is a failure (not learned); then 500 ms intervals
  // replace the three 100 ms ones.
  HeartbeatAfter(clock, fd, 500);
  for (int i = 0; i < 3; ++i) HeartbeatAfter(clock, fd, 500);
  clock.Advance(absl::Milliseconds(500));
  // Both: one mean interval since the last heartbeat, deviation the floor.
  EXPECT_NEAR(fd.Phi(), phi_of_100ms_window, 0.001);
}

TEST(PhiAccrualFailureDetectorTest, ConcurrentHeartbeatsAndQueriesAreSafe) {
  actor::ManualClock clock;
  PhiAccrualFailureDetector fd(SpecSettings(), clock);
  std::thread heartbeats([&] {
    for (int i = 0; i < 1000; ++i) {
      clock.Advance(absl::Milliseconds(10));
      fd.Heartbeat();
    }
  });
  int available = 0;
  for (int i = 0; i < 1000; ++i) {
    if (fd.IsAvailable()) ++available;
    EXPECT_GE(fd.Phi(), 0.0);
  }
  heartbeats.join();
  // Heartbeats every 10 ms: never suspicious, whatever the interleaving.
  EXPECT_EQ(available, 1000);
  EXPECT_TRUE(fd.IsMonitoring());
}

TEST(HeartbeatHistoryTest, KeepsMeanAndVariance) {
  HeartbeatHistory history(20);
  for (int64_t ms : {100, 200, 125, 340, 130}) history.Add(ms);
  EXPECT_NEAR(history.Mean(), 179.0, 1e-5);
  EXPECT_NEAR(history.Variance(), 7584.0, 1e-5);
  EXPECT_NEAR(history.StdDeviation(), std::sqrt(7584.0), 1e-5);
}

TEST(HeartbeatHistoryTest, OneSampleHasNoVariance) {
  HeartbeatHistory history(600);
  history.Add(1000);
  EXPECT_EQ(history.Mean(), 1000.0);
  EXPECT_EQ(history.Variance(), 0.0);
}

TEST(HeartbeatHistoryTest, IsBoundedByMaxSampleSize) {
  HeartbeatHistory history(3);
  for (int64_t ms : {100, 110, 90}) history.Add(ms);
  EXPECT_NEAR(history.Mean(), 100.0, 1e-5);
  EXPECT_NEAR(history.Variance(), 66.6666667, 1e-5);
  history.Add(140);  // drops 100
  EXPECT_EQ(history.size(), 3);
  EXPECT_NEAR(history.Mean(), 113.333333, 1e-5);
  EXPECT_NEAR(history.Variance(), 422.222222, 1e-5);
  history.Add(80);  // drops 110
  EXPECT_EQ(history.size(), 3);
  EXPECT_NEAR(history.Mean(), 103.333333, 1e-5);
  EXPECT_NEAR(history.Variance(), 688.88888889, 1e-5);
}

TEST(HeartbeatHistoryTest, HugeIntervalsDoNotOverflow) {
  HeartbeatHistory history(2);
  history.Add(HeartbeatHistory::kLongestIntervalMs);
  history.Add(std::numeric_limits<int64_t>::max());  // clamped
  EXPECT_EQ(history.Mean(),
            static_cast<double>(HeartbeatHistory::kLongestIntervalMs));
  EXPECT_EQ(history.Variance(), 0.0);
  history.Add(-5);  // counts as 0
  EXPECT_EQ(history.Mean(),
            static_cast<double>(HeartbeatHistory::kLongestIntervalMs) / 2);
}

constexpr char kBlock[] = R"(
  fd {
    heartbeat-interval = 2s
    threshold = 8.5
    max-sample-size = 50
    min-std-deviation = 200ms
    acceptable-heartbeat-pause = 3s
    expected-response-after = 1s
  }
)";

TEST(PhiAccrualSettingsTest, FromConfigReadsAkkasKeys) {
  ASSERT_OK_AND_ASSIGN(hocon::Config config,
                       hocon::Config::ParseString(kBlock));
  ASSERT_OK_AND_ASSIGN(PhiAccrualSettings s,
                       PhiAccrualSettings::FromConfig(config, "fd"));
  EXPECT_EQ(s.threshold, 8.5);
  EXPECT_EQ(s.max_sample_size, 50);
  EXPECT_EQ(s.min_std_deviation, absl::Milliseconds(200));
  EXPECT_EQ(s.acceptable_heartbeat_pause, absl::Seconds(3));
  EXPECT_EQ(s.first_heartbeat_estimate, absl::Seconds(2));
}

TEST(PhiAccrualSettingsTest, DefaultsAreAkkasAndValid) {
  PhiAccrualSettings s;
  EXPECT_OK(s.Validate());
  EXPECT_EQ(s.threshold, 10.0);
  EXPECT_EQ(s.max_sample_size, 200);
  EXPECT_EQ(s.min_std_deviation, absl::Milliseconds(100));
  EXPECT_EQ(s.acceptable_heartbeat_pause, absl::Seconds(10));
  EXPECT_EQ(s.first_heartbeat_estimate, absl::Seconds(1));
}

TEST(PhiAccrualSettingsTest, BadValuesAreInvalidArgumentNamingTheKey) {
  const struct {
    const char* override_text;
    const char* path;
  } cases[] = {
      {"fd.threshold = 0", "fd.threshold"},
      {"fd.threshold = -1.5", "fd.threshold"},
      {"fd.threshold = lots", "fd.threshold"},
      {"fd.max-sample-size = 0", "fd.max-sample-size"},
      {"fd.min-std-deviation = 0ms", "fd.min-std-deviation"},
      {"fd.min-std-deviation = -100ms", "fd.min-std-deviation"},
      {"fd.acceptable-heartbeat-pause = -1s", "fd.acceptable-heartbeat-pause"},
      {"fd.heartbeat-interval = 0s", "fd.heartbeat-interval"},
      {"fd.heartbeat-interval = soon", "fd.heartbeat-interval"},
  };
  for (const auto& c : cases) {
    ASSERT_OK_AND_ASSIGN(
        hocon::Config config,
        hocon::Config::ParseString(std::string(kBlock) + c.override_text));
    absl::StatusOr<PhiAccrualSettings> s =
        PhiAccrualSettings::FromConfig(config, "fd");
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument)
        << c.override_text;
    EXPECT_THAT(s.status().message(), HasSubstr(c.path)) << c.override_text;
  }
}

TEST(PhiAccrualSettingsTest, AMissingKeyIsInvalidArgumentNamingIt) {
  ASSERT_OK_AND_ASSIGN(
      hocon::Config config,
      hocon::Config::ParseString("fd { threshold = 10, max-sample-size = 5 }"));
  absl::StatusOr<PhiAccrualSettings> s =
      PhiAccrualSettings::FromConfig(config, "fd");
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("fd.min-std-deviation"));
}

TEST(PhiAccrualSettingsTest, AcceptableHeartbeatPauseMayBeZero) {
  PhiAccrualSettings s;
  s.acceptable_heartbeat_pause = absl::ZeroDuration();
  EXPECT_OK(s.Validate());
}

}  // namespace
}  // namespace cairn::remote::internal
