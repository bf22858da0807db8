#include "persistence/postgresql/postgres_config.h"

#include <string>

#include "base/string_view.h"

namespace cairn::persistence {
namespace {

absl::Status NotNegative(const std::string& key, absl::Duration value) {
  if (value >= absl::ZeroDuration()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      base::StrCat(key, ": must not be negative"));
}

}  // namespace

absl::StatusOr<PostgresOptions> PostgresOptionsFromConfig(
    const hocon::Config& config, std::string_view block) {
  const std::string prefix = base::StrCat(block, ".");
  PostgresOptions options;
  auto text = [&](const char* key, std::string& out) {
    absl::StatusOr<std::string> value = config.GetString(prefix + key);
    if (value.ok()) out = *std::move(value);
    return value.status();
  };
  auto duration = [&](const char* key, absl::Duration& out) {
    absl::StatusOr<absl::Duration> value = config.GetDuration(prefix + key);
    if (!value.ok()) return value.status();
    out = *value;
    return NotNegative(prefix + key, out);
  };
  absl::Status s = text("connection-string", options.connection_string);
  if (s.ok()) s = text("password-env", options.password_env);
  if (s.ok()) s = text("password-file", options.password_file);
  if (s.ok()) s = text("schema", options.schema);
  if (s.ok()) {
    absl::StatusOr<int> readers = config.GetInt(prefix + "reader-connections");
    s = readers.status();
    if (s.ok()) options.reader_connections = *readers;
    if (s.ok() && options.reader_connections < 1) {
      s = absl::InvalidArgumentError(
          base::StrCat(prefix, "reader-connections: must be at least 1, not ",
                       options.reader_connections));
    }
  }
  if (s.ok()) s = duration("connect-timeout", options.connect_timeout);
  if (s.ok()) s = duration("call-timeout", options.call_timeout);
  if (s.ok()) {
    s = duration("reconnect-min-backoff", options.reconnect_min_backoff);
  }
  if (s.ok()) {
    s = duration("reconnect-max-backoff", options.reconnect_max_backoff);
  }
  if (s.ok()) s = duration("refresh-interval", options.refresh_interval);
  if (s.ok()) {
    absl::StatusOr<bool> notify = config.GetBool(prefix + "live-notify");
    s = notify.status();
    if (s.ok()) options.live_notify = *notify;
  }
  if (s.ok() && options.reconnect_min_backoff > options.reconnect_max_backoff) {
    s = absl::InvalidArgumentError(base::StrCat(
        prefix,
        "reconnect-min-backoff: must not be above reconnect-max-backoff"));
  }
  if (!s.ok()) return s;
  return options;
}

}  // namespace cairn::persistence
