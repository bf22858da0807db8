#include "persistence/postgresql/testing/test_database.h"

#include <postgresql/libpq-fe.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "base/string_view.h"

namespace cairn::persistence::testing {
namespace {

using ::cairn::base::StrCat;
using ::cairn::base::Sv;

constexpr char kSkipped[] = "PostgreSQL tests skipped: ";
constexpr char kHowToStart[] =
    "(start a server with tools/postgres_test_server.sh start and pass "
    "--test_env=CAIRN_TEST_POSTGRES_URL=...)";

// libpq's messages end in a newline.
std::string Trimmed(const char* message) {
  if (message == nullptr) return "";
  return std::string(Sv(absl::StripTrailingAsciiWhitespace(message)));
}

// What a test reads in a failure: the statement, shortened.
std::string Shortened(std::string_view sql) {
  constexpr size_t kMax = 200;
  if (sql.size() <= kMax) return std::string(sql);
  return StrCat(sql.substr(0, kMax), "...");
}

absl::Status ErrorOf(PGconn* conn, const PGresult* result,
                     std::string_view sql) {
  std::string where = StrCat("running \"", Shortened(sql), "\"");
  if (PQstatus(conn) == CONNECTION_BAD) {
    return absl::UnavailableError(StrCat(
        where, ": lost the connection: ", Trimmed(PQerrorMessage(conn))));
  }
  const char* sqlstate = result == nullptr
                             ? nullptr
                             : PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const char* primary =
      result == nullptr ? nullptr
                        : PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
  if (sqlstate == nullptr || primary == nullptr) {
    // An error of libpq's own (out of memory, a protocol problem).
    return absl::InternalError(
        StrCat(where, ": ", Trimmed(PQerrorMessage(conn))));
  }
  std::string message =
      StrCat(where, ": ", primary, " (SQLSTATE ", sqlstate, ")");
  std::string_view state_class(sqlstate, 2);
  if (state_class == "42" || state_class == "22") {
    return absl::InvalidArgumentError(message);
  }
  if (state_class == "23") return absl::FailedPreconditionError(message);
  if (state_class == "08" || std::string_view(sqlstate).starts_with("57P")) {
    return absl::UnavailableError(message);
  }
  return absl::InternalError(message);
}

std::string RandomSchemaName() {
  std::random_device device;
  uint64_t bits = (uint64_t{device()} << 32) | device();
  return absl::StrFormat("cairn_test_%016x", bits);
}

}  // namespace

struct TestDatabase::Connection {
  explicit Connection(PGconn* conn) : conn(conn) {}
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() { PQfinish(conn); }

  PGconn* conn;
  // Set once the schema exists; restored after a reconnect.
  std::string search_path;

  absl::StatusOr<std::vector<std::vector<std::string>>> Run(
      std::string_view sql) {
    if (absl::Status status = Reconnected(); !status.ok()) return status;
    return RunOnce(sql);
  }

 private:
  // After the server closed the connection (a test terminating backends),
  // a new one with the same settings and search_path.
  absl::Status Reconnected() {
    if (PQstatus(conn) != CONNECTION_BAD) return absl::OkStatus();
    PQreset(conn);
    if (PQstatus(conn) != CONNECTION_OK) {
      return absl::UnavailableError(
          StrCat("reconnecting: ", Trimmed(PQerrorMessage(conn))));
    }
    if (search_path.empty()) return absl::OkStatus();
    return RunOnce(StrCat("SET search_path TO ", search_path)).status();
  }

  absl::StatusOr<std::vector<std::vector<std::string>>> RunOnce(
      std::string_view sql) {
    std::string text(sql);
    PGresult* result = PQexec(conn, text.c_str());
    ExecStatusType status =
        result == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK &&
        status != PGRES_EMPTY_QUERY) {
      absl::Status error = ErrorOf(conn, result, sql);
      PQclear(result);
      return error;
    }
    std::vector<std::vector<std::string>> rows(PQntuples(result));
    const int columns = PQnfields(result);
    for (int row = 0; row < static_cast<int>(rows.size()); ++row) {
      rows[row].reserve(columns);
      for (int column = 0; column < columns; ++column) {
        rows[row].emplace_back(
            PQgetisnull(result, row, column)
                ? std::string()
                : std::string(PQgetvalue(result, row, column),
                              PQgetlength(result, row, column)));
      }
    }
    PQclear(result);
    return rows;
  }
};

