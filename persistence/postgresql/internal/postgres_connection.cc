#include "persistence/postgresql/internal/postgres_connection.h"

#include <poll.h>
#include <postgresql/libpq-fe.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "base/string_view.h"

namespace cairn::persistence::postgres_internal {
namespace {

void AppendBigEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

uint64_t ReadBigEndian(const char* in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value = (value << 8) | static_cast<unsigned char>(in[i]);
  }
  return value;
}

std::string Message(const char* text) {
  return PgOneLine(text == nullptr ? "" : text);
}

}  // namespace

// --- Messages ----------------------------------------------------------------

std::string PgOneLine(std::string_view text) {
  std::string line;
  line.reserve(text.size());
  bool space = false;  // whitespace seen since the last word
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
        c == '\f') {
      space = true;
      continue;
    }
    if (space && !line.empty()) line.push_back(' ');
    space = false;
    line.push_back(c);
  }
  return line;
}

// --- PgParams ----------------------------------------------------------------

absl::Status CheckPgText(std::string_view what, std::string_view value) {
  if (value.find('\0') == std::string_view::npos) return absl::OkStatus();
  return absl::InvalidArgumentError(base::StrCat(
      what, " holds a NUL character, which PostgreSQL text cannot hold"));
}

void PgParams::CheckText(std::string_view value) {
  if (error_.ok()) {
    error_ =
        CheckPgText(base::StrCat("text parameter ", values_.size() + 1), value);
  }
}

PgParams& PgParams::Text(std::string_view value) {
  CheckText(value);
  values_.emplace_back(value);
  formats_.push_back(0);
  return *this;
}

PgParams& PgParams::Int64(int64_t value) {
  std::string& bytes = values_.emplace_back();
  AppendBigEndian(bytes, static_cast<uint64_t>(value), 8);
  formats_.push_back(1);
  return *this;
}

PgParams& PgParams::Int32(int32_t value) {
  std::string& bytes = values_.emplace_back();
  AppendBigEndian(bytes, static_cast<uint32_t>(value), 4);
  formats_.push_back(1);
  return *this;
}

PgParams& PgParams::Bytes(std::string_view value) {
  values_.emplace_back(value);
  formats_.push_back(1);
  return *this;
}

PgParams& PgParams::TextArray(const std::vector<std::string>& values) {
  // Every element quoted, '"' and '\' escaped: then no element can be read
  // as NULL or split at a comma or brace.
  for (const std::string& value : values) CheckText(value);
  std::string text = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text.push_back(',');
    text.push_back('"');
    for (char c : values[i]) {
      if (c == '"' || c == '\\') text.push_back('\\');
      text.push_back(c);
    }
    text.push_back('"');
  }
  text.push_back('}');
  values_.push_back(std::move(text));
  formats_.push_back(0);
  return *this;
}

// The binary array form (array_recv): dimensions (1), a has-nulls flag
// (0), the element type's OID, then per dimension its length and lower
// bound (1), then each element as a 4-byte length and its bytes.
std::string& PgParams::StartArray(uint32_t element_oid, size_t count) {
  std::string& bytes = values_.emplace_back();
  formats_.push_back(1);
  AppendBigEndian(bytes, 1, 4);
  AppendBigEndian(bytes, 0, 4);
  AppendBigEndian(bytes, element_oid, 4);
  AppendBigEndian(bytes, count, 4);
  AppendBigEndian(bytes, 1, 4);
  return bytes;
}

namespace {
// PostgreSQL's type OIDs (pg_type.dat).
constexpr uint32_t kInt8Oid = 20;
constexpr uint32_t kInt4Oid = 23;
constexpr uint32_t kTextOid = 25;
constexpr uint32_t kByteaOid = 17;
}  // namespace

PgParams& PgParams::TextArrayOf(const std::vector<std::string_view>& values) {
  for (std::string_view value : values) CheckText(value);
  size_t size = 20;
  for (std::string_view value : values) size += 4 + value.size();
  std::string& bytes = StartArray(kTextOid, values.size());
  bytes.reserve(size);
  for (std::string_view value : values) {
    AppendBigEndian(bytes, value.size(), 4);
    bytes.append(value);
  }
  return *this;
}

