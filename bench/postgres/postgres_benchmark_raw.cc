#include "bench/postgres/postgres_benchmark_raw.h"

#include <poll.h>
#include <postgresql/libpq-fe.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bench/persistence/persistence_benchmark_support.h"

namespace cairn::bench {
namespace {

// The journal's statements, as postgres_journal.cc prepares them.
constexpr char kAdvanceSql[] =
    "SELECT cairn_advance_streams($1::text[], $2::bigint[], $3::bigint[])";
constexpr char kOrderLockSql[] =
    "SELECT pg_advisory_xact_lock(hashtext('cairn-ordering:' || "
    "current_schema()))";
constexpr char kInsertEventSql[] =
    "INSERT INTO event_journal (persistence_id, sequence_number, writer, "
    "write_timestamp, adapter_manifest, serializer_id, serializer_manifest, "
    "payload, tags) SELECT pid, seq, w, ts, am, sid, sm, p, '{}' FROM "
    "unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[], "
    "$6::integer[], $7::text[], $8::bytea[]) AS t(pid, seq, w, ts, am, sid, "
    "sm, p)";
// Sent with the schema's events channel, "<schema>.events" (the
// journal's PgChannelName, for a name as short as the benchmark's).
constexpr char kNotifySql[] = "SELECT pg_notify($1, '')";
constexpr char kReplaySql[] =
    "SELECT sequence_number, writer, write_timestamp, adapter_manifest, "
    "serializer_id, serializer_manifest, payload, tags FROM event_journal "
    "WHERE persistence_id = $1 AND sequence_number >= $2 AND "
    "sequence_number <= $3 ORDER BY sequence_number LIMIT $4";

struct ConnectionCloser {
  void operator()(PGconn* connection) const { PQfinish(connection); }
};
using Connection = std::unique_ptr<PGconn, ConnectionCloser>;

struct ResultClearer {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultClearer>;

std::string Trimmed(const char* message) {
  std::string text = message == nullptr ? "" : message;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

absl::Status Failed(const std::string& what, const PGresult* result) {
  return absl::InternalError(
      absl::StrCat("PostgreSQL refused ", what, ": ",
                   Trimmed(PQresultErrorMessage(result))));
}

bool Succeeded(const PGresult* result) {
  const ExecStatusType status = PQresultStatus(result);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

absl::Status Execute(PGconn* connection, const std::string& sql) {
  Result result(PQexec(connection, sql.c_str()));
  return Succeeded(result.get()) ? absl::OkStatus() : Failed(sql, result.get());
}

// A connection to `url` whose search_path is `schema` (none if empty).
absl::StatusOr<Connection> Connect(const std::string& url,
                                   const std::string& schema) {
  Connection connection(PQconnectdb(url.c_str()));
  if (connection == nullptr || PQstatus(connection.get()) != CONNECTION_OK) {
    return absl::UnavailableError(absl::StrCat(
        "cannot connect to PostgreSQL: ",
        Trimmed(connection == nullptr ? "out of memory"
                                      : PQerrorMessage(connection.get()))));
  }
  // Notices ("... does not exist, skipping") would go to stderr.
  PQsetNoticeProcessor(
      connection.get(), [](void*, const char*) {}, nullptr);
  if (!schema.empty()) {
    if (absl::Status s =
            Execute(connection.get(),
                    absl::StrCat("SET search_path TO \"", schema, "\""));
        !s.ok()) {
      return s;
    }
  }
  return connection;
}

absl::Status Prepare(PGconn* connection, const char* name, const char* sql) {
  Result result(PQprepare(connection, name, sql, 0, nullptr));
  return Succeeded(result.get()) ? absl::OkStatus() : Failed(sql, result.get());
}

// PostgreSQL's binary integers are big-endian.
std::string BigEndian(uint64_t value, int bytes) {
  std::string out(bytes, '\0');
  for (int i = bytes - 1; i >= 0; --i) {
    out[i] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  return out;
}

uint64_t FromBigEndian(const char* bytes, int length) {
  uint64_t value = 0;
  for (int i = 0; i < length; ++i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return value;
}

std::string_view Column(const PGresult* result, int row, int column) {
  return std::string_view(PQgetvalue(result, row, column),
                          PQgetlength(result, row, column));
}

// The parameters of one statement: text in text format, integers and
// bytea in binary, as cairn's PgParams sends them.
class Params {
 public:
  Params& Text(const std::string& value) { return Add(value, 0); }
  Params& Int64(int64_t value) {
    return Add(BigEndian(static_cast<uint64_t>(value), 8), 1);
  }
  Params& Int32(int32_t value) {
    return Add(BigEndian(static_cast<uint32_t>(value), 4), 1);
  }
  Params& Bytes(const std::string& value) { return Add(value, 1); }
  // One-dimensional arrays in the binary form (array_recv), as the
  // journal's multi-row statements take their columns.
  template <typename T, typename Element>
  Params& Array(uint32_t element_oid, const std::vector<T>& values,
                Element element) {
    std::string bytes = BigEndian(1, 4) + BigEndian(0, 4) +
                        BigEndian(element_oid, 4) +
                        BigEndian(values.size(), 4) + BigEndian(1, 4);
    for (const T& value : values) {
      std::string e = element(value);
      bytes += BigEndian(e.size(), 4);
      bytes += e;
    }
    return Add(std::move(bytes), 1);
  }

  int size() const { return static_cast<int>(values_.size()); }
  std::vector<const char*> values() const {
    std::vector<const char*> out;
    for (const std::string& v : values_) out.push_back(v.c_str());
    return out;
  }
  std::vector<int> lengths() const {
    std::vector<int> out;
    for (const std::string& v : values_) {
      out.push_back(static_cast<int>(v.size()));
    }
    return out;
  }
  const int* formats() const { return formats_.data(); }

 private:
  Params& Add(std::string value, int format) {
    values_.push_back(std::move(value));
    formats_.push_back(format);
    return *this;
  }
  std::vector<std::string> values_;
  std::vector<int> formats_;
};

// Queues one prepared statement in the pipeline (binary results, as the
// journal asks for).
absl::Status QueuePrepared(PGconn* connection, const char* name,
                           const Params& params) {
  const std::vector<const char*> values = params.values();
  const std::vector<int> lengths = params.lengths();
  if (PQsendQueryPrepared(connection, name, params.size(), values.data(),
                          lengths.data(), params.formats(),
                          /*resultFormat=*/1) == 0) {
    return absl::UnavailableError(absl::StrCat(
        "queueing ", name, ": ", Trimmed(PQerrorMessage(connection))));
  }
  return absl::OkStatus();
}

absl::Status QueueStatement(PGconn* connection, const char* sql) {
  if (PQsendQueryParams(connection, sql, 0, nullptr, nullptr, nullptr, nullptr,
                        /*resultFormat=*/1) == 0) {
    return absl::UnavailableError(absl::StrCat(
        "queueing ", sql, ": ", Trimmed(PQerrorMessage(connection))));
  }
  return absl::OkStatus();
}

// Sends the pipeline queued so far with a sync point, and reads its
// `statements` answers and the sync's. The connection is non-blocking:
// while the output drains, the answers are read as they come, so that
// neither side blocks on a full socket.
absl::Status SyncPipeline(PGconn* connection, int statements) {
  if (PQpipelineSync(connection) == 0) {
    return absl::UnavailableError(
        absl::StrCat("sync: ", Trimmed(PQerrorMessage(connection))));
  }
  int flushed;
  while ((flushed = PQflush(connection)) == 1) {
    pollfd fd{PQsocket(connection), POLLIN | POLLOUT, 0};
    if (poll(&fd, 1, -1) < 0) return absl::UnavailableError("poll failed");
    if ((fd.revents & POLLIN) != 0 && PQconsumeInput(connection) == 0) {
      return absl::UnavailableError(
          absl::StrCat("reading: ", Trimmed(PQerrorMessage(connection))));
    }
  }
  if (flushed < 0) {
    return absl::UnavailableError(
        absl::StrCat("sending: ", Trimmed(PQerrorMessage(connection))));
  }
  int answered = 0;
  absl::Status first_error;
  while (true) {
    Result result(PQgetResult(connection));
    if (result == nullptr) {  // the end of one statement's results
      if (PQstatus(connection) != CONNECTION_OK) {
        return absl::UnavailableError("connection lost");
      }
      continue;
    }
    const ExecStatusType status = PQresultStatus(result.get());
    if (status == PGRES_PIPELINE_SYNC) break;
    ++answered;
    if (!Succeeded(result.get()) && first_error.ok()) {
      first_error = Failed("a statement of the pipeline", result.get());
    }
  }
  if (!first_error.ok()) return first_error;
  if (answered != statements) {
    return absl::InternalError(absl::StrCat(
        answered, " answers to a pipeline of ", statements, " statements"));
  }
  return absl::OkStatus();
}

// Queues one transaction as the journal's writer does (TryCommitBatched,
// with live-notify on, the default).
absl::StatusOr<int> QueueTransaction(PGconn* connection,
                                     const Transaction& events,
                                     const std::string& channel) {
  int statements = 0;
  auto queued = [&statements](absl::Status s) {
    if (s.ok()) ++statements;
    return s;
  };
  if (absl::Status s = queued(QueueStatement(connection, "BEGIN")); !s.ok()) {
    return s;
  }
  if (absl::Status s =
          queued(QueuePrepared(connection, "order_lock", Params()));
      !s.ok()) {
    return s;
  }
  // Each stream's move, once: from before its first event here to its
  // last (the events of a stream in one transaction are consecutive).
  std::vector<std::string> ids;
  std::vector<int64_t> expected, lasts;
  std::map<std::string, size_t> index;
  for (const StoredEvent& e : events) {
    auto [it, inserted] = index.try_emplace(e.persistence_id, ids.size());
    if (inserted) {
      ids.push_back(e.persistence_id);
      expected.push_back(e.sequence_nr - 1);
      lasts.push_back(e.sequence_nr);
    } else {
      lasts[it->second] = e.sequence_nr;
    }
  }
  auto text = [](const std::string& v) { return v; };
  auto int8 = [](int64_t v) { return BigEndian(static_cast<uint64_t>(v), 8); };
  auto int4 = [](int32_t v) { return BigEndian(static_cast<uint32_t>(v), 4); };
  constexpr uint32_t kText = 25, kInt8 = 20, kInt4 = 23, kBytea = 17;
  if (absl::Status s = queued(QueuePrepared(connection, "advance",
                                            Params()
                                                .Array(kText, ids, text)
                                                .Array(kInt8, expected, int8)
                                                .Array(kInt8, lasts, int8)));
      !s.ok()) {
    return s;
  }
  std::vector<std::string> pids, writers, adapter_manifests, manifests,
      payloads;
  std::vector<int64_t> sequence_nrs, timestamps;
  std::vector<int32_t> serializer_ids;
  for (const StoredEvent& e : events) {
    pids.push_back(e.persistence_id);
    sequence_nrs.push_back(e.sequence_nr);
    writers.push_back(e.writer);
    timestamps.push_back(e.write_timestamp);
    adapter_manifests.push_back(e.adapter_manifest);
    serializer_ids.push_back(e.serializer_id);
    manifests.push_back(e.serializer_manifest);
    payloads.push_back(e.payload);
  }
  if (absl::Status s =
          queued(QueuePrepared(connection, "insert_event",
                               Params()
                                   .Array(kText, pids, text)
                                   .Array(kInt8, sequence_nrs, int8)
                                   .Array(kText, writers, text)
                                   .Array(kInt8, timestamps, int8)
                                   .Array(kText, adapter_manifests, text)
                                   .Array(kInt4, serializer_ids, int4)
                                   .Array(kText, manifests, text)
                                   .Array(kBytea, payloads, text)));
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          queued(QueuePrepared(connection, "notify", Params().Text(channel)));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = queued(QueueStatement(connection, "COMMIT")); !s.ok()) {
    return s;
  }
  return statements;
}

}  // namespace

absl::StatusOr<std::vector<Transaction>> ReadTransactions(
    const std::string& url, const std::string& schema) {
  absl::StatusOr<Connection> connection = Connect(url, schema);
  if (!connection.ok()) return connection.status();
  const char* sql =
      "SELECT xmin, persistence_id, sequence_number, writer, "
      "write_timestamp, adapter_manifest, serializer_id, "
      "serializer_manifest, payload FROM event_journal ORDER BY ordering";
  Result result(PQexecParams(connection->get(), sql, 0, nullptr, nullptr,
                             nullptr, nullptr, /*resultFormat=*/1));
  if (!Succeeded(result.get())) return Failed(sql, result.get());
  std::vector<Transaction> transactions;
  uint64_t last_xid = 0;
  for (int row = 0; row < PQntuples(result.get()); ++row) {
    auto integer = [&result, row](int column) {
      return FromBigEndian(PQgetvalue(result.get(), row, column),
                           PQgetlength(result.get(), row, column));
    };
    auto text = [&result, row](int column) {
      return std::string(Column(result.get(), row, column));
    };
    const uint64_t xid = integer(0);
    if (transactions.empty() || xid != last_xid) transactions.emplace_back();
    last_xid = xid;
    transactions.back().push_back({text(1), static_cast<int64_t>(integer(2)),
                                   text(3), static_cast<int64_t>(integer(4)),
                                   text(5), static_cast<int32_t>(integer(6)),
                                   text(7), text(8)});
  }
  return transactions;
}

absl::Status TruncateJournal(const std::string& url,
                             const std::string& schema) {
  absl::StatusOr<Connection> connection = Connect(url, schema);
  if (!connection.ok()) return connection.status();
  return Execute(connection->get(),
                 "TRUNCATE journal_stream, event_journal, event_tag");
}

absl::StatusOr<double> RawWrite(const std::string& url,
                                const std::string& schema,
                                const std::vector<Transaction>& transactions) {
  absl::StatusOr<Connection> connection = Connect(url, schema);
  if (!connection.ok()) return connection.status();
  PGconn* conn = connection->get();
  const std::string channel = absl::StrCat(schema, ".events");
  for (auto [name, sql] : {std::pair{"advance", kAdvanceSql},
                           std::pair{"order_lock", kOrderLockSql},
                           std::pair{"insert_event", kInsertEventSql},
                           std::pair{"notify", kNotifySql}}) {
    if (absl::Status s = Prepare(conn, name, sql); !s.ok()) return s;
  }
  if (PQsetnonblocking(conn, 1) != 0 || PQenterPipelineMode(conn) == 0) {
    return absl::InternalError(absl::StrCat("cannot enter pipeline mode: ",
                                            Trimmed(PQerrorMessage(conn))));
  }
  int64_t events = 0;
  Stopwatch clock;
  for (const Transaction& transaction : transactions) {
    absl::StatusOr<int> statements =
        QueueTransaction(conn, transaction, channel);
    if (!statements.ok()) return statements.status();
    if (absl::Status s = SyncPipeline(conn, *statements); !s.ok()) return s;
    events += static_cast<int64_t>(transaction.size());
  }
  return static_cast<double>(events) / clock.Seconds();
}

absl::StatusOr<RawReadResult> RawRead(const std::string& url,
                                      const std::string& schema,
                                      const std::vector<std::string>& ids,
                                      int connections, int page_rows,
                                      const ClockHooks& hooks) {
  std::vector<Connection> open;
  for (int i = 0; i < connections; ++i) {
    absl::StatusOr<Connection> connection = Connect(url, schema);
    if (!connection.ok()) return connection.status();
    if (absl::Status s = Prepare(connection->get(), "replay", kReplaySql);
        !s.ok()) {
      return s;
    }
    open.push_back(*std::move(connection));
  }
  struct Share {
    absl::Status status;
    int64_t events = 0;
    int64_t payload_bytes = 0;
  };
  std::vector<Share> shares(connections);
  auto read = [&](int index) {
    PGconn* conn = open[index].get();
    Share& share = shares[index];
    for (size_t k = index; k < ids.size(); k += connections) {
      int64_t from = 1;
      while (true) {
        const Params params = Params()
                                  .Text(ids[k])
                                  .Int64(from)
                                  .Int64(std::numeric_limits<int64_t>::max())
                                  .Int64(page_rows);
        const std::vector<const char*> values = params.values();
        const std::vector<int> lengths = params.lengths();
        Result page(PQexecPrepared(conn, "replay", params.size(), values.data(),
                                   lengths.data(), params.formats(),
                                   /*resultFormat=*/1));
        if (!Succeeded(page.get())) {
          share.status = Failed("the replay statement", page.get());
          return;
        }
        const int rows = PQntuples(page.get());
        for (int row = 0; row < rows; ++row) {
          share.payload_bytes += PQgetlength(page.get(), row, 6);
          from = static_cast<int64_t>(
                     FromBigEndian(PQgetvalue(page.get(), row, 0), 8)) +
                 1;
        }
        share.events += rows;
        if (rows < page_rows) break;
      }
    }
  };
  if (hooks.started) hooks.started();
  Stopwatch clock;
  std::vector<std::thread> threads;
  for (int i = 0; i < connections; ++i) threads.emplace_back(read, i);
  for (std::thread& t : threads) t.join();
  RawReadResult result;
  result.seconds = clock.Seconds();
  if (hooks.stopped) hooks.stopped();
  for (const Share& share : shares) {
    if (!share.status.ok()) return share.status;
    result.events += share.events;
    result.payload_bytes += share.payload_bytes;
  }
  return result;
}

absl::StatusOr<std::string> QueryText(const std::string& url,
                                      const std::string& sql) {
  absl::StatusOr<Connection> connection = Connect(url, "");
  if (!connection.ok()) return connection.status();
  Result result(PQexec(connection->get(), sql.c_str()));
  if (PQresultStatus(result.get()) != PGRES_TUPLES_OK ||
      PQntuples(result.get()) < 1) {
    return Failed(sql, result.get());
  }
  return std::string(PQgetvalue(result.get(), 0, 0));
}

absl::Status VacuumForReads(const std::string& url, const std::string& schema) {
  absl::StatusOr<Connection> connection = Connect(url, schema);
  if (!connection.ok()) return connection.status();
  return Execute(connection->get(),
                 "VACUUM ANALYZE event_journal, journal_stream, snapshot");
}

absl::Status DropSchema(const std::string& url, const std::string& schema) {
  absl::StatusOr<Connection> connection = Connect(url, "");
  if (!connection.ok()) return connection.status();
  return Execute(connection->get(), absl::StrCat("DROP SCHEMA IF EXISTS \"",
                                                 schema, "\" CASCADE"));
}

}  // namespace cairn::bench
