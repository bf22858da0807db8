#ifndef CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_RAW_H_
#define CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_RAW_H_

// The raw RocksDB side of persistence_benchmark and query_benchmark: the
// same writes and scans as cairn's journal and read journal, straight on
// the library, opened as cairn's plugin opens it
// (persistence/rocksdb/internal/db.cc: default options, the column
// families default, events, snapshots, metadata and tags, the WAL on,
// every write synced if fsync is on).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/persistence/persistence_benchmark_support.h"

namespace cairn::bench {

struct Record {
  std::string key;
  std::string value;
};

// The events of one of cairn's group commits (one rocksdb::WriteBatch), in
// the order it wrote them.
using CommitBatch = std::vector<Record>;

// Every group commit of cairn's journal to the `events` column family of
// the closed store in `dir`, in commit order, read back from its
// write-ahead log with a rocksdb::WalFilter on a read-only open (which
// changes nothing on disk). Complete only while nothing was flushed from
// the WAL to a table file, which the benchmark's sizes keep true and the
// caller checks by counting.
[[nodiscard]] absl::StatusOr<std::vector<CommitBatch>> ReadCommits(
    const std::string& dir);

// Writes `commits` to a new database in the empty directory `dir`, one
// WriteBatch per commit from one thread, synced if `fsync`, and returns
// the records written per second (opening and closing not timed), and
// sets `*cost` (if not null) to what that cost per record.
[[nodiscard]] absl::StatusOr<double> WriteCommits(
    const std::string& dir, const std::vector<CommitBatch>& commits, bool fsync,
    SideCost* cost = nullptr);

struct ScanResult {
  int64_t events = 0;
  int64_t value_bytes = 0;
  double seconds = 0;
  uint64_t allocations = 0;  // made while the scan was timed
  double cpu_seconds = 0;    // the process's, while ScanStreams was timed
};

// Reads every event of each stream of `persistence_ids` from the store in
// `dir` (closed): one iterator, one Seek per stream, then Next while the
// key has the stream's prefix. Nothing is decoded: a record is counted
// and its value's size summed. Opening and closing are not timed.
[[nodiscard]] absl::StatusOr<ScanResult> ScanStreams(
    const std::string& dir, const std::vector<std::string>& persistence_ids);

// Reads every event tagged `tag` from the store in `dir` (closed) as a
// query by tag must at the least: one iterator over the tag's key range in
// the `tags` column family (bounded by ReadOptions::iterate_upper_bound),
// and for each entry a Get of the event it names from `events` (the
// entry's value is the event's key, used undecoded) into a reused
// std::string, the same Get cairn's read journal does. Nothing is decoded:
// an event is counted and its value's size summed. Opening and closing are
// not timed.
[[nodiscard]] absl::StatusOr<ScanResult> ScanTag(const std::string& dir,
                                                 std::string_view tag);

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_RAW_H_
