// Links the in-memory plugins into every actor system's persistence
// (plugin_provider.h). Each system gets stores of its own, empty.

#include "absl/status/status.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/storage/plugin_provider.h"

namespace cairn::persistence {
namespace {

absl::Status RegisterFromConfig(PluginRegistry& registry,
                                const PluginSetup& /*setup*/) {
  return RegisterInMemoryPlugins(registry);
}

[[maybe_unused]] const bool kRegistered =
    PluginProviders::Add("persistence/inmem", RegisterFromConfig);

}  // namespace
}  // namespace cairn::persistence