PgParams& PgParams::BytesArray(const std::vector<std::string_view>& values) {
  size_t size = 20;
  for (std::string_view value : values) size += 4 + value.size();
  std::string& bytes = StartArray(kByteaOid, values.size());
  bytes.reserve(size);
  for (std::string_view value : values) {
    AppendBigEndian(bytes, value.size(), 4);
    bytes.append(value);
  }
  return *this;
}

PgParams& PgParams::Int64Array(const std::vector<int64_t>& values) {
  std::string& bytes = StartArray(kInt8Oid, values.size());
  bytes.reserve(20 + 12 * values.size());
  for (int64_t value : values) {
    AppendBigEndian(bytes, 8, 4);
    AppendBigEndian(bytes, static_cast<uint64_t>(value), 8);
  }
  return *this;
}

PgParams& PgParams::Int32Array(const std::vector<int32_t>& values) {
  std::string& bytes = StartArray(kInt4Oid, values.size());
  bytes.reserve(20 + 8 * values.size());
  for (int32_t value : values) {
    AppendBigEndian(bytes, 4, 4);
    AppendBigEndian(bytes, static_cast<uint32_t>(value), 4);
  }
  return *this;
}

// --- PgResult ----------------------------------------------------------------

PgResult::PgResult(PgResult&& other) noexcept
    : result_(std::exchange(other.result_, nullptr)) {}

PgResult& PgResult::operator=(PgResult&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) PQclear(result_);
    result_ = std::exchange(other.result_, nullptr);
  }
  return *this;
}

PgResult::~PgResult() {
  if (result_ != nullptr) PQclear(result_);
}

int PgResult::rows() const { return PQntuples(result_); }

int64_t PgResult::affected() const {
  const char* count = PQcmdTuples(result_);
  int64_t n = 0;
  for (; count != nullptr && *count >= '0' && *count <= '9'; ++count) {
    n = n * 10 + (*count - '0');
  }
  return n;
}

bool PgResult::IsNull(int row, int column) const {
  return PQgetisnull(result_, row, column) != 0;
}

int64_t PgResult::Int64(int row, int column) const {
  if (PQgetlength(result_, row, column) != 8) return 0;
  return static_cast<int64_t>(
      ReadBigEndian(PQgetvalue(result_, row, column), 8));
}

int32_t PgResult::Int32(int row, int column) const {
  if (PQgetlength(result_, row, column) != 4) return 0;
  return static_cast<int32_t>(
      ReadBigEndian(PQgetvalue(result_, row, column), 4));
}

bool PgResult::Bool(int row, int column) const {
  return PQgetlength(result_, row, column) == 1 &&
         PQgetvalue(result_, row, column)[0] != 0;
}

std::string_view PgResult::Bytes(int row, int column) const {
  return std::string_view(PQgetvalue(result_, row, column),
                          PQgetlength(result_, row, column));
}

absl::StatusOr<std::vector<std::string>> PgResult::TextArray(int row,
                                                             int column) const {
  // The binary array form: dimensions, a has-nulls flag, the element type,
  // then per dimension its length and lower bound, then each element as a
  // length (-1: NULL) and its bytes.
  std::string_view in = Bytes(row, column);
  auto take = [&in](int bytes, uint64_t& value) {
    if (in.size() < static_cast<size_t>(bytes)) return false;
    value = ReadBigEndian(in.data(), bytes);
    in.remove_prefix(bytes);
    return true;
  };
  auto malformed = [] {
    return absl::DataLossError("malformed text[] value from PostgreSQL");
  };
  uint64_t dimensions = 0, has_nulls = 0, type = 0;
  if (!take(4, dimensions) || !take(4, has_nulls) || !take(4, type)) {
    return malformed();
  }
  std::vector<std::string> values;
  if (dimensions == 0) return values;
  uint64_t count = 0, lower_bound = 0;
  if (dimensions != 1 || !take(4, count) || !take(4, lower_bound)) {
    return malformed();
  }
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t length = 0;
    if (!take(4, length) || length > in.size()) return malformed();
    values.emplace_back(in.substr(0, length));
    in.remove_prefix(length);
  }
  return values;
}

