#ifndef CAIRN_EXAMPLES_PLUGIN_EXAMPLE_PLUGIN_H_
#define CAIRN_EXAMPLES_PLUGIN_EXAMPLE_PLUGIN_H_

// The example plugin's public face (docs/WRITING_A_PLUGIN.md): its plugin
// ids, its settings read from its config block, and its provider. A
// program selects it with
//
//   akka.persistence.journal.plugin = "example.persistence.journal"
//   akka.persistence.snapshot-store.plugin =
//       "example.persistence.snapshot-store"
//
// and links //examples/plugin:registration.

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "examples/plugin/example_journal.h"
#include "hocon/config.h"
#include "persistence/storage/plugin_provider.h"
#include "persistence/storage/plugin_registry.h"

namespace cairn::examples::plugin {

// The plugin ids: the paths of the plugins' config blocks (reference.conf).
inline constexpr char kExampleJournalPluginId[] = "example.persistence.journal";
inline constexpr char kExampleSnapshotStorePluginId[] =
    "example.persistence.snapshot-store";

// The journal's settings from its block in `config` (which has the
// reference.conf of this package merged in). Not OK, naming the key, for
// a value of the wrong type or out of range (InvalidArgument) or a config
// without the reference.conf (NotFound).
absl::StatusOr<ExampleJournalSettings> ExampleJournalSettingsFromConfig(
    const hocon::Config& config);

// The provider (persistence/storage/plugin_provider.h): reads the
// settings from `setup.config` and registers both plugin ids on
// `registry`. Each journal or snapshot store made from them starts empty.
// Linking :registration adds it to every actor system; a test may call it
// itself.
absl::Status RegisterExamplePlugins(persistence::PluginRegistry& registry,
                                    const persistence::PluginSetup& setup);

}  // namespace cairn::examples::plugin

#endif  // CAIRN_EXAMPLES_PLUGIN_EXAMPLE_PLUGIN_H_
