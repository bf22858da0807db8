// The query conformance suites (persistence/storage/testing/query_tck.h) on
// the RocksDB journal.
#include "persistence/storage/testing/query_tck.h"

#include "persistence/rocksdb/testing/plugins_under_test.h"

namespace cairn::persistence::testing {

CAIRN_INSTANTIATE_QUERY_TCK(Plugin, RocksDbPlugins());

}  // namespace cairn::persistence::testing