// --- Errors ------------------------------------------------------------------

namespace {
constexpr char kSqlStatePayload[] = "cairn.postgresql/sqlstate";
constexpr char kPrimaryMessagePayload[] = "cairn.postgresql/primary-message";

absl::StatusCode CodeOf(std::string_view sqlstate) {
  if (sqlstate == "57014") return absl::StatusCode::kDeadlineExceeded;
  std::string_view error_class = sqlstate.substr(0, 2);
  if (error_class == "23") return absl::StatusCode::kFailedPrecondition;
  if (error_class == "42" || error_class == "22") {
    return absl::StatusCode::kInvalidArgument;
  }
  if (error_class == "40") return absl::StatusCode::kAborted;
  // Connection exceptions; operator intervention (a shutdown, a cancel).
  if (error_class == "08" || error_class == "57") {
    return absl::StatusCode::kUnavailable;
  }
  return absl::StatusCode::kInternal;
}
}  // namespace

absl::Status ResultError(const pg_result* result) {
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const char* primary = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
  std::string sqlstate = state == nullptr ? "" : state;
  std::string message = Message(PQresultErrorMessage(result));
  if (!sqlstate.empty()) message += base::StrCat(" (SQLSTATE ", sqlstate, ")");
  absl::Status status(CodeOf(sqlstate), base::StrCat("PostgreSQL: ", message));
  status.SetPayload(kSqlStatePayload, absl::Cord(sqlstate));
  status.SetPayload(kPrimaryMessagePayload,
                    absl::Cord(primary == nullptr ? "" : primary));
  return status;
}

std::string PgSqlState(const absl::Status& status) {
  auto state = status.GetPayload(kSqlStatePayload);
  return state.has_value() ? std::string(*state) : std::string();
}

std::string PgPrimaryMessage(const absl::Status& status) {
  auto message = status.GetPayload(kPrimaryMessagePayload);
  return message.has_value() ? std::string(*message) : std::string();
}

bool IsPgDataException(const absl::Status& status) {
  return PgSqlState(status).substr(0, 2) == "22";
}

std::string QuoteIdentifier(std::string_view identifier) {
  std::string quoted = "\"";
  for (char c : identifier) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

// --- PgConnection ------------------------------------------------------------

absl::StatusOr<std::unique_ptr<PgConnection>> PgConnection::Connect(
    const PgConnectionSettings& settings) {
  // The connection string first, then what overrides it (libpq applies
  // later keywords over earlier ones when expand_dbname is set).
  std::vector<const char*> keys = {"dbname", "connect_timeout",
                                   "application_name"};
  const std::string timeout = std::to_string(
      std::max<int64_t>(2, absl::ToInt64Seconds(settings.connect_timeout +
                                                absl::Milliseconds(999))));
  std::vector<const char*> values = {settings.conninfo.c_str(), timeout.c_str(),
                                     settings.application_name.c_str()};
  if (!settings.password.empty()) {
    keys.push_back("password");
    values.push_back(settings.password.c_str());
  }
  // The server cancels a statement past the call timeout itself, so that
  // a write given up on cannot commit later; and it ends a session left
  // inside a transaction for that long (its process paused or cut off
  // between the statements of a pipeline), so that the locks it holds (the
  // schema's ordering lock, a lease row) cannot stop every other writer.
  const int64_t call_timeout_ms =
      std::max<int64_t>(1, absl::ToInt64Milliseconds(settings.call_timeout));
  std::string options =
      base::StrCat("-c statement_timeout=", call_timeout_ms,
                   " -c idle_in_transaction_session_timeout=", call_timeout_ms);
  if (!settings.schema.empty()) {
    options += base::StrCat(" -c search_path=", settings.schema);
  }
  keys.push_back("options");
  values.push_back(options.c_str());
  keys.push_back(nullptr);
  values.push_back(nullptr);
  // libpq's own parse errors quote the whole string, password and all:
  // checked first, and refused without them.
  char* parse_error = nullptr;
  PQconninfoOption* parsed =
      PQconninfoParse(settings.conninfo.c_str(), &parse_error);
  if (parse_error != nullptr) PQfreemem(parse_error);
  if (parsed == nullptr) {
    return absl::InvalidArgumentError(
        "PostgreSQL: the connection string cannot be parsed (it is not "
        "shown: it may hold a password)");
  }
  PQconninfoFree(parsed);
  pg_conn* conn = PQconnectdbParams(keys.data(), values.data(),
                                    /*expand_dbname=*/1);
  if (conn == nullptr) {
    return absl::ResourceExhaustedError(
        "PostgreSQL: no memory for a connection");
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    absl::Status error = absl::UnavailableError(base::StrCat(
        "PostgreSQL: cannot connect: ", Message(PQerrorMessage(conn))));
    PQfinish(conn);
    return error;
  }
  // PostgreSQL's notices ("schema ... already exists, skipping") would go
  // to stderr; nothing in them needs acting on.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  if (PQsetnonblocking(conn, 1) != 0) {
    absl::Status error = absl::InternalError(
        base::StrCat("PostgreSQL: cannot make the connection non-blocking: ",
                     Message(PQerrorMessage(conn))));
    PQfinish(conn);
    return error;
  }
  return std::unique_ptr<PgConnection>(
      new PgConnection(conn, 2 * settings.call_timeout));
}