absl::StatusOr<TestDatabase> TestDatabase::Make(std::string url) {
  // A malformed URL is the test setup's mistake, not a missing server.
  char* parse_error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(url.c_str(), &parse_error);
  if (parsed == nullptr) {
    absl::Status error = absl::InvalidArgumentError(
        StrCat("not a PostgreSQL connection string: \"", url,
               "\": ", Trimmed(parse_error)));
    PQfreemem(parse_error);
    return error;
  }
  PQconninfoFree(parsed);

  // Ours first: what the URL sets overrides them.
  const std::string connect_timeout = StrCat(kConnectTimeoutSeconds);
  const std::string options = StrCat("-c statement_timeout=", kStatementTimeout,
                                     " -c lock_timeout=", kLockTimeout,
                                     " -c client_min_messages=warning");
  const char* keywords[] = {"connect_timeout", "options", "application_name",
                            "dbname", nullptr};
  const char* values[] = {connect_timeout.c_str(), options.c_str(),
                          "cairn_test_database", url.c_str(), nullptr};
  auto connection = std::make_unique<Connection>(
      PQconnectdbParams(keywords, values, /*expand_dbname=*/1));
  if (connection->conn == nullptr ||
      PQstatus(connection->conn) != CONNECTION_OK) {
    return absl::UnavailableError(
        StrCat("cannot connect to ", url, ": ",
               connection->conn == nullptr
                   ? "out of memory"
                   : Trimmed(PQerrorMessage(connection->conn))));
  }

  // A random name nobody has; on the rare clash, another.
  absl::Status created;
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::string schema = RandomSchemaName();
    created = connection->Run(StrCat("CREATE SCHEMA ", schema)).status();
    if (created.ok()) {
      absl::Status set =
          connection->Run(StrCat("SET search_path TO ", schema)).status();
      connection->search_path = schema;
      TestDatabase database(std::move(url), std::move(schema),
                            std::move(connection));
      if (!set.ok()) return set;  // the destructor drops the schema
      return database;
    }
    if (!absl::IsInvalidArgument(created) ||
        Sv(created.message()).find("42P06") == std::string_view::npos) {
      break;
    }
  }
  return created;
}

TestDatabase::TestDatabase(std::string url, std::string schema,
                           std::unique_ptr<Connection> connection)
    : url_(std::move(url)),
      schema_(std::move(schema)),
      connection_(std::move(connection)) {}

TestDatabase::TestDatabase(TestDatabase&& other) noexcept
    : url_(std::move(other.url_)),
      schema_(std::move(other.schema_)),
      connection_(std::move(other.connection_)) {}

TestDatabase& TestDatabase::operator=(TestDatabase&& other) noexcept {
  if (this != &other) {
    Drop();
    url_ = std::move(other.url_);
    schema_ = std::move(other.schema_);
    connection_ = std::move(other.connection_);
  }
  return *this;
}

TestDatabase::~TestDatabase() { Drop(); }

void TestDatabase::Drop() {
  if (connection_ == nullptr) return;
  std::string drop = StrCat("DROP SCHEMA IF EXISTS ", schema_, " CASCADE");
  absl::Status dropped = connection_->Run(drop).status();
  // The connection may have died under the drop: once more on a new one.
  if (absl::IsUnavailable(dropped)) dropped = connection_->Run(drop).status();
  if (!dropped.ok()) {
    ADD_FAILURE() << "the test schema " << schema_ << " at " << url_
                  << " is left behind: " << dropped;
  }
  connection_.reset();
}

absl::Status TestDatabase::Execute(std::string_view sql) {
  return connection_->Run(sql).status();
}

absl::StatusOr<std::vector<std::vector<std::string>>> TestDatabase::Query(
    std::string_view sql) {
  return connection_->Run(sql);
}

namespace internal {
namespace {

TestDatabaseOrReason Found(TestDatabase database) {
  TestDatabaseOrReason result;
  result.database.emplace(std::move(database));
  return result;
}

TestDatabaseOrReason Skip(std::string reason) {
  TestDatabaseOrReason result;
  result.skip = true;
  result.reason = std::move(reason);
  return result;
}

TestDatabaseOrReason Fail(std::string reason) {
  TestDatabaseOrReason result;
  result.reason = std::move(reason);
  return result;
}

}  // namespace

TestDatabaseOrReason MakeTestDatabase(const char* url, const char* required) {
  std::string_view required_value = required == nullptr ? "" : required;
  if (required_value != "" && required_value != "0" && required_value != "1") {
    return Fail(StrCat(kTestPostgresRequiredVariable, " must be 0 or 1, not \"",
                       required_value, "\""));
  }
  const bool must_run = required_value == "1";
  const std::string need = StrCat(kTestPostgresRequiredVariable, "=1 but ");

  if (url == nullptr || *url == '\0') {
    if (must_run) {
      return Fail(
          StrCat(need, kTestPostgresUrlVariable, " is not set ", kHowToStart));
    }
    return Skip(StrCat(kSkipped, kTestPostgresUrlVariable, " is not set ",
                       kHowToStart));
  }

  absl::StatusOr<TestDatabase> database = TestDatabase::Make(url);
  if (database.ok()) return Found(*std::move(database));
  if (absl::IsUnavailable(database.status())) {
    std::string no_server =
        StrCat("no PostgreSQL server at ", kTestPostgresUrlVariable, "=", url,
               ": ", Sv(database.status().message()));
    if (must_run) return Fail(need + no_server);
    return Skip(kSkipped + no_server);
  }
  return Fail(StrCat("making a test schema at ", kTestPostgresUrlVariable, "=",
                     url, ": ", database.status().ToString()));
}

TestDatabaseOrReason MakeTestDatabaseFromEnvironment() {
  return MakeTestDatabase(std::getenv(kTestPostgresUrlVariable),
                          std::getenv(kTestPostgresRequiredVariable));
}

}  // namespace internal
}  // namespace cairn::persistence::testing
