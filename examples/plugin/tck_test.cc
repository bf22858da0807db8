// The plugin conformance suites (persistence/storage/testing/tck.h) on the
// example plugin: Akka's JournalSpec and SnapshotStoreSpec and the
// threading contract of journal.h and snapshot_store.h. The plugins are
// registered through their provider, with the defaults of this package's
// reference.conf, as an actor system registers them.

#include "persistence/storage/testing/tck.h"

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "examples/plugin/example_plugin.h"
#include "hocon/config.h"
#include "persistence/storage/plugin_provider.h"
#include "persistence/storage/testing/plugin_under_test.h"

namespace cairn::persistence::testing {
namespace {

PluginUnderTest ExamplePlugins() {
  return {"Example", examples::plugin::kExampleJournalPluginId,
          examples::plugin::kExampleSnapshotStorePluginId,
          // Each journal made starts empty: nothing outlives it.
          /*persistent=*/false,
          [](PluginRegistry& registry, const std::string& /*dir*/) {
            absl::StatusOr<hocon::Config> config = hocon::Config::Load();
            if (!config.ok()) return config.status();
            const PluginSetup setup{
                *config,
                [](PluginLogLevel, std::string_view, std::string_view) {}};
            return examples::plugin::RegisterExamplePlugins(registry, setup);
          }};
}

}  // namespace

CAIRN_INSTANTIATE_PERSISTENCE_TCK(Plugin, ExamplePlugins());

}  // namespace cairn::persistence::testing