PgConnection::~PgConnection() {
  if (conn_ != nullptr) PQfinish(conn_);
}

bool PgConnection::broken() const {
  return broken_ || conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK;
}

absl::Status PgConnection::ConnectionError(std::string_view what) const {
  return absl::UnavailableError(
      base::StrCat("PostgreSQL: ", what, ": ", Message(PQerrorMessage(conn_))));
}

absl::Status PgConnection::Break(absl::Status why) {
  broken_ = true;
  return why;
}

absl::Status PgConnection::WaitSocket(bool for_write, absl::Time deadline) {
  pollfd fd{};
  fd.fd = PQsocket(conn_);
  if (fd.fd < 0) return Break(ConnectionError("no socket"));
  fd.events = for_write ? (POLLOUT | POLLIN) : POLLIN;
  while (true) {
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return Break(absl::DeadlineExceededError(base::StrCat(
          "PostgreSQL: no answer within ", absl::FormatDuration(call_timeout_),
          " (the connection is closed)")));
    }
    int timeout_ms = static_cast<int>(
        std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 60'000));
    int ready = poll(&fd, 1, timeout_ms);
    if (ready > 0) return absl::OkStatus();
    if (ready < 0 && errno != EINTR) {
      return Break(absl::UnavailableError(
          base::StrCat("PostgreSQL: poll: ", std::strerror(errno))));
    }
  }
}

absl::Status PgConnection::FlushOutput(absl::Time deadline) {
  while (true) {
    int flushed = PQflush(conn_);
    if (flushed == 0) return absl::OkStatus();
    if (flushed < 0) return Break(ConnectionError("sending"));
    if (absl::Status s = WaitSocket(/*for_write=*/true, deadline); !s.ok()) {
      return s;
    }
    // Input may be what unblocks the server: read it while waiting.
    if (PQconsumeInput(conn_) == 0) return Break(ConnectionError("reading"));
  }
}

absl::Status PgConnection::AwaitResult(absl::Time deadline) {
  if (absl::Status s = FlushOutput(deadline); !s.ok()) return s;
  while (PQisBusy(conn_)) {
    if (absl::Status s = WaitSocket(/*for_write=*/false, deadline); !s.ok()) {
      return s;
    }
    if (PQconsumeInput(conn_) == 0) return Break(ConnectionError("reading"));
  }
  return absl::OkStatus();
}

absl::StatusOr<pg_result*> PgConnection::NextResult(absl::Time deadline) {
  if (absl::Status s = AwaitResult(deadline); !s.ok()) return s;
  return PQgetResult(conn_);
}

