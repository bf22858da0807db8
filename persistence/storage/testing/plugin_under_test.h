#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_PLUGIN_UNDER_TEST_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_PLUGIN_UNDER_TEST_H_

#include <functional>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "persistence/storage/plugin_registry.h"

namespace cairn::persistence::testing {

// A journal and snapshot store plugin pair (and, if the plugin has one, its
// durable state store) for the conformance suites
// (tck.h) and other tests that run against every plugin. A test registers
// the pair on a PluginRegistry of its own and creates the plugins by id, as
// the runtime would.
struct PluginUnderTest {
  // For test names: letters, digits and '_' only.
  std::string name;
  std::string journal_plugin_id;
  std::string snapshot_store_plugin_id;
  // True if what was stored outlives the plugin objects: a journal created
  // again on the same registry sees the events of the one before.
  bool persistent = false;
  // Registers both plugins on `registry`. `dir` is a new, empty directory
  // for the test alone; plugins that store on disk store there.
  std::function<absl::Status(PluginRegistry& registry, const std::string& dir)>
      register_plugins;
  // Optional, for a plugin on a server a machine may not have: asked first
  // in every test; a reason (not empty) skips the test with it. Unset: the
  // plugin runs everywhere.
  std::function<std::string()> skip_reason = nullptr;
  // False for a plugin whose store cannot hold a NUL character in a
  // persistence id (PostgreSQL's text): it must refuse such an id
  // (InvalidArgument) rather than store or read another one; the suites
  // check that instead of storing one.
  bool ids_may_hold_nul = true;
  // The durable state store the plugin registers (register_plugins), which
  // DurableStateStoreSpec runs; empty: it has none (the suite is skipped,
  // saying so).
  std::string durable_state_plugin_id = {};
};

// Lets gtest print a parameter by name.
inline void PrintTo(const PluginUnderTest& plugin, std::ostream* out) {
  *out << plugin.name;
}

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_PLUGIN_UNDER_TEST_H_
