// The plugin conformance suites (persistence/testing/tck.h) on every plugin
// cairn ships.
#include "persistence/testing/tck.h"

#include "persistence/testing/plugins_under_test.h"

namespace cairn::persistence::testing {

CAIRN_INSTANTIATE_PERSISTENCE_TCK(Plugin, InMemoryPlugins(), RocksDbPlugins());

}  // namespace cairn::persistence::testing
