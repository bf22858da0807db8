#include "remote/internal/phi_accrual_failure_detector.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/string_view.h"

namespace cairn::remote::internal {
namespace {

// The settings' rules, with each key named `prefix` + its config name.
absl::Status Check(const PhiAccrualSettings& s, std::string_view prefix) {
  auto invalid = [&](std::string_view key, std::string_view why) {
    return absl::InvalidArgumentError(base::StrCat(prefix, key, ": ", why));
  };
  // Written so that NaN fails too.
  if (!(s.threshold > 0)) {
    return invalid("threshold", base::StrCat("must be > 0, got ", s.threshold));
  }
  if (s.max_sample_size < 1) {
    return invalid("max-sample-size",
                   base::StrCat("must be >= 1, got ", s.max_sample_size));
  }
  if (s.min_std_deviation <= absl::ZeroDuration()) {
    return invalid("min-std-deviation", "must be > 0");
  }
  if (s.acceptable_heartbeat_pause < absl::ZeroDuration()) {
    return invalid("acceptable-heartbeat-pause", "must be >= 0");
  }
  if (s.first_heartbeat_estimate <= absl::ZeroDuration()) {
    return invalid("heartbeat-interval", "must be > 0");
  }
  return absl::OkStatus();
}

// Config's own errors (missing, wrong type) name the path; they are
// InvalidArgument here like the range errors.
absl::Status Bad(const absl::Status& status) {
  return absl::InvalidArgumentError(std::string(status.message()));
}

int64_t ClampInterval(int64_t ms) {
  return std::clamp<int64_t>(ms, 0, HeartbeatHistory::kLongestIntervalMs);
}

}  // namespace

absl::Status PhiAccrualSettings::Validate() const { return Check(*this, ""); }

absl::StatusOr<PhiAccrualSettings> PhiAccrualSettings::FromConfig(
    const hocon::Config& config, std::string_view block) {
  const std::string prefix = base::StrCat(block, ".");
  PhiAccrualSettings s;
  absl::StatusOr<double> threshold =
      config.GetDouble(base::StrCat(prefix, "threshold"));
  if (!threshold.ok()) return Bad(threshold.status());
  s.threshold = *threshold;
  absl::StatusOr<int> samples =
      config.GetInt(base::StrCat(prefix, "max-sample-size"));
  if (!samples.ok()) return Bad(samples.status());
  s.max_sample_size = *samples;
  auto duration = [&](std::string_view key,
                      absl::Duration* out) -> absl::Status {
    absl::StatusOr<absl::Duration> d =
        config.GetDuration(base::StrCat(prefix, key));
    if (!d.ok()) return Bad(d.status());
    *out = *d;
    return absl::OkStatus();
  };
  if (absl::Status st = duration("min-std-deviation", &s.min_std_deviation);
      !st.ok()) {
    return st;
  }
  if (absl::Status st =
          duration("acceptable-heartbeat-pause", &s.acceptable_heartbeat_pause);
      !st.ok()) {
    return st;
  }
  if (absl::Status st =
          duration("heartbeat-interval", &s.first_heartbeat_estimate);
      !st.ok()) {
    return st;
  }
  if (absl::Status st = Check(s, prefix); !st.ok()) return st;
  return s;
}

double LogisticPhi(double time_diff, double mean, double std_deviation) {
  const double y = (time_diff - mean) / std_deviation;
  const double e = std::exp(-y * (1.5976 + 0.070566 * y * y));
  // e / (1 + e) is 1 - CDF(y); past the mean e <= 1 and this form keeps
  // its precision where 1 - CDF would cancel.
  if (time_diff > mean) return -std::log10(e / (1.0 + e));
  return -std::log10(1.0 - 1.0 / (1.0 + e));
}

HeartbeatHistory::HeartbeatHistory(int max_sample_size)
    : max_sample_size_(std::max(max_sample_size, 1)) {}

void HeartbeatHistory::Add(int64_t interval_ms) {
  if (static_cast<int>(intervals_.size()) == max_sample_size_) {
    const absl::int128 oldest = intervals_.front();
    intervals_.pop_front();
    sum_ -= oldest;
    squared_sum_ -= oldest * oldest;
  }
  const absl::int128 interval = ClampInterval(interval_ms);
  intervals_.push_back(static_cast<int64_t>(interval));
  sum_ += interval;
  squared_sum_ += interval * interval;
}

double HeartbeatHistory::Mean() const {
  if (intervals_.empty()) return 0;
  return static_cast<double>(sum_) / static_cast<double>(intervals_.size());
}

double HeartbeatHistory::Variance() const {
  if (intervals_.empty()) return 0;
  const double mean = Mean();
  const double variance = static_cast<double>(squared_sum_) /
                              static_cast<double>(intervals_.size()) -
                          mean * mean;
  // The sums are exact; only the subtraction in doubles can round below 0.
  return std::max(variance, 0.0);
}

double HeartbeatHistory::StdDeviation() const { return std::sqrt(Variance()); }

namespace {

// Akka's bootstrap: two samples, estimate -/+ a quarter of it, i.e. mean
// the estimate and a rather high standard deviation, since nothing is
// known yet about the network.
HeartbeatHistory FirstHistory(const PhiAccrualSettings& settings) {
  HeartbeatHistory history(settings.max_sample_size);
  const int64_t mean = ClampInterval(
      absl::ToInt64Milliseconds(settings.first_heartbeat_estimate));
  const int64_t std_deviation = mean / 4;
  history.Add(mean - std_deviation);
  history.Add(mean + std_deviation);
  return history;
}

}  // namespace

PhiAccrualFailureDetector::PhiAccrualFailureDetector(
    const PhiAccrualSettings& settings, const actor::Clock& clock)
    : settings_(settings), clock_(clock), history_(FirstHistory(settings)) {}

void PhiAccrualFailureDetector::Heartbeat() {
  base::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  // The first heartbeat only starts the timing: the history already holds
  // the estimate's samples.
  if (last_heartbeat_.has_value() && PhiAt(now) < settings_.threshold) {
    history_.Add(absl::ToInt64Milliseconds(now - *last_heartbeat_));
  }
  last_heartbeat_ = now;
}

double PhiAccrualFailureDetector::Phi() const {
  base::MutexLock lock(&mu_);
  return PhiAt(clock_.Now());
}

bool PhiAccrualFailureDetector::IsAvailable() const {
  return Phi() < settings_.threshold;
}

bool PhiAccrualFailureDetector::IsMonitoring() const {
  base::MutexLock lock(&mu_);
  return last_heartbeat_.has_value();
}

double PhiAccrualFailureDetector::PhiAt(absl::Time now) const {
  if (!last_heartbeat_.has_value()) return 0;
  const double time_diff =
      static_cast<double>(absl::ToInt64Milliseconds(now - *last_heartbeat_));
  const double mean =
      history_.Mean() +
      absl::ToDoubleMilliseconds(settings_.acceptable_heartbeat_pause);
  const double std_deviation =
      std::max(history_.StdDeviation(),
               absl::ToDoubleMilliseconds(settings_.min_std_deviation));
  return LogisticPhi(time_diff, mean, std_deviation);
}

}  // namespace cairn::remote::internal
