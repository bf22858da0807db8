#include "backoff/backoff_options.h"

#include <cmath>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "actor/actor_path.h"

namespace cairn::backoff {

absl::Duration CalculateDelay(int restart_count, absl::Duration min_backoff,
                              absl::Duration max_backoff, double random_factor,
                              double uniform01) {
  const double jitter = 1.0 + uniform01 * random_factor;
  // 2^n overflows a Duration long before n reaches 63.
  if (restart_count >= 62) return max_backoff * jitter;
  const absl::Duration doubled =
      min_backoff * std::pow(2.0, static_cast<double>(restart_count));
  if (doubled == absl::InfiniteDuration() || doubled > max_backoff) {
    return max_backoff * jitter;
  }
  return doubled * jitter;
}

BackoffOptions Backoff::OnStop(actor::Props child_props, std::string child_name,
                               absl::Duration min_backoff,
                               absl::Duration max_backoff,
                               double random_factor) {
  return BackoffOptions(BackoffOptions::Mode::kOnStop, std::move(child_props),
                        std::move(child_name), min_backoff, max_backoff,
                        random_factor);
}

BackoffOptions Backoff::OnFailure(actor::Props child_props,
                                  std::string child_name,
                                  absl::Duration min_backoff,
                                  absl::Duration max_backoff,
                                  double random_factor) {
  return BackoffOptions(BackoffOptions::Mode::kOnFailure,
                        std::move(child_props), std::move(child_name),
                        min_backoff, max_backoff, random_factor);
}

BackoffOptions BackoffOptions::WithAutoReset(absl::Duration reset_after) const {
  BackoffOptions o = *this;
  o.auto_reset_ = reset_after;
  return o;
}

BackoffOptions BackoffOptions::WithManualReset() const {
  BackoffOptions o = *this;
  o.auto_reset_.reset();
  return o;
}

BackoffOptions BackoffOptions::WithStrategyFactory(
    StrategyFactory factory) const {
  BackoffOptions o = *this;
  o.strategy_ = std::move(factory);
  return o;
}

BackoffOptions BackoffOptions::WithDefaultStoppingStrategy() const {
  return WithStrategyFactory(
      [] { return actor::SupervisorStrategy::StoppingStrategy(); });
}

BackoffOptions BackoffOptions::WithMaxNrOfRetries(int max_nr_of_retries) const {
  BackoffOptions o = *this;
  o.max_nr_of_retries_ = max_nr_of_retries;
  return o;
}

BackoffOptions BackoffOptions::WithReplyWhileStopped(
    actor::AnyMessage reply) const {
  BackoffOptions o = *this;
  o.reply_while_stopped_ = std::move(reply);
  return o;
}

BackoffOptions BackoffOptions::WithFinalStopMessage(
    std::function<bool(const actor::AnyMessage&)> is_final) const {
  BackoffOptions o = *this;
  o.final_stop_message_ = std::move(is_final);
  return o;
}

BackoffOptions BackoffOptions::WithRandomSource(
    std::function<double()> uniform01) const {
  BackoffOptions o = *this;
  o.random_ = std::move(uniform01);
  return o;
}

absl::Status BackoffOptions::Validate() const {
  if (min_backoff_ <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "min_backoff must be > 0, is ", absl::FormatDuration(min_backoff_)));
  }
  if (max_backoff_ < min_backoff_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_backoff (", absl::FormatDuration(max_backoff_),
        ") must be >= min_backoff (", absl::FormatDuration(min_backoff_), ")"));
  }
  if (!(random_factor_ >= 0.0 && random_factor_ <= 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "random_factor must be between 0.0 and 1.0, is ", random_factor_));
  }
  if (absl::Status name = actor::ActorPath::ValidateName(child_name_);
      !name.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("child_name: ", name.message()));
  }
  if (auto_reset_.has_value() && *auto_reset_ <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("auto reset must be after a time > 0");
  }
  return absl::OkStatus();
}

std::unique_ptr<actor::SupervisorStrategy> BackoffOptions::MakeStrategy()
    const {
  if (strategy_) {
    if (auto s = strategy_()) return s;
  }
  return actor::SupervisorStrategy::DefaultStrategy();
}

double BackoffOptions::NextRandom() const {
  if (random_) return random_();
  thread_local absl::BitGen gen;
  return absl::Uniform(gen, 0.0, 1.0);
}

}  // namespace cairn::backoff
