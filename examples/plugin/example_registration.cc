// Links the example plugin into every actor system's persistence
// (persistence/storage/plugin_provider.h): this file's static initializer
// adds the provider before main runs, and each actor system's Persistence
// runs it with the system's settings. The target is alwayslink, so the
// linker keeps this file although nothing refers to it.

#include "examples/plugin/example_plugin.h"
#include "persistence/storage/plugin_provider.h"

namespace cairn::examples::plugin {
namespace {

[[maybe_unused]] const bool kRegistered = persistence::PluginProviders::Add(
    "examples/plugin", RegisterExamplePlugins);

}  // namespace
}  // namespace cairn::examples::plugin
