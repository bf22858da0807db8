#include "persistence/rocksdb/testing/plugins_under_test.h"

#include <string>
#include <utility>

#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"

namespace cairn::persistence::testing {

PluginUnderTest RocksDbPlugins() {
  PluginUnderTest plugins{
      "RocksDb", kRocksDbJournalPluginId, kRocksDbSnapshotStorePluginId,
      /*persistent=*/true,
      [](PluginRegistry& registry, const std::string& dir) {
        RocksDbOptions options;
        options.path = dir + "/store";
        return RegisterRocksDbPlugins(registry, std::move(options));
      }};
  plugins.durable_state_plugin_id = kRocksDbDurableStateStorePluginId;
  return plugins;
}

}  // namespace cairn::persistence::testing
