#include "persistence/postgresql/testing/test_database.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cairn::persistence::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Rows = std::vector<std::vector<std::string>>;

// Nothing listens on port 1 (only root may, and nothing does).
constexpr char kNoServer[] = "postgresql://postgres@127.0.0.1:1/postgres";

// --- Skip or fail: no server needed ----------------------------------------

TEST(MakeTestDatabase, SkipsWithoutUrl) {
  internal::TestDatabaseOrReason result =
      internal::MakeTestDatabase(nullptr, nullptr);
  EXPECT_FALSE(result.database.has_value());
  EXPECT_TRUE(result.skip);
  EXPECT_EQ(result.reason,
            "PostgreSQL tests skipped: CAIRN_TEST_POSTGRES_URL is not set "
            "(start a server with tools/postgres_test_server.sh start and "
            "pass --test_env=CAIRN_TEST_POSTGRES_URL=...)");
  EXPECT_TRUE(internal::MakeTestDatabase("", "0").skip) << "empty is unset";
}

TEST(MakeTestDatabase, FailsWithoutUrlWhenRequired) {
  internal::TestDatabaseOrReason result =
      internal::MakeTestDatabase(nullptr, "1");
  EXPECT_FALSE(result.database.has_value());
  EXPECT_FALSE(result.skip);
  EXPECT_THAT(result.reason,
              StartsWith("CAIRN_TEST_POSTGRES_REQUIRED=1 but "
                         "CAIRN_TEST_POSTGRES_URL is not set (start a server "
                         "with tools/postgres_test_server.sh start"));
}

TEST(MakeTestDatabase, SkipsWithoutServer) {
  internal::TestDatabaseOrReason result =
      internal::MakeTestDatabase(kNoServer, nullptr);
  EXPECT_FALSE(result.database.has_value());
  EXPECT_TRUE(result.skip);
  EXPECT_THAT(result.reason,
              StartsWith(std::string("PostgreSQL tests skipped: no PostgreSQL "
                                     "server at CAIRN_TEST_POSTGRES_URL=") +
                         kNoServer + ": cannot connect to " + kNoServer));
  EXPECT_THAT(result.reason, HasSubstr("port 1 failed"));  // libpq's words
}

TEST(MakeTestDatabase, FailsWithoutServerWhenRequired) {
  internal::TestDatabaseOrReason result =
      internal::MakeTestDatabase(kNoServer, "1");
  EXPECT_FALSE(result.database.has_value());
  EXPECT_FALSE(result.skip);
  EXPECT_THAT(result.reason,
              StartsWith(std::string("CAIRN_TEST_POSTGRES_REQUIRED=1 but no "
                                     "PostgreSQL server at "
                                     "CAIRN_TEST_POSTGRES_URL=") +
                         kNoServer));
}

TEST(MakeTestDatabase, FailsOnMalformedUrlOrRequired) {
  internal::TestDatabaseOrReason result =
      internal::MakeTestDatabase("postgresql://[", nullptr);
  EXPECT_FALSE(result.skip) << "a malformed URL is a mistake, not no server";
  EXPECT_THAT(result.reason, HasSubstr("not a PostgreSQL connection string: "
                                       "\"postgresql://[\""));

  result = internal::MakeTestDatabase(kNoServer, "yes");
  EXPECT_FALSE(result.skip);
  EXPECT_EQ(result.reason,
            "CAIRN_TEST_POSTGRES_REQUIRED must be 0 or 1, not \"yes\"");
}

// --- With a server (skip without one) --------------------------------------

bool SchemaExists(TestDatabase& db, const std::string& schema) {
  absl::StatusOr<Rows> rows = db.Query(
      "SELECT count(*) FROM pg_namespace WHERE nspname = '" + schema + "'");
  EXPECT_OK(rows);
  return rows.ok() && *rows == Rows{{"1"}};
}

