// The plugin conformance suites (persistence/storage/testing/tck.h) on the
// PostgreSQL plugins, each test on a fresh schema of the server at
// CAIRN_TEST_POSTGRES_URL (skipped without one).
#include "persistence/storage/testing/tck.h"

#include "persistence/postgresql/testing/plugins_under_test.h"

namespace cairn::persistence::testing {

CAIRN_INSTANTIATE_PERSISTENCE_TCK(Plugin, PostgresPlugins());

}  // namespace cairn::persistence::testing
