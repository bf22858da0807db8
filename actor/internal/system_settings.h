#ifndef CAIRN_ACTOR_INTERNAL_SYSTEM_SETTINGS_H_
#define CAIRN_ACTOR_INTERNAL_SYSTEM_SETTINGS_H_

#include "absl/status/statusor.h"
#include "actor/logging.h"
#include "hocon/config.h"

namespace cairn::actor::internal {

// The `akka.*` settings the runtime reads once, at system start.
struct SystemSettings {
  LogLevel loglevel = LogLevel::kInfo;
  // How many dead letters to log; -1: all.
  int log_dead_letters = 10;
  bool log_dead_letters_during_shutdown = false;
  bool debug_unhandled = false;
  bool debug_lifecycle = false;
  bool debug_router_misconfiguration = false;
  // /user's strategy: true = stopping, false = default.
  bool guardian_stopping = false;

  // Reads them from a resolved config that includes reference.conf. Errors
  // name the key.
  static absl::StatusOr<SystemSettings> From(const hocon::Config& config);
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_SYSTEM_SETTINGS_H_