TEST(TestDatabase, IsAFreshSchemaOfItsOwn) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(first);
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(second);
  EXPECT_EQ(first.url(), std::getenv("CAIRN_TEST_POSTGRES_URL"));
  EXPECT_THAT(first.schema(), StartsWith("cairn_test_"));
  EXPECT_NE(first.schema(), second.schema());
  EXPECT_TRUE(SchemaExists(first, first.schema()));
  EXPECT_TRUE(SchemaExists(first, second.schema()));

  ASSERT_OK(first.Execute("CREATE TABLE events (id int)"));
  ASSERT_OK(first.Execute("INSERT INTO events VALUES (7)"));
  absl::StatusOr<Rows> rows = first.Query("SELECT id FROM events");
  ASSERT_OK(rows);
  EXPECT_EQ(*rows, Rows{{"7"}});

  // The table is in the first schema only; the second does not see it.
  rows = second.Query(
      "SELECT table_schema FROM information_schema.tables "
      "WHERE table_name = 'events' AND table_schema IN ('" +
      first.schema() + "', '" + second.schema() + "')");
  ASSERT_OK(rows);
  EXPECT_EQ(*rows, Rows{{first.schema()}});
  rows = second.Query("SELECT id FROM events");
  EXPECT_TRUE(absl::IsInvalidArgument(rows.status())) << rows.status();
  EXPECT_THAT(rows.status().message(),
              HasSubstr("relation \"events\" does not exist (SQLSTATE 42P01)"));
}

TEST(TestDatabase, DestructorDropsTheSchemaWithItsTables) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(observer);
  std::string schema;
  {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    schema = db.schema();
    ASSERT_OK(db.Execute("CREATE TABLE events (id int PRIMARY KEY)"));
    ASSERT_TRUE(SchemaExists(observer, schema));
  }
  EXPECT_FALSE(SchemaExists(observer, schema));
}

TEST(TestDatabase, MoveAssignmentDropsTheOverwrittenSchema) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(observer);
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(kept);
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(overwritten);
  std::string kept_schema = kept.schema();
  std::string overwritten_schema = overwritten.schema();
  overwritten = std::move(kept);
  EXPECT_EQ(overwritten.schema(), kept_schema);
  EXPECT_TRUE(SchemaExists(observer, kept_schema));
  EXPECT_FALSE(SchemaExists(observer, overwritten_schema));
}

TEST(TestDatabase, QueryReturnsTextForms) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  absl::StatusOr<Rows> rows = db.Query(
      "SELECT 1, NULL::text, 'it''s', '\\x00ff'::bytea UNION ALL "
      "SELECT 2, '', 'ü', ''::bytea ORDER BY 1");
  ASSERT_OK(rows);
  EXPECT_EQ(*rows, (Rows{{"1", "", "it's", "\\x00ff"}, {"2", "", "ü", "\\x"}}));
  rows = db.Query("CREATE TABLE t (x int)");
  ASSERT_OK(rows);
  EXPECT_TRUE(rows->empty());
}

TEST(TestDatabase, ErrorsCarryPostgresMessage) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  absl::Status status = db.Execute("SELEC 1");
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr("running \"SELEC 1\": syntax error "
                                          "at or near \"SELEC\" (SQLSTATE "
                                          "42601)"));
  ASSERT_OK(db.Execute(
      "CREATE TABLE t (x int PRIMARY KEY); INSERT INTO t VALUES (1)"));
  status = db.Execute("INSERT INTO t VALUES (1)");
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr("(SQLSTATE 23505)"));
}

// A test that terminates backends (to test a plugin's reconnects) may end the
// TestDatabase's own connection too: its next call reconnects, to its schema.
TEST(TestDatabase, ReconnectsToItsSchemaAfterItsConnectionIsTerminated) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  absl::Status status =
      db.Execute("SELECT pg_terminate_backend(pg_backend_pid())");
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  absl::StatusOr<Rows> rows = db.Query("SELECT current_schema()");
  ASSERT_OK(rows);
  EXPECT_EQ(*rows, Rows{{db.schema()}});
}

// The documented way to have one in a fixture.
class TestDatabaseInFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
  }

  std::optional<TestDatabase> db_;
};

TEST_F(TestDatabaseInFixture, SetUpGivesTheTestADatabase) {
  ASSERT_TRUE(db_.has_value());
  EXPECT_TRUE(SchemaExists(*db_, db_->schema()));
}

}  // namespace
}  // namespace cairn::persistence::testing
