#include "persistence/inmem/testing/plugins_under_test.h"

#include "persistence/inmem/in_memory_plugin.h"

namespace cairn::persistence::testing {

PluginUnderTest InMemoryPlugins() {
  PluginUnderTest plugins{
      "InMemory", kInMemoryJournalPluginId, kInMemorySnapshotStorePluginId,
      /*persistent=*/false,
      [](PluginRegistry& registry, const std::string& /*dir*/) {
        return RegisterInMemoryPlugins(registry);
      }};
  plugins.durable_state_plugin_id = kInMemoryDurableStateStorePluginId;
  return plugins;
}

}  // namespace cairn::persistence::testing
