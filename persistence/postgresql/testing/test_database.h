#ifndef CAIRN_PERSISTENCE_POSTGRESQL_TESTING_TEST_DATABASE_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_TESTING_TEST_DATABASE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace cairn::persistence::testing {

// Where the PostgreSQL tests find their server (docs/POSTGRESQL.md,
// "Testing against PostgreSQL"): a connection string such as
// tools/postgres_test_server.sh prints. Without it the tests skip...
inline constexpr char kTestPostgresUrlVariable[] = "CAIRN_TEST_POSTGRES_URL";
// ...unless this is 1 (CI sets it): then a missing or unreachable server
// fails them.
inline constexpr char kTestPostgresRequiredVariable[] =
    "CAIRN_TEST_POSTGRES_REQUIRED";

// A fresh PostgreSQL schema of its own for one test, on the server at
// CAIRN_TEST_POSTGRES_URL: named cairn_test_<random hex>, created by Make
// and dropped with everything in it (CASCADE) by the destructor, so tests
// running in parallel, and the CI stages (plain, tsan, asan, ubsan), never
// see each other's tables. Execute and Query run SQL on the TestDatabase's
// own connection, whose search_path is the schema: unqualified names are
// the schema's.
//
// In a test body (or a fixture's SetUp), the macro below gives a
// TestDatabase or ends the test:
//
//   TEST(PostgresJournal, Writes) {
//     CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
//     ... open the plugin on db.url(), schema db.schema() ...
//     ASSERT_OK(db.Execute("UPDATE events SET payload = '\\x00'"));
//   }
//
//   void SetUp() override {  // with a std::optional<TestDatabase> db_
//     CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
//     db_.emplace(std::move(db));
//   }
//
// Declare the TestDatabase before what connects to its schema, so that
// closes its connections first (the drop waits for their locks, up to
// kLockTimeout, then fails the test).
//
// A moved-from TestDatabase owns nothing: only destroy or assign to it.
//
// Thread safety: one thread at a time (one libpq connection). Every
// connection attempt gives up after kConnectTimeoutSeconds and every
// statement after kStatementTimeout.
class TestDatabase {
 public:
  static constexpr int kConnectTimeoutSeconds = 10;
  static constexpr std::string_view kStatementTimeout = "60s";
  static constexpr std::string_view kLockTimeout = "30s";

  // Connects to the server at `url` and creates a new schema there.
  // UNAVAILABLE if the server cannot be reached; otherwise an error from
  // PostgreSQL (see Execute).
  [[nodiscard]] static absl::StatusOr<TestDatabase> Make(std::string url);

  TestDatabase(TestDatabase&& other) noexcept;
  TestDatabase& operator=(TestDatabase&& other) noexcept;
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;
  // Drops the schema; a failure to is a test failure (ADD_FAILURE).
  ~TestDatabase();

  // The server's connection string, as given to Make.
  const std::string& url() const { return url_; }
  // The schema's name: a plain identifier, no quoting needed.
  const std::string& schema() const { return schema_; }

  // Runs `sql` (one or more statements, in one implicit transaction).
  // An error carries PostgreSQL's message and SQLSTATE: INVALID_ARGUMENT
  // for SQL that is wrong (syntax, unknown names, bad data: SQLSTATE
  // classes 42 and 22), FAILED_PRECONDITION for a violated constraint (23),
  // UNAVAILABLE when the connection is lost, INTERNAL otherwise.
  absl::Status Execute(std::string_view sql);
  // Runs `sql` and returns the rows of its last statement, every value as
  // PostgreSQL's text form (bytea as \x hex; NULL as an empty string: ask
  // `x IS NULL` to tell them apart). Errors as Execute.
  absl::StatusOr<std::vector<std::vector<std::string>>> Query(
      std::string_view sql);

 private:
  struct Connection;

  TestDatabase(std::string url, std::string schema,
               std::unique_ptr<Connection> connection);
  void Drop();

  std::string url_;
  std::string schema_;
  std::unique_ptr<Connection> connection_;  // null once moved from
};

namespace internal {

// What CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP does: a database, or a reason
// the test ends, as a skip or as a failure.
struct TestDatabaseOrReason {
  std::optional<TestDatabase> database;
  bool skip = false;
  std::string reason;
};

// From the values of CAIRN_TEST_POSTGRES_URL and
// CAIRN_TEST_POSTGRES_REQUIRED (null when unset): skips when there is no
// URL or no server at it, unless required is "1"; fails on any other error.
TestDatabaseOrReason MakeTestDatabase(const char* url, const char* required);
// The same from the environment.
TestDatabaseOrReason MakeTestDatabaseFromEnvironment();

}  // namespace internal
}  // namespace cairn::persistence::testing

// Declares `TestDatabase name` on the server at CAIRN_TEST_POSTGRES_URL, or
// returns from the current function after GTEST_SKIP() (no server) or FAIL()
// (CAIRN_TEST_POSTGRES_REQUIRED=1, or an error other than a missing server).
#define CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(name)                         \
  auto cairn_postgres_##name##_or_reason = ::cairn::persistence::testing:: \
      internal::MakeTestDatabaseFromEnvironment();                         \
  if (!cairn_postgres_##name##_or_reason.database.has_value()) {           \
    if (cairn_postgres_##name##_or_reason.skip) {                          \
      GTEST_SKIP() << cairn_postgres_##name##_or_reason.reason;            \
    }                                                                      \
    FAIL() << cairn_postgres_##name##_or_reason.reason;                    \
  }                                                                        \
  ::cairn::persistence::testing::TestDatabase name =                       \
      *std::move(cairn_postgres_##name##_or_reason.database)

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_TESTING_TEST_DATABASE_H_
