// The plugin conformance suites (persistence/storage/testing/tck.h) on the
// RocksDB plugins.
#include "persistence/storage/testing/tck.h"

#include "persistence/rocksdb/testing/plugins_under_test.h"

namespace cairn::persistence::testing {

CAIRN_INSTANTIATE_PERSISTENCE_TCK(Plugin, RocksDbPlugins());

}  // namespace cairn::persistence::testing
