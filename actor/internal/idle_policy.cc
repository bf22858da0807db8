#include "actor/internal/idle_policy.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace cairn::actor::internal {
namespace {

// The profiles, named as CAF's scheduler names its polling profiles.
IdlePolicy Aggressive(int threads) {
  return IdlePolicy{absl::Microseconds(100), absl::Milliseconds(1), threads};
}
IdlePolicy Moderate(int threads) {
  return IdlePolicy{absl::Microseconds(20), absl::Microseconds(100),
                    std::max(1, threads / 2)};
}
IdlePolicy Relaxed() { return IdlePolicy{}; }

// `auto` polls only in a process that may use this many CPUs or more.
constexpr int kCpusToPoll = 4;

absl::StatusOr<absl::Duration> NonNegativeDuration(const hocon::Config& section,
                                                   const std::string& path,
                                                   const char* key,
                                                   absl::Duration fallback) {
  if (!section.HasPath(key)) return fallback;
  absl::StatusOr<absl::Duration> value = section.GetDuration(key);
  if (!value.ok()) {
    return absl::Status(
        value.status().code(),
        absl::StrCat(path, ".", key, ": ", value.status().message()));
  }
  if (*value < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ".", key, ": must not be negative, is ",
                     absl::FormatDuration(*value)));
  }
  return *value;
}

}  // namespace

absl::StatusOr<IdlePolicy> IdlePolicyFromConfig(const hocon::Config& section,
                                                const std::string& path,
                                                int threads, int usable_cpus) {
  absl::StatusOr<std::string> name = section.GetStringOr("idle-policy", "auto");
  if (!name.ok()) {
    return absl::Status(
        name.status().code(),
        absl::StrCat(path, ".idle-policy: ", name.status().message()));
  }
  IdlePolicy policy;
  if (*name == "aggressive") {
    policy = Aggressive(threads);
  } else if (*name == "moderate") {
    policy = Moderate(threads);
  } else if (*name == "relaxed") {
    policy = Relaxed();
  } else if (*name == "auto") {
    // Polling holds a core. With few CPUs the thread that will make the
    // work (a journal's writer, the network) needs it: there the waiters
    // only yield. On 2 CPUs, polling 20-200 us cost the 10-actor Persist
    // row 10-35% against yielding (docs/BENCHMARKS.md, "Idle workers").
    policy = Moderate(threads);
    if (usable_cpus < kCpusToPoll) policy.poll = absl::ZeroDuration();
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ".idle-policy: unknown policy '", *name,
                     "' (expected aggressive, moderate, relaxed or auto)"));
  }
  absl::StatusOr<absl::Duration> poll =
      NonNegativeDuration(section, path, "idle-poll-time", policy.poll);
  if (!poll.ok()) return poll.status();
  absl::StatusOr<absl::Duration> yield =
      NonNegativeDuration(section, path, "idle-yield-time", policy.yield);
  if (!yield.ok()) return yield.status();
  policy.poll = *poll;
  policy.yield = *yield;
  if (policy.poll == absl::ZeroDuration() &&
      policy.yield == absl::ZeroDuration()) {
    policy.max_waiters = 0;
  } else {
    policy.max_waiters = std::max(policy.max_waiters, 1);
  }
  return policy;
}

}  // namespace cairn::actor::internal
