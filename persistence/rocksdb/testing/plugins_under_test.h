#ifndef CAIRN_PERSISTENCE_ROCKSDB_TESTING_PLUGINS_UNDER_TEST_H_
#define CAIRN_PERSISTENCE_ROCKSDB_TESTING_PLUGINS_UNDER_TEST_H_

#include "persistence/storage/testing/plugin_under_test.h"

namespace cairn::persistence::testing {

// The RocksDB plugins (rocksdb_plugin.h) with default options on the
// test's directory, for the conformance suites and other tests that run
// against every plugin.
PluginUnderTest RocksDbPlugins();

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_ROCKSDB_TESTING_PLUGINS_UNDER_TEST_H_
