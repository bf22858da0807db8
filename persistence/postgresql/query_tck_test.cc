// The query conformance suites (persistence/storage/testing/query_tck.h) on
// the PostgreSQL journal's read journal, each test on a fresh schema of the
// server at CAIRN_TEST_POSTGRES_URL (skipped without one).
#include "persistence/storage/testing/query_tck.h"

#include "persistence/postgresql/testing/plugins_under_test.h"

namespace cairn::persistence::testing {

CAIRN_INSTANTIATE_QUERY_TCK(Plugin, PostgresPlugins());

}  // namespace cairn::persistence::testing
