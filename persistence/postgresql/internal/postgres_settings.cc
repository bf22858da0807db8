#include "persistence/postgresql/internal/postgres_settings.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

#include "base/string_view.h"
#include "persistence/postgresql/internal/postgres_schema.h"

namespace cairn::persistence::postgres_internal {
namespace {

absl::StatusOr<std::string> Password(const PostgresOptions& options) {
  if (!options.password_env.empty()) {
    const char* value = std::getenv(options.password_env.c_str());
    if (value == nullptr) {
      return absl::FailedPreconditionError(
          base::StrCat("password-env: the environment variable ",
                       options.password_env, " is not set"));
    }
    return std::string(value);
  }
  if (!options.password_file.empty()) {
    std::ifstream file(options.password_file);
    std::string line;
    if (!file || !std::getline(file, line)) {
      return absl::FailedPreconditionError(base::StrCat(
          "password-file: cannot read a line from ", options.password_file));
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  }
  return std::string();
}

}  // namespace

absl::StatusOr<PgConnectionSettings> PgSettingsFrom(
    const PostgresOptions& options) {
  if (options.connection_string.empty()) {
    return absl::FailedPreconditionError(
        "connection-string is not set (e.g. "
        "postgresql://user@host:5432/database)");
  }
  if (absl::Status s = CheckPgSchemaName(options.schema); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::string> password = Password(options);
  if (!password.ok()) return password.status();
  PgConnectionSettings settings;
  settings.conninfo = options.connection_string;
  settings.password = *std::move(password);
  settings.connect_timeout = options.connect_timeout;
  settings.call_timeout = options.call_timeout;
  settings.schema = options.schema;
  // An operator sees which schema's journal a connection serves.
  settings.application_name = base::StrCat("cairn ", options.schema);
  return settings;
}

PgReconnectBackoff PgBackoffFrom(const PostgresOptions& options) {
  return {options.reconnect_min_backoff, options.reconnect_max_backoff};
}

absl::StatusOr<std::unique_ptr<PgConnectionPool>> OpenPgPool(
    const PostgresOptions& options, absl::Span<const PgStatement> statements) {
  absl::StatusOr<PgConnectionSettings> settings = PgSettingsFrom(options);
  if (!settings.ok()) return settings.status();
  absl::StatusOr<std::unique_ptr<PgConnection>> first =
      PgConnection::Connect(*settings);
  if (!first.ok()) return first.status();
  if (absl::Status s = EnsurePgSchema(**first, settings->schema); !s.ok()) {
    return s;
  }
  return std::make_unique<PgConnectionPool>(
      *std::move(settings),
      [statements](PgConnection& c) { return PrepareAll(c, statements); },
      PgBackoffFrom(options));
}

}  // namespace cairn::persistence::postgres_internal
