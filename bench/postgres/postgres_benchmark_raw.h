#ifndef CAIRN_BENCH_POSTGRES_POSTGRES_BENCHMARK_RAW_H_
#define CAIRN_BENCH_POSTGRES_POSTGRES_BENCHMARK_RAW_H_

// The raw side of postgres_benchmark: libpq itself, sending the statements
// cairn's PostgreSQL journal sends (persistence/postgresql/internal/
// postgres_journal.cc, written out here as that file is private to its
// package), on tables the journal made.
//
// Every function connects on its own (to `url`, with `schema` as the
// search_path) and closes its connections before it returns; none keeps
// state. Errors: Unavailable if the server cannot be reached, Internal
// with PostgreSQL's message for a statement it refused.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/persistence/persistence_benchmark_support.h"

namespace cairn::bench {

// One row of event_journal, every column cairn writes.
struct StoredEvent {
  std::string persistence_id;
  int64_t sequence_nr = 0;
  std::string writer;
  int64_t write_timestamp = 0;
  std::string adapter_manifest;
  int32_t serializer_id = 0;
  std::string serializer_manifest;
  std::string payload;
};

// The events one transaction of cairn's writer committed, in the order it
// inserted them (their `ordering`).
using Transaction = std::vector<StoredEvent>;

// Reads back every event in the schema's event_journal, grouped by the
// transaction that inserted it (its xmin): the transactions cairn's writer
// made, in commit order (the journal's ordering lock makes `ordering` rise
// in commit order).
[[nodiscard]] absl::StatusOr<std::vector<Transaction>> ReadTransactions(
    const std::string& url, const std::string& schema);

// Empties the schema's journal tables (journal_stream, event_journal,
// event_tag), so that the same events can be written again.
[[nodiscard]] absl::Status TruncateJournal(const std::string& url,
                                           const std::string& schema);

// Writes `transactions` again, on one connection, as cairn's writer does:
// for each, one pipeline (one round trip) of BEGIN, the journal's
// advisory lock, its `SELECT cairn_advance_streams(ids, expected, lasts)`
// moving each stream once, its multi-row INSERT of the events (prepared,
// the same columns as binary arrays), its pg_notify on the schema's events
// channel (live-notify), COMMIT.
// Returns the events written per second, from the first BEGIN sent to the
// last COMMIT answered (connecting and preparing not counted).
[[nodiscard]] absl::StatusOr<double> RawWrite(
    const std::string& url, const std::string& schema,
    const std::vector<Transaction>& transactions);

struct RawReadResult {
  int64_t events = 0;
  int64_t payload_bytes = 0;
  double seconds = 0;
};

// Reads the streams `ids` with the journal's replay statement, keyset-paged
// (`page_rows` rows per statement, the next page from the last sequence
// number read + 1), on `connections` connections at once (each its own
// thread, taking every connections-th id), reading every column of every
// row. The clock runs from when every connection is ready to the last
// page read; `hooks` run with the clock.
[[nodiscard]] absl::StatusOr<RawReadResult> RawRead(
    const std::string& url, const std::string& schema,
    const std::vector<std::string>& ids, int connections, int page_rows,
    const ClockHooks& hooks = {});

// One row of text from `sql` (e.g. "SHOW fsync"), first column.
[[nodiscard]] absl::StatusOr<std::string> QueryText(const std::string& url,
                                                    const std::string& sql);

// VACUUM ANALYZE of the tables a recovery reads in `schema`: the rows just
// written get their hint bits and visibility set, and the statistics, now
// rather than by autovacuum during the timed runs (which made their
// figures vary by 2x) or by the first run that reads them.
[[nodiscard]] absl::Status VacuumForReads(const std::string& url,
                                          const std::string& schema);

// DROP SCHEMA `schema` CASCADE (`schema` a plain lowercase identifier).
[[nodiscard]] absl::Status DropSchema(const std::string& url,
                                      const std::string& schema);

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_POSTGRES_POSTGRES_BENCHMARK_RAW_H_
