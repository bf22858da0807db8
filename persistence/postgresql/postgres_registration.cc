// Links the PostgreSQL plugins into every actor system's persistence
// (plugin_provider.h): their ids, configured from
// akka.persistence.journal.postgresql. Nothing connects until a journal
// or snapshot store of them is made.

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/postgresql/postgres_config.h"
#include "persistence/postgresql/postgres_plugin.h"
#include "persistence/storage/plugin_provider.h"

namespace cairn::persistence {
namespace {

absl::Status RegisterFromConfig(PluginRegistry& registry,
                                const PluginSetup& setup) {
  absl::StatusOr<PostgresOptions> options =
      PostgresOptionsFromConfig(setup.config, kPostgresJournalPluginId);
  if (!options.ok()) return options.status();
  return RegisterPostgresPlugins(registry, *std::move(options));
}

[[maybe_unused]] const bool kRegistered =
    PluginProviders::Add("persistence/postgresql", RegisterFromConfig);

}  // namespace
}  // namespace cairn::persistence