absl::StatusOr<PgResult> PgConnection::FinishStatement(absl::Time deadline) {
  // A statement may give several results (only the last one counts) and
  // always ends with a null one.
  absl::StatusOr<PgResult> last = absl::InternalError("no result");
  while (true) {
    absl::StatusOr<pg_result*> next = NextResult(deadline);
    if (!next.ok()) return next.status();
    if (*next == nullptr) break;
    PgResult result(*next);
    ExecStatusType status = PQresultStatus(*next);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
      last = std::move(result);
    } else {
      last = ResultError(*next);
    }
  }
  if (broken()) return Break(ConnectionError("connection lost"));
  return last;
}

absl::StatusOr<PgResult> PgConnection::Execute(std::string_view sql,
                                               const PgParams& params) {
  if (!params.error_.ok()) return params.error_;
  if (broken()) return ConnectionError("connection lost");
  const absl::Time deadline = absl::Now() + call_timeout_;
  if (!Send(nullptr, sql, params)) {
    return Break(ConnectionError("sending a statement"));
  }
  return FinishStatement(deadline);
}

absl::Status PgConnection::ExecuteScript(std::string_view sql) {
  if (broken()) return ConnectionError("connection lost");
  const absl::Time deadline = absl::Now() + call_timeout_;
  std::string text(sql);
  if (PQsendQuery(conn_, text.c_str()) == 0) {
    return Break(ConnectionError("sending statements"));
  }
  // Each statement gives a result; the first error stops the script.
  absl::Status first_error;
  while (true) {
    absl::StatusOr<pg_result*> next = NextResult(deadline);
    if (!next.ok()) return next.status();
    if (*next == nullptr) break;
    ExecStatusType status = PQresultStatus(*next);
    if (first_error.ok() && status != PGRES_COMMAND_OK &&
        status != PGRES_TUPLES_OK) {
      first_error = ResultError(*next);
    }
    PQclear(*next);
  }
  if (broken()) return Break(ConnectionError("connection lost"));
  return first_error;
}

absl::Status PgConnection::Prepare(const std::string& name,
                                   std::string_view sql) {
  if (broken()) return ConnectionError("connection lost");
  const absl::Time deadline = absl::Now() + call_timeout_;
  std::string text(sql);
  if (PQsendPrepare(conn_, name.c_str(), text.c_str(), 0, nullptr) == 0) {
    return Break(ConnectionError("preparing a statement"));
  }
  return FinishStatement(deadline).status();
}

absl::StatusOr<PgResult> PgConnection::ExecutePrepared(const std::string& name,
                                                       const PgParams& params) {
  if (!params.error_.ok()) return params.error_;
  if (broken()) return ConnectionError("connection lost");
  const absl::Time deadline = absl::Now() + call_timeout_;
  if (!Send(&name, {}, params)) {
    return Break(ConnectionError("sending a statement"));
  }
  return FinishStatement(deadline);
}

absl::Status PgConnection::QueueStatement(std::string_view sql,
                                          const PgParams& params) {
  return Queue(nullptr, sql, params);
}

absl::Status PgConnection::QueuePrepared(const std::string& name,
                                         const PgParams& params) {
  return Queue(&name, {}, params);
}

absl::Status PgConnection::Queue(const std::string* name, std::string_view sql,
                                 const PgParams& params) {
  if (!params.error_.ok()) return params.error_;
  if (broken()) return absl::OkStatus();  // Flush reports it
  if (queued_ == 0 && PQpipelineStatus(conn_) == PQ_PIPELINE_OFF &&
      PQenterPipelineMode(conn_) == 0) {
    broken_ = true;
    return absl::OkStatus();
  }
  if (!Send(name, sql, params)) {
    broken_ = true;  // Flush reports it
    return absl::OkStatus();
  }
  ++queued_;
  ++unsynced_;
  return absl::OkStatus();
}

