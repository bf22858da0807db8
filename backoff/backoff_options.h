#ifndef CAIRN_BACKOFF_BACKOFF_OPTIONS_H_
#define CAIRN_BACKOFF_BACKOFF_OPTIONS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "actor/any_message.h"
#include "actor/props.h"
#include "actor/supervisor_strategy.h"

namespace cairn::backoff {

// The delay before restart number `restart_count` (0 for the first):
// min(max, min * 2^restart_count) * (1 + uniform01 * random_factor), and
// max where the doubling overflows. `uniform01` is a draw from [0, 1).
// A pure function, so the jitter can be tested exactly.
absl::Duration CalculateDelay(int restart_count, absl::Duration min_backoff,
                              absl::Duration max_backoff, double random_factor,
                              double uniform01);

// How a BackoffSupervisor runs its child. Build one with Backoff::OnStop or
// Backoff::OnFailure, then refine it; every With* returns a new copy.
class BackoffOptions {
 public:
  enum class Mode { kOnStop, kOnFailure };
  using StrategyFactory =
      std::function<std::unique_ptr<actor::SupervisorStrategy>()>;

  // Back-off resets to min_backoff once the child has run this long
  // without stopping (the default: min_backoff).
  BackoffOptions WithAutoReset(absl::Duration reset_after) const;
  // Back-off resets only when the child sends BackoffSupervisor::Reset to
  // its parent.
  BackoffOptions WithManualReset() const;
  // How the supervisor handles the child's exceptions. With OnFailure, a
  // Restart decision becomes "stop, then start again after the back-off".
  template <typename S>
  BackoffOptions WithSupervisorStrategy(const S& strategy) const {
    return WithStrategyFactory([strategy] {
      return std::unique_ptr<actor::SupervisorStrategy>(new S(strategy));
    });
  }
  BackoffOptions WithStrategyFactory(StrategyFactory factory) const;
  // Any exception stops the child (which OnStop then restarts).
  BackoffOptions WithDefaultStoppingStrategy() const;
  // Gives up (the supervisor stops) after this many restarts; -1: never.
  BackoffOptions WithMaxNrOfRetries(int max_nr_of_retries) const;
  // While no child runs, messages get this reply instead of going to dead
  // letters.
  BackoffOptions WithReplyWhileStopped(actor::AnyMessage reply) const;
  template <typename T>
  BackoffOptions WithReplyWhileStopped(T reply) const {
    return WithReplyWhileStopped(actor::AnyMessage::Of(std::move(reply)));
  }
  // A message for which `is_final` holds is passed to the child, and when
  // the child then stops, the supervisor stops too instead of restarting it.
  BackoffOptions WithFinalStopMessage(
      std::function<bool(const actor::AnyMessage&)> is_final) const;
  // The source of the jitter, a draw from [0, 1) (a seam for tests).
  // Default: a thread-local random generator.
  BackoffOptions WithRandomSource(std::function<double()> uniform01) const;

  // OK, or InvalidArgument naming the argument that is wrong: min_backoff
  // must be > 0, max_backoff >= min_backoff, 0 <= random_factor <= 1, the
  // child name a valid actor name.
  absl::Status Validate() const;

  Mode mode() const { return mode_; }
  const actor::Props& child_props() const { return child_props_; }
  const std::string& child_name() const { return child_name_; }
  absl::Duration min_backoff() const { return min_backoff_; }
  absl::Duration max_backoff() const { return max_backoff_; }
  double random_factor() const { return random_factor_; }
  // nullopt: manual reset.
  std::optional<absl::Duration> auto_reset() const { return auto_reset_; }
  int max_nr_of_retries() const { return max_nr_of_retries_; }
  const std::optional<actor::AnyMessage>& reply_while_stopped() const {
    return reply_while_stopped_;
  }
  const std::function<bool(const actor::AnyMessage&)>& final_stop_message()
      const {
    return final_stop_message_;
  }
  std::unique_ptr<actor::SupervisorStrategy> MakeStrategy() const;
  double NextRandom() const;

 private:
  friend class Backoff;
  BackoffOptions(Mode mode, actor::Props child_props, std::string child_name,
                 absl::Duration min_backoff, absl::Duration max_backoff,
                 double random_factor)
      : mode_(mode),
        child_props_(std::move(child_props)),
        child_name_(std::move(child_name)),
        min_backoff_(min_backoff),
        max_backoff_(max_backoff),
        random_factor_(random_factor),
        auto_reset_(min_backoff) {}

  Mode mode_;
  actor::Props child_props_;
  std::string child_name_;
  absl::Duration min_backoff_;
  absl::Duration max_backoff_;
  double random_factor_;
  std::optional<absl::Duration> auto_reset_;
  StrategyFactory strategy_;
  int max_nr_of_retries_ = -1;
  std::optional<actor::AnyMessage> reply_while_stopped_;
  std::function<bool(const actor::AnyMessage&)> final_stop_message_;
  std::function<double()> random_;
};

// Akka's Backoff builders.
class Backoff {
 public:
  // Starts the child again, after a growing delay, whenever it stops
  // (for any reason: a failure its strategy stopped it for, or stopping
  // itself). The answer to a store that is down: a persistent actor stops
  // on persist failure and comes back when the delay has passed.
  static BackoffOptions OnStop(actor::Props child_props, std::string child_name,
                               absl::Duration min_backoff,
                               absl::Duration max_backoff,
                               double random_factor);
  // Starts the child again, after a growing delay, when it fails and the
  // strategy says Restart; a child that stops by itself stops the
  // supervisor too.
  static BackoffOptions OnFailure(actor::Props child_props,
                                  std::string child_name,
                                  absl::Duration min_backoff,
                                  absl::Duration max_backoff,
                                  double random_factor);
};

}  // namespace cairn::backoff

#endif  // CAIRN_BACKOFF_BACKOFF_OPTIONS_H_
