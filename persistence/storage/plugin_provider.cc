#include "persistence/storage/plugin_provider.h"

#include <map>

#include "base/mutex.h"

namespace cairn::persistence {
namespace {

struct Providers {
  base::Mutex mu;
  std::map<std::string, PluginProvider> by_name ABSL_GUARDED_BY(mu);
};

// Constructed on first use: static initializers of other files call Add
// in an order nobody chooses.
Providers& Instance() {
  static Providers* providers = new Providers();
  return *providers;
}

}  // namespace

bool PluginProviders::Add(std::string name, PluginProvider provider) {
  Providers& providers = Instance();
  base::MutexLock lock(&providers.mu);
  providers.by_name.try_emplace(std::move(name), std::move(provider));
  return true;
}

std::vector<std::pair<std::string, PluginProvider>> PluginProviders::All() {
  Providers& providers = Instance();
  base::MutexLock lock(&providers.mu);
  return {providers.by_name.begin(), providers.by_name.end()};
}

}  // namespace cairn::persistence