bool PgConnection::Send(const std::string* name, std::string_view sql,
                        const PgParams& params) {
  std::vector<const char*> values;
  std::vector<int> lengths;
  values.reserve(params.values_.size());
  lengths.reserve(params.values_.size());
  for (const std::string& v : params.values_) {
    values.push_back(v.data());
    lengths.push_back(static_cast<int>(v.size()));
  }
  if (name != nullptr) {
    return PQsendQueryPrepared(conn_, name->c_str(), params.size(),
                               values.data(), lengths.data(),
                               params.formats_.data(),
                               /*resultFormat=*/1) != 0;
  }
  const std::string text(sql);
  return PQsendQueryParams(conn_, text.c_str(), params.size(), nullptr,
                           values.data(), lengths.data(),
                           params.formats_.data(), /*resultFormat=*/1) != 0;
}

int PgConnection::socket() const { return broken() ? -1 : PQsocket(conn_); }

absl::StatusOr<int> PgConnection::TakeNotifications() {
  if (broken()) return ConnectionError("connection lost");
  if (PQconsumeInput(conn_) == 0 || broken()) {
    return Break(ConnectionError("connection lost"));
  }
  int taken = 0;
  while (PGnotify* notification = PQnotifies(conn_)) {
    PQfreemem(notification);
    ++taken;
  }
  return taken;
}

absl::Status PrepareAll(PgConnection& connection,
                        absl::Span<const PgStatement> statements) {
  for (const PgStatement& statement : statements) {
    if (absl::Status s = connection.Prepare(statement.name, statement.sql);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

void PgConnection::QueueSync() {
  if (broken() || unsynced_ == 0) return;
  if (PQpipelineSync(conn_) == 0) {
    broken_ = true;
    return;
  }
  ++syncs_;
  unsynced_ = 0;
}

absl::StatusOr<std::vector<absl::StatusOr<PgResult>>>
PgConnection::FlushTransaction(const absl::Status& queued) {
  if (!queued.ok()) {
    (void)Flush();  // what was queued must still be answered
    if (!broken_) (void)Execute("ROLLBACK");
    return queued;
  }
  absl::StatusOr<std::vector<absl::StatusOr<PgResult>>> results = Flush();
  if (!results.ok()) return results;
  for (const absl::StatusOr<PgResult>& result : *results) {
    if (result.ok()) continue;
    if (!broken_) {
      absl::Status rolled_back = Execute("ROLLBACK").status();
      if (!rolled_back.ok()) return rolled_back;
    }
    break;
  }
  return results;
}

absl::StatusOr<std::vector<absl::StatusOr<PgResult>>> PgConnection::Flush() {
  const int expected = std::exchange(queued_, 0);
  if (broken()) {
    syncs_ = unsynced_ = 0;
    return Break(ConnectionError("sending a pipeline"));
  }
  std::vector<absl::StatusOr<PgResult>> results;
  if (expected == 0) return results;
  const absl::Time deadline = absl::Now() + call_timeout_;
  QueueSync();  // the last sync point
  if (broken()) return Break(ConnectionError("sending a pipeline"));
  const int syncs = std::exchange(syncs_, 0);
  results.reserve(expected);
  int synced = 0;
  // Each statement's result, each followed by a null one; a sync point's
  // own result after the statements before it.
  while (static_cast<int>(results.size()) < expected || synced < syncs) {
    absl::StatusOr<pg_result*> next = NextResult(deadline);
    if (!next.ok()) return next.status();
    if (*next == nullptr) {
      if (broken()) return Break(ConnectionError("connection lost"));
      continue;
    }
    PgResult result(*next);
    switch (PQresultStatus(*next)) {
      case PGRES_PIPELINE_SYNC:
        ++synced;
        break;
      case PGRES_COMMAND_OK:
      case PGRES_TUPLES_OK:
        results.emplace_back(std::move(result));
        break;
      case PGRES_PIPELINE_ABORTED:
        results.emplace_back(
            absl::AbortedError("skipped after an earlier error"));
        break;
      default:
        results.emplace_back(ResultError(*next));
        break;
    }
  }
  // Pipeline mode off, for the next single statement.
  if (PQexitPipelineMode(conn_) == 0) {
    return Break(ConnectionError("leaving pipeline mode"));
  }
  return results;
}

}  // namespace cairn::persistence::postgres_internal
