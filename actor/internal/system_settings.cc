#include "actor/internal/system_settings.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace cairn::actor::internal {
namespace {

// Akka accepts on/off or a count for log-dead-letters.
absl::StatusOr<int> DeadLetterCount(const hocon::Config& config) {
  const char* key = "akka.log-dead-letters";
  if (absl::StatusOr<int> n = config.GetInt(key); n.ok()) return *n;
  absl::StatusOr<bool> b = config.GetBool(key);
  if (!b.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, ": expected on, off or a number"));
  }
  return *b ? -1 : 0;
}

}  // namespace

absl::StatusOr<SystemSettings> SystemSettings::From(
    const hocon::Config& config) {
  SystemSettings s;
  absl::StatusOr<std::string> level = config.GetString("akka.loglevel");
  if (!level.ok()) return level.status();
  absl::StatusOr<LogLevel> parsed = ParseLogLevel(*level);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("akka.loglevel: ", parsed.status().message()));
  }
  s.loglevel = *parsed;

  absl::StatusOr<int> dead = DeadLetterCount(config);
  if (!dead.ok()) return dead.status();
  s.log_dead_letters = *dead;

  absl::StatusOr<bool> b =
      config.GetBool("akka.log-dead-letters-during-shutdown");
  if (!b.ok()) return b.status();
  s.log_dead_letters_during_shutdown = *b;
  if (b = config.GetBool("akka.actor.debug.unhandled"); !b.ok()) {
    return b.status();
  }
  s.debug_unhandled = *b;
  if (b = config.GetBool("akka.actor.debug.lifecycle"); !b.ok()) {
    return b.status();
  }
  s.debug_lifecycle = *b;
  if (b = config.GetBool("akka.actor.debug.router-misconfiguration"); !b.ok()) {
    return b.status();
  }
  s.debug_router_misconfiguration = *b;

  absl::StatusOr<std::string> strategy =
      config.GetString("akka.actor.guardian-supervisor-strategy");
  if (!strategy.ok()) return strategy.status();
  std::string lower = absl::AsciiStrToLower(*strategy);
  if (lower == "default" || lower == "akka.actor.defaultsupervisorstrategy") {
    s.guardian_stopping = false;
  } else if (lower == "stopping" ||
             lower == "akka.actor.stoppingsupervisorstrategy") {
    s.guardian_stopping = true;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "akka.actor.guardian-supervisor-strategy: unknown strategy '",
        *strategy, "' (expected \"default\" or \"stopping\")"));
  }
  return s;
}

}  // namespace cairn::actor::internal
