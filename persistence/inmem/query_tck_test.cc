// The query conformance suites (persistence/storage/testing/query_tck.h) on
// the in-memory journal.
#include "persistence/storage/testing/query_tck.h"

#include "persistence/inmem/testing/plugins_under_test.h"

namespace cairn::persistence::testing {

CAIRN_INSTANTIATE_QUERY_TCK(Plugin, InMemoryPlugins());

}  // namespace cairn::persistence::testing
