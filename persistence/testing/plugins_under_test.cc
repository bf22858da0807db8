#include "persistence/testing/plugins_under_test.h"

#include "persistence/in_memory_plugin.h"
#include "persistence/rocksdb_options.h"
#include "persistence/rocksdb_plugin.h"

namespace cairn::persistence::testing {

PluginUnderTest InMemoryPlugins() {
  return {"InMemory", kInMemoryJournalPluginId, kInMemorySnapshotStorePluginId,
          /*persistent=*/false,
          [](PluginRegistry& registry, const std::string& /*dir*/) {
            return RegisterInMemoryPlugins(registry);
          }};
}

PluginUnderTest RocksDbPlugins() {
  return {"RocksDb", kRocksDbJournalPluginId, kRocksDbSnapshotStorePluginId,
          /*persistent=*/true,
          [](PluginRegistry& registry, const std::string& dir) {
            RocksDbOptions options;
            options.path = dir + "/store";
            return RegisterRocksDbPlugins(registry, std::move(options));
          }};
}

}  // namespace cairn::persistence::testing
