#ifndef CAIRN_PERSISTENCE_STORAGE_PLUGIN_PROVIDER_H_
#define CAIRN_PERSISTENCE_STORAGE_PLUGIN_PROVIDER_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "hocon/config.h"
#include "persistence/storage/plugin_registry.h"

namespace cairn::persistence {

// How a plugin package plugs into every actor system's persistence: Akka
// finds a plugin by the class named in its config block; a C++ program
// links it. Each plugin package has a `:registration` target (alwayslink)
// whose static initializer adds its provider here; an actor system's
// Persistence runs every provider linked into the program, in name order,
// each registering its journals and snapshot stores configured from the
// system's settings. //persistence:default_plugins links the built-in ones
// (RocksDB, PostgreSQL, in-memory); a program that links only the
// in-memory plugin's registration links neither RocksDB nor libpq.
//
// A plugin written by a user registers the same way
// (docs/WRITING_A_PLUGIN.md):
//
//   absl::Status RegisterMyPlugins(PluginRegistry& registry,
//                                  const PluginSetup& setup) {
//     ...read setup.config's "my.journal" block, then
//     return registry.RegisterJournal("my.journal", ...);
//   }
//   const bool kRegistered =
//       PluginProviders::Add("my_company/my_plugin", RegisterMyPlugins);

enum class PluginLogLevel { kInfo, kWarning, kError };

// What a provider is given for one actor system.
struct PluginSetup {
  // The system's settings, every linked reference.conf merged in (so a
  // plugin's own block has its defaults). Valid during the call.
  const hocon::Config& config;
  // The system's log: for what a store reports beside its results (a
  // database's own warnings). Callable from any thread for as long as the
  // stores the provider registers exist.
  std::function<void(PluginLogLevel level, std::string_view source,
                     std::string_view line)>
      log;
};

// Registers a package's plugins in `registry` for the system `setup`
// describes. An error (a bad value in the plugin's block, naming the key)
// fails every journal and snapshot store of that system with it, as a
// config error does in Akka.
using PluginProvider =
    std::function<absl::Status(PluginRegistry&, const PluginSetup&)>;

// The process's providers. Thread safety: Add runs in static initializers
// (one thread, before main); All from any thread after that.
class PluginProviders {
 public:
  // Adds `provider` under `name` (its package path, e.g.
  // "persistence/rocksdb"). Returns true, for a static initializer's
  // constant. A name added twice keeps the first (one package linked
  // twice, through two shared objects).
  static bool Add(std::string name, PluginProvider provider);
  // Every provider, by name.
  static std::vector<std::pair<std::string, PluginProvider>> All();
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_PLUGIN_PROVIDER_H_
