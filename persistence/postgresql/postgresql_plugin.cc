#include "persistence/postgresql/postgresql_plugin.h"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/pg_connection.h"
#include "persistence/postgresql/internal/pg_schema.h"
#include "persistence/postgresql/internal/postgres_journal.h"
#include "persistence/postgresql/internal/postgres_snapshot_store.h"

namespace cairn::persistence {
namespace {

using internal::PgConnectionSettings;
using internal::PgReconnectBackoff;

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

absl::StatusOr<PgConnectionSettings> ConnectionSettings(
    const PostgresOptions& options) {
  if (options.connection_string.empty()) {
    return absl::FailedPreconditionError(
        "connection-string is not set (e.g. "
        "postgresql://user@host:5432/database)");
  }
  if (absl::Status s = internal::CheckPgSchemaName(options.schema); !s.ok()) {
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

PgReconnectBackoff Backoff(const PostgresOptions& options) {
  return {options.reconnect_min_backoff, options.reconnect_max_backoff};
}

}  // namespace

absl::Status RegisterPostgresPlugins(PluginRegistry& registry,
                                     PostgresOptions options) {
  auto shared = std::make_shared<const PostgresOptions>(std::move(options));
  absl::Status journal = registry.RegisterJournal(
      kPostgresJournalPluginId,
      [shared](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<Journal>> {
        absl::StatusOr<PgConnectionSettings> connection =
            ConnectionSettings(*shared);
        if (!connection.ok()) return connection.status();
        internal::PgJournalSettings settings;
        settings.connection = *std::move(connection);
        settings.backoff = Backoff(*shared);
        settings.reader_connections = shared->reader_connections;
        absl::StatusOr<std::unique_ptr<internal::PostgresJournal>> made =
            internal::PostgresJournal::Open(std::move(settings),
                                            context.serialization);
        if (!made.ok()) return made.status();
        return std::unique_ptr<Journal>(*std::move(made));
      });
  if (!journal.ok()) return journal;
  return registry.RegisterSnapshotStore(
      kPostgresSnapshotStorePluginId,
      [shared](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
        absl::StatusOr<PgConnectionSettings> connection =
            ConnectionSettings(*shared);
        if (!connection.ok()) return connection.status();
        absl::StatusOr<std::unique_ptr<internal::PostgresSnapshotStore>> made =
            internal::PostgresSnapshotStore::Open(*std::move(connection),
                                                  Backoff(*shared),
                                                  context.serialization);
        if (!made.ok()) return made.status();
        return std::unique_ptr<SnapshotStore>(*std::move(made));
      });
}

}  // namespace cairn::persistence
