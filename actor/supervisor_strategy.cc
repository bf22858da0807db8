#include "actor/supervisor_strategy.h"

#include "actor/exceptions.h"

namespace cairn::actor {

const char* DirectiveName(Directive d) {
  switch (d) {
    case Directive::kResume:
      return "Resume";
    case Directive::kRestart:
      return "Restart";
    case Directive::kStop:
      return "Stop";
    case Directive::kEscalate:
      return "Escalate";
  }
  return "?";
}

Directive Decider::operator()(const std::exception_ptr& cause) const {
  if (function_) return function_(cause);
  for (const auto& [matches, directive] : cases_) {
    if (matches(cause)) return directive;
  }
  return otherwise_.value_or(Directive::kEscalate);
}

bool ChildRestartStats::RequestRestartPermission(int max_nr_of_retries,
                                                 absl::Duration within,
                                                 absl::Time now) {
  const bool limited = max_nr_of_retries >= 0;
  const bool windowed = within != absl::InfiniteDuration();
  if (limited && max_nr_of_retries < 1) return false;
  if (!windowed) {
    if (!limited) return true;
    ++restart_count;
    return restart_count <= max_nr_of_retries;
  }
  const int retries = limited ? max_nr_of_retries : 1;
  if (!window_start.has_value()) window_start = now;
  if (now - *window_start <= within) {
    ++restart_count;
    return restart_count <= retries;
  }
  restart_count = 1;
  window_start = now;
  return true;
}

Decider SupervisorStrategy::DefaultDecider() {
  return Decider()
      .On<ActorInitializationException>(Directive::kStop)
      .On<ActorKilledException>(Directive::kStop)
      .On<DeathPactException>(Directive::kStop)
      .Otherwise(Directive::kRestart);
}

std::unique_ptr<SupervisorStrategy> SupervisorStrategy::DefaultStrategy() {
  return std::make_unique<OneForOneStrategy>(DefaultDecider());
}

std::unique_ptr<SupervisorStrategy> SupervisorStrategy::StoppingStrategy() {
  return std::make_unique<OneForOneStrategy>(
      Decider().Otherwise(Directive::kStop));
}

}  // namespace cairn::actor
