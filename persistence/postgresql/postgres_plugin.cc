#include "persistence/postgresql/postgres_plugin.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/postgresql/internal/postgres_durable_state_store.h"
#include "persistence/postgresql/internal/postgres_journal.h"
#include "persistence/postgresql/internal/postgres_schema.h"
#include "persistence/postgresql/internal/postgres_settings.h"
#include "persistence/postgresql/internal/postgres_snapshot_store.h"

namespace cairn::persistence {

using postgres_internal::PgBackoffFrom;
using postgres_internal::PgConnectionSettings;
using postgres_internal::PgSettingsFrom;

absl::Status RegisterPostgresPlugins(PluginRegistry& registry,
                                     PostgresOptions options) {
  auto shared = std::make_shared<const PostgresOptions>(std::move(options));
  absl::Status journal = registry.RegisterJournal(
      kPostgresJournalPluginId,
      [shared](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<Journal>> {
        absl::StatusOr<PgConnectionSettings> connection =
            PgSettingsFrom(*shared);
        if (!connection.ok()) return connection.status();
        postgres_internal::PgJournalSettings settings;
        settings.connection = *std::move(connection);
        settings.backoff = PgBackoffFrom(*shared);
        settings.reader_connections = shared->reader_connections;
        settings.refresh_interval = shared->refresh_interval;
        settings.live_notify = shared->live_notify;
        absl::StatusOr<std::unique_ptr<postgres_internal::PostgresJournal>>
            made = postgres_internal::PostgresJournal::Open(
                std::move(settings), context.serialization);
        if (!made.ok()) return made.status();
        return std::unique_ptr<Journal>(*std::move(made));
      });
  if (!journal.ok()) return journal;
  absl::Status snapshots = registry.RegisterSnapshotStore(
      kPostgresSnapshotStorePluginId,
      [shared](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
        absl::StatusOr<PgConnectionSettings> connection =
            PgSettingsFrom(*shared);
        if (!connection.ok()) return connection.status();
        absl::StatusOr<
            std::unique_ptr<postgres_internal::PostgresSnapshotStore>>
            made = postgres_internal::PostgresSnapshotStore::Open(
                *std::move(connection), PgBackoffFrom(*shared),
                context.serialization);
        if (!made.ok()) return made.status();
        return std::unique_ptr<SnapshotStore>(*std::move(made));
      });
  if (!snapshots.ok()) return snapshots;
  return registry.RegisterDurableStateStore(
      kPostgresDurableStateStorePluginId,
      [shared](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<DurableStateStore>> {
        absl::StatusOr<PgConnectionSettings> connection =
            PgSettingsFrom(*shared);
        if (!connection.ok()) return connection.status();
        absl::StatusOr<
            std::unique_ptr<postgres_internal::PostgresDurableStateStore>>
            made = postgres_internal::PostgresDurableStateStore::Open(
                *std::move(connection), PgBackoffFrom(*shared),
                context.serialization);
        if (!made.ok()) return made.status();
        return std::unique_ptr<DurableStateStore>(*std::move(made));
      });
}

}  // namespace cairn::persistence
