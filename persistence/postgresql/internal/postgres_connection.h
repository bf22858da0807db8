#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_CONNECTION_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

struct pg_conn;
struct pg_result;

namespace cairn::persistence::postgres_internal {

// The parameters of one statement, each sent in the format PostgreSQL
// reads fastest: integers and bytea in binary, text as text. The values
// are copied in, so a PgParams may outlive what it was built from.
class PgParams {
 public:
  PgParams& Text(std::string_view value);
  PgParams& Int64(int64_t value);           // for a bigint parameter
  PgParams& Int32(int32_t value);           // for an integer parameter
  PgParams& Bytes(std::string_view value);  // for a bytea parameter
  // A text[] in PostgreSQL's text form ('{"a","b"}'), for a parameter
  // declared text[] in the statement.
  PgParams& TextArray(const std::vector<std::string>& values);

  // One-dimensional arrays in PostgreSQL's binary form, for parameters
  // declared text[], bigint[], integer[] and bytea[] in the statement (a
  // multi-row insert from unnest(...), one parameter per column). Each
  // element is a view: the caller's strings must outlive nothing (the bytes
  // are copied in).
  PgParams& TextArrayOf(const std::vector<std::string_view>& values);
  PgParams& Int64Array(const std::vector<int64_t>& values);
  PgParams& Int32Array(const std::vector<int32_t>& values);
  PgParams& BytesArray(const std::vector<std::string_view>& values);

  int size() const { return static_cast<int>(values_.size()); }
  // InvalidArgument if a text value holds a NUL character, which
  // PostgreSQL's text cannot hold (libpq would cut the value there): a
  // statement with such parameters is never sent.
  const absl::Status& error() const { return error_; }

 private:
  friend class PgConnection;
  void CheckText(std::string_view value);
  // The binary array header for `count` elements of type `element_oid`.
  std::string& StartArray(uint32_t element_oid, size_t count);

  absl::Status error_;
  std::vector<std::string> values_;
  std::vector<int> formats_;  // 0 text, 1 binary
};

// The result of one statement, owned (PQclear on destruction). Columns are
// read in binary (every statement asks for binary results): the accessors
// say which PostgreSQL type each expects.
class PgResult {
 public:
  explicit PgResult(pg_result* result) : result_(result) {}
  PgResult(PgResult&& other) noexcept;
  PgResult& operator=(PgResult&& other) noexcept;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  ~PgResult();

  int rows() const;
  // The rows an INSERT, UPDATE or DELETE touched.
  int64_t affected() const;
  bool IsNull(int row, int column) const;
  int64_t Int64(int row, int column) const;  // bigint
  int32_t Int32(int row, int column) const;  // integer
  bool Bool(int row, int column) const;      // boolean
  // text, bytea: the raw bytes, valid while the result lives.
  std::string_view Bytes(int row, int column) const;
  // text[]: DataLoss if the array's binary form is malformed.
  absl::StatusOr<std::vector<std::string>> TextArray(int row, int column) const;

 private:
  pg_result* result_;
};

// How to reach the server. The password never appears in an error.
struct PgConnectionSettings {
  // A libpq connection string: a URI (postgresql://user@host:port/db) or
  // key=value pairs.
  std::string conninfo;
  // Overrides the connection string's password when not empty.
  std::string password;
  // The longest a connection attempt may take.
  absl::Duration connect_timeout = absl::Seconds(5);
  // The longest one statement may run on the server (its
  // statement_timeout): past it the server cancels it, so it has no effect,
  // and the call fails with DeadlineExceeded; the connection stays usable.
  // A server or network that does not answer at all is given twice as
  // long for a call (a statement, a pipeline's round trip); then the call
  // fails with DeadlineExceeded and the connection is closed, as its state
  // is unknown.
  absl::Duration call_timeout = absl::Seconds(10);
  // The schema every unqualified name is in (search_path), a plain
  // identifier; empty: the server's default.
  std::string schema;
  // What pg_stat_activity shows for the connection (at most 63 bytes).
  std::string application_name = "cairn";
};

// `text` (a libpq or server message) as one line: every run of
// whitespace, tabs and newlines included, becomes one space, and none is
// left at either end. libpq's messages span lines ("...failed: Connection
// refused\n\tIs the server running...", "ERROR: ...\nCONTEXT: ..."), which
// would break a log line or a line-based protocol in two.
std::string PgOneLine(std::string_view text);

// Whether PostgreSQL's text can hold `value`: InvalidArgument naming
// `what` if it has a NUL character.
[[nodiscard]] absl::Status CheckPgText(std::string_view what,
                                       std::string_view value);

// One libpq connection, driven without blocking: every call waits on the
// socket with a deadline (settings.call_timeout), so a server that stops
// answering fails a call instead of hanging it.
//
// Errors: Unavailable when the server cannot be reached or the connection
// is lost (broken() is then true: make a new connection); DeadlineExceeded
// for a statement the server cancelled at its statement_timeout, or a call
// with no answer within twice that (broken() then); for a statement
// PostgreSQL refused, its SQLSTATE class decides: FailedPrecondition for a
// violated constraint (23), InvalidArgument for a malformed statement or
// value (42, 22), Aborted for a serialization failure or deadlock (40),
// Unavailable for a connection error or a shutdown (08, 57), Internal
// otherwise; the message has PostgreSQL's message and SQLSTATE.
//
// Thread safety: one thread at a time.
class PgConnection {
 public:
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<PgConnection>> Connect(
      const PgConnectionSettings& settings);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // True once the connection is unusable: lost, or a call timed out.
  bool broken() const;

