// Links the RocksDB plugins into every actor system's persistence
// (plugin_provider.h): their ids, configured from
// akka.persistence.journal.rocksdb.

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/rocksdb/rocksdb_config.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/plugin_provider.h"

namespace cairn::persistence {
namespace {

absl::Status RegisterFromConfig(PluginRegistry& registry,
                                const PluginSetup& setup) {
  absl::StatusOr<RocksDbOptions> options =
      RocksDbOptionsFromConfig(setup.config, kRocksDbJournalPluginId);
  if (!options.ok()) return options.status();
  // RocksDB's warnings and errors (a full disk, a failed write) go to the
  // system's log, naming the database.
  options->log = [log = setup.log, path = options->path](
                     RocksDbLogLevel level, std::string_view message) {
    const std::string line = path + ": " + std::string(message);
    log(level == RocksDbLogLevel::kWarning ? PluginLogLevel::kWarning
                                           : PluginLogLevel::kError,
        "persistence.rocksdb", line);
  };
  return RegisterRocksDbPlugins(registry, *std::move(options));
}

[[maybe_unused]] const bool kRegistered =
    PluginProviders::Add("persistence/rocksdb", RegisterFromConfig);

}  // namespace
}  // namespace cairn::persistence
