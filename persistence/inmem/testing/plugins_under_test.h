#ifndef CAIRN_PERSISTENCE_INMEM_TESTING_PLUGINS_UNDER_TEST_H_
#define CAIRN_PERSISTENCE_INMEM_TESTING_PLUGINS_UNDER_TEST_H_

#include "persistence/storage/testing/plugin_under_test.h"

namespace cairn::persistence::testing {

// The in-memory plugins (in_memory_plugin.h), for the conformance suites
// and other tests that run against every plugin.
PluginUnderTest InMemoryPlugins();

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_INMEM_TESTING_PLUGINS_UNDER_TEST_H_