  // Runs one statement (extended protocol, binary results).
  [[nodiscard]] absl::StatusOr<PgResult> Execute(std::string_view sql,
                                                 const PgParams& params = {});
  // Runs several statements separated by ';' with no parameters (the
  // simple protocol), e.g. a schema's DDL; their results are dropped.
  [[nodiscard]] absl::Status ExecuteScript(std::string_view sql);
  // Prepares `sql` as `name` on this connection.
  [[nodiscard]] absl::Status Prepare(const std::string& name,
                                     std::string_view sql);
  [[nodiscard]] absl::StatusOr<PgResult> ExecutePrepared(
      const std::string& name, const PgParams& params);

  // A pipeline: statements sent back to back and answered together, one
  // round trip for many statements (libpq's pipeline mode). Queue
  // statements with Queue*, then Flush sends them with a sync point and
  // reads every answer: one result per queued statement, in order. When
  // one fails, the server skips the rest up to the sync point: their
  // entries are Aborted ("skipped after an earlier error"). A transaction
  // wrapped in the pipeline (BEGIN ... COMMIT) is then rolled back.
  // Flush's own error (lost connection, timeout) means no answer can be
  // trusted.
  // Not OK (and nothing queued) for parameters with an error().
  [[nodiscard]] absl::Status QueueStatement(std::string_view sql,
                                            const PgParams& params = {});
  [[nodiscard]] absl::Status QueuePrepared(const std::string& name,
                                           const PgParams& params);
  [[nodiscard]] absl::StatusOr<std::vector<absl::StatusOr<PgResult>>> Flush();
  // Flush for a transaction queued as a pipeline (BEGIN ... COMMIT). A
  // failed statement leaves the session in the aborted transaction: a
  // ROLLBACK ends it here (unless the connection is lost), so that the
  // connection can be used again. `queued` is the first error of queueing
  // it: then what was queued is sent, rolled back, and `queued` returned.
  // Otherwise Flush's error or the ROLLBACK's, or every statement's result
  // in order (the first failed one is the cause; those after it were
  // skipped).
  [[nodiscard]] absl::StatusOr<std::vector<absl::StatusOr<PgResult>>>
  FlushTransaction(const absl::Status& queued);
  // A sync point after the statements queued so far: they form one
  // implicit transaction (unless they began one themselves), and an error
  // among them skips nothing after this point. Flush adds the last one.
  void QueueSync();

  // For a connection that LISTENs (PgListener): the socket to wait on for
  // what the server sends unasked; -1 once the connection is lost.
  int socket() const;
  // Reads what the server sent, without waiting, and takes the
  // notifications received so far (those that came during earlier calls
  // too): how many. Unavailable (broken() then) if the connection is lost.
  [[nodiscard]] absl::StatusOr<int> TakeNotifications();

 private:
  PgConnection(pg_conn* conn, absl::Duration call_timeout)
      : conn_(conn), call_timeout_(call_timeout) {}

  // Sends what libpq buffered and waits until a whole result can be read,
  // before `deadline`.
  absl::Status AwaitResult(absl::Time deadline);
  absl::Status FlushOutput(absl::Time deadline);
  absl::Status WaitSocket(bool for_write, absl::Time deadline);
  // The next result (null at the end of a statement's results).
  absl::StatusOr<pg_result*> NextResult(absl::Time deadline);
  // Lost connection or timeout: the connection is closed for good.
  absl::Status Break(absl::Status why);
  absl::Status ConnectionError(std::string_view what) const;
  // Sends one statement: prepared `*name`, or `sql` when name is null.
  // False if libpq could not.
  bool Send(const std::string* name, std::string_view sql,
            const PgParams& params);
  absl::Status Queue(const std::string* name, std::string_view sql,
                     const PgParams& params);
  // Reads the results of one statement sent outside a pipeline.
  absl::StatusOr<PgResult> FinishStatement(absl::Time deadline);

  pg_conn* conn_;
  const absl::Duration call_timeout_;
  bool broken_ = false;
  int queued_ = 0;    // statements queued in the pipeline, not yet flushed
  int unsynced_ = 0;  // of those, queued after the last sync point
  int syncs_ = 0;     // sync points queued, not yet flushed
};

// A statement a plugin prepares on each of its connections.
struct PgStatement {
  const char* name;
  const char* sql;
};

// Prepares every statement on `connection` (a PgConnectionPool's setup);
// the first failure.
[[nodiscard]] absl::Status PrepareAll(PgConnection& connection,
                                      absl::Span<const PgStatement> statements);

// PostgreSQL's error as an absl::Status (the mapping above), carrying the
// SQLSTATE and the primary message for PgSqlState / PgPrimaryMessage.
absl::Status ResultError(const pg_result* result);

// The SQLSTATE of an error from PostgreSQL ("23505"); empty for any other
// status.
std::string PgSqlState(const absl::Status& status);
// PostgreSQL's primary message of such an error, without decoration.
std::string PgPrimaryMessage(const absl::Status& status);
// Whether `status` is PostgreSQL's refusal of a value it was given (a data
// exception, SQLSTATE class 22: e.g. text not valid in its encoding).
bool IsPgDataException(const absl::Status& status);

// `identifier` quoted for SQL ("a""b").
std::string QuoteIdentifier(std::string_view identifier);

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_CONNECTION_H_
