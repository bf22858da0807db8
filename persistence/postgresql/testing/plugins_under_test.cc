#include "persistence/postgresql/testing/plugins_under_test.h"

#include <memory>
#include <string>
#include <utility>

#include "persistence/postgresql/postgres_options.h"
#include "persistence/postgresql/postgres_plugin.h"
#include "persistence/postgresql/testing/test_database.h"

namespace cairn::persistence::testing {
namespace {

// The test's schema and the plugins on it, which the factories registered
// on the test's registry share: the schema is dropped when the registry
// (after every plugin it made) is gone.
struct OnTestDatabase {
  explicit OnTestDatabase(TestDatabase db) : database(std::move(db)) {}
  TestDatabase database;
  PluginRegistry plugins;
};

}  // namespace

PluginUnderTest PostgresPlugins() {
  PluginUnderTest plugin;
  plugin.name = "PostgreSQL";
  plugin.journal_plugin_id = kPostgresJournalPluginId;
  plugin.snapshot_store_plugin_id = kPostgresSnapshotStorePluginId;
  plugin.persistent = true;
  plugin.ids_may_hold_nul = false;  // text columns
  plugin.durable_state_plugin_id = kPostgresDurableStateStorePluginId;
  plugin.skip_reason = []() -> std::string {
    internal::TestDatabaseOrReason made =
        internal::MakeTestDatabaseFromEnvironment();
    return made.database.has_value() || !made.skip ? "" : made.reason;
  };
  plugin.register_plugins = [](PluginRegistry& registry,
                               const std::string& /*dir*/) -> absl::Status {
    internal::TestDatabaseOrReason made =
        internal::MakeTestDatabaseFromEnvironment();
    if (!made.database.has_value()) {
      return absl::FailedPreconditionError(made.reason);
    }
    auto on = std::make_shared<OnTestDatabase>(*std::move(made.database));
    PostgresOptions options;
    options.connection_string = on->database.url();
    options.schema = on->database.schema();
    options.reader_connections = 2;
    if (absl::Status s = RegisterPostgresPlugins(on->plugins, options);
        !s.ok()) {
      return s;
    }
    if (absl::Status s =
            registry.RegisterJournal(kPostgresJournalPluginId,
                                     [on](const PluginContext& context) {
                                       return on->plugins.CreateJournal(
                                           kPostgresJournalPluginId, context);
                                     });
        !s.ok()) {
      return s;
    }
    if (absl::Status s = registry.RegisterSnapshotStore(
            kPostgresSnapshotStorePluginId,
            [on](const PluginContext& context) {
              return on->plugins.CreateSnapshotStore(
                  kPostgresSnapshotStorePluginId, context);
            });
        !s.ok()) {
      return s;
    }
    return registry.RegisterDurableStateStore(
        kPostgresDurableStateStorePluginId, [on](const PluginContext& context) {
          return on->plugins.CreateDurableStateStore(
              kPostgresDurableStateStorePluginId, context);
        });
  };
  return plugin;
}

}  // namespace cairn::persistence::testing
