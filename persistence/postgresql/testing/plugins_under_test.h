#ifndef CAIRN_PERSISTENCE_POSTGRESQL_TESTING_PLUGINS_UNDER_TEST_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_TESTING_PLUGINS_UNDER_TEST_H_

#include "persistence/storage/testing/plugin_under_test.h"

namespace cairn::persistence::testing {

// The PostgreSQL plugins (postgres_plugin.h) on a fresh schema of the
// server at CAIRN_TEST_POSTGRES_URL (a TestDatabase per test, dropped with
// the test's PluginRegistry), for the conformance suites and other tests
// that run against every plugin. Without a server the tests skip, unless
// CAIRN_TEST_POSTGRES_REQUIRED=1 (test_database.h).
PluginUnderTest PostgresPlugins();

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_TESTING_PLUGINS_UNDER_TEST_H_
