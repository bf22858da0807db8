// libpq's messages become one line; a connection left inside an open
// transaction (its process paused or cut off between statements) is ended by
// the server after the call timeout, so the locks it holds (the schema's
// ordering lock, a lease row FOR SHARE) cannot stop the writes of every other
// process for longer.
#include "persistence/postgresql/internal/postgres_connection.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/testing/test_database.h"

namespace cairn::persistence::postgres_internal {
namespace {

using testing::TestDatabase;

TEST(PgOneLineTest, EveryRunOfWhitespaceBecomesOneSpace) {
  EXPECT_EQ(PgOneLine("connection to server at \"localhost\" (::1), port 1 "
                      "failed: Connection refused\n\tIs the server running "
                      "on that host?\n"),
            "connection to server at \"localhost\" (::1), port 1 failed: "
            "Connection refused Is the server running on that host?");
  EXPECT_EQ(PgOneLine("ERROR:  lease 'x' expired\r\nCONTEXT:  PL/pgSQL\n"),
            "ERROR: lease 'x' expired CONTEXT: PL/pgSQL");
  EXPECT_EQ(PgOneLine(" \n\t "), "");
  EXPECT_EQ(PgOneLine("one line"), "one line");
}

// Nothing listens on port 1: libpq's reason, two lines with a tab, comes
// out as one.
TEST(PgConnectionTest, AFailedConnectionIsReportedOnOneLine) {
  PgConnectionSettings settings;
  settings.conninfo = "postgresql://cairn@127.0.0.1:1/cairn";
  absl::StatusOr<std::unique_ptr<PgConnection>> connection =
      PgConnection::Connect(settings);
  ASSERT_FALSE(connection.ok());
  const std::string message(connection.status().message());
  EXPECT_EQ(message.find_first_of("\n\t\r"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot connect: "), std::string::npos) << message;
}

TEST(PgConnectionTest, ATransactionLeftOpenIsEndedAfterTheCallTimeout) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  PgConnectionSettings settings;
  settings.conninfo = db.url();
  settings.schema = db.schema();
  settings.call_timeout = absl::Milliseconds(300);
  settings.application_name = absl::StrCat("cairn idle ", db.schema());
  absl::StatusOr<std::unique_ptr<PgConnection>> connection =
      PgConnection::Connect(settings);
  ASSERT_OK(connection);
  ASSERT_OK((*connection)->ExecuteScript("BEGIN"));
  ASSERT_OK((*connection)->Execute("SELECT pg_advisory_xact_lock(20261125)"));

  // The client goes quiet; the server ends the session, and its lock goes.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (true) {
    absl::StatusOr<std::vector<std::vector<std::string>>> left =
        db.Query(absl::StrCat("SELECT count(*) FROM pg_stat_activity WHERE "
                              "application_name = '",
                              settings.application_name, "'"));
    ASSERT_OK(left);
    if ((*left)[0][0] == "0") break;
    ASSERT_LT(absl::Now(), deadline) << "the idle transaction is still open";
    absl::SleepFor(absl::Milliseconds(10));
  }
  absl::StatusOr<std::vector<std::vector<std::string>>> locked =
      db.Query("SELECT pg_try_advisory_xact_lock(20261125)");
  ASSERT_OK(locked);
  EXPECT_EQ((*locked)[0][0], "t");
  absl::StatusOr<PgResult> after = (*connection)->Execute("SELECT 1");
  EXPECT_EQ(after.status().code(), absl::StatusCode::kUnavailable)
      << after.status();
  EXPECT_TRUE((*connection)->broken());
}

}  // namespace
}  // namespace cairn::persistence::postgres_internal
