// The plugin conformance suites (persistence/storage/testing/tck.h) on the
// in-memory plugins.
#include "persistence/storage/testing/tck.h"

#include "persistence/inmem/testing/plugins_under_test.h"

namespace cairn::persistence::testing {

CAIRN_INSTANTIATE_PERSISTENCE_TCK(Plugin, InMemoryPlugins());

}  // namespace cairn::persistence::testing
