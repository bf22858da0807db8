#ifndef CAIRN_REMOTE_INTERNAL_PHI_ACCRUAL_FAILURE_DETECTOR_H_
#define CAIRN_REMOTE_INTERNAL_PHI_ACCRUAL_FAILURE_DETECTOR_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/clock.h"
#include "base/mutex.h"
#include "hocon/config.h"

namespace cairn::remote::internal {

// Akka's phi-accrual failure detector (Hayashibara et al., "The phi accrual
// failure detector"), with Akka's semantics and settings: remote DeathWatch
// feeds it the heartbeat replies of one remote system and asks it whether
// that system is still reachable (docs/design/remoting.md, "Heartbeats").
//
// Instead of a fixed deadline it reports phi, a suspicion level:
//   phi = -log10(1 - F(time since the last heartbeat))
// where F is the normal distribution's CDF with the mean and standard
// deviation of the recent heartbeat intervals (plus the acceptable pause on
// the mean). phi 1 means a 10% chance that a heartbeat still comes, phi 10
// about 1 in 10^10. The system is available while phi < threshold, so the
// deadline adapts to how regular the heartbeats have been.

// The detector's settings, named as Akka's keys (reference.conf of the
// block FromConfig reads documents them).
struct PhiAccrualSettings {
  // phi at or above which the system counts as unavailable. Low: quick
  // detection and more false alarms; high: the reverse.
  double threshold = 10;
  // Intervals kept for the mean and standard deviation: the newest ones.
  int max_sample_size = 200;
  // Floor of the standard deviation: very regular heartbeats would
  // otherwise make a normal small delay look like a failure.
  absl::Duration min_std_deviation = absl::Milliseconds(100);
  // Added to the mean interval: heartbeats lost or late for this long (a
  // GC pause, a network blip) are not yet an anomaly.
  absl::Duration acceptable_heartbeat_pause = absl::Seconds(10);
  // The interval assumed before any was measured (Akka's RemoteWatcher
  // takes `heartbeat-interval`): after the first heartbeat the history is
  // this mean with a quarter of it as standard deviation, so a system that
  // answers once and never again still becomes unavailable.
  absl::Duration first_heartbeat_estimate = absl::Seconds(1);

  // OK, or InvalidArgument naming the key as in config (without a block):
  // threshold must be > 0, max-sample-size >= 1, min-std-deviation and
  // heartbeat-interval > 0, acceptable-heartbeat-pause >= 0 (Akka's rules).
  absl::Status Validate() const;

  // Reads `threshold`, `max-sample-size`, `min-std-deviation`,
  // `acceptable-heartbeat-pause` and `heartbeat-interval` (the first
  // heartbeat's estimate) under `block`, e.g.
  // "akka.remote.watch-failure-detector". A missing key, a value of the
  // wrong type or one Validate() refuses is InvalidArgument naming the full
  // path.
  static absl::StatusOr<PhiAccrualSettings> FromConfig(
      const hocon::Config& config, std::string_view block);
};

// phi for a heartbeat `time_diff` after the last one, when intervals are
// normally distributed with `mean` and `std_deviation` (all in one unit;
// std_deviation > 0). Uses the logistic approximation of the normal CDF,
// 1 / (1 + exp(-y * (1.5976 + 0.070566 * y^2))) with y = (x - mean) / sd
// (error below 0.00014), as Akka does. Past the mean it takes the
// logarithm of the upper tail itself rather than of 1 - CDF, which would
// round to 0 (phi infinite) about 6 deviations out; phi is 0 well
// before the mean and +infinity only where exp underflows.
double LogisticPhi(double time_diff, double mean, double std_deviation);

// The newest intervals between heartbeats, in whole milliseconds as
// Akka's, at most `max_sample_size` of them; mean and variance are kept
// incrementally from exact sums. A value type; thread-compatible.
class HeartbeatHistory {
 public:
  // Intervals are clamped to [0, kLongestIntervalMs] (about 4,400 years),
  // so that the sum of squares fits in 128 bits for any sample size.
  static constexpr int64_t kLongestIntervalMs = int64_t{1} << 47;

  // `max_sample_size` below 1 counts as 1.
  explicit HeartbeatHistory(int max_sample_size);

  // Appends `interval_ms` (clamped), dropping the oldest when full.
  void Add(int64_t interval_ms);

  int size() const { return static_cast<int>(intervals_.size()); }
  // Of the intervals held; 0 when there are none.
  double Mean() const;
  double Variance() const;
  double StdDeviation() const;

 private:
  int max_sample_size_;
  std::deque<int64_t> intervals_;
  // 128 bits: the squares of long intervals overflow 64.
  absl::int128 sum_ = 0;
  absl::int128 squared_sum_ = 0;
};

// The detector of one monitored system. Not monitoring until the first
// Heartbeat(); phi is 0 (available) until then.
//
// Ownership: `clock` is borrowed and must outlive the detector.
// Thread safety: all methods may be called from any thread at once
// (heartbeat replies arrive on gRPC's threads, the watcher asks on the
// scheduler's); each reads the clock under the detector's lock, so
// heartbeats are recorded in the order of their timestamps.
class PhiAccrualFailureDetector {
 public:
  // `settings` should pass Validate() (FromConfig's always do); others are
  // not refused and cause no undefined behaviour, but phi means little.
  PhiAccrualFailureDetector(const PhiAccrualSettings& settings,
                            const actor::Clock& clock);
  PhiAccrualFailureDetector(const PhiAccrualFailureDetector&) = delete;
  PhiAccrualFailureDetector& operator=(const PhiAccrualFailureDetector&) =
      delete;

  // Records a heartbeat now. The first one starts the timing (phi then
  // follows the estimate); later ones add the interval since the previous
  // one to the history, except when the system was already unavailable:
  // the first heartbeat after a failure only restarts the timing, so a
  // long outage does not skew the statistics.
  void Heartbeat();

  // The suspicion level now: 0 before the first heartbeat, then rising
  // with the time since the last one.
  double Phi() const;

  // phi < threshold. True before the first heartbeat: a system never heard
  // from is not suspected.
  bool IsAvailable() const;

  // Whether any heartbeat was recorded.
  bool IsMonitoring() const;

 private:
  double PhiAt(absl::Time now) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const PhiAccrualSettings settings_;
  const actor::Clock& clock_;

  mutable base::Mutex mu_;
  // From construction the estimate's two samples (Akka's bootstrap), so
  // that phi rises after a single heartbeat too.
  HeartbeatHistory history_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Time> last_heartbeat_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_PHI_ACCRUAL_FAILURE_DETECTOR_H_
