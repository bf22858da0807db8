#ifndef CAIRN_BENCH_PERSISTENCE_PERSIST_LATENCY_RAW_H_
#define CAIRN_BENCH_PERSISTENCE_PERSIST_LATENCY_RAW_H_

// The raw RocksDB side of persist_latency_benchmark's offered rows: the
// best a program could do on the library alone. The driver queues each
// event (open_loop.h); one writer thread commits whatever is queued as
// one WriteBatch to `events` (synced if fsync), with nothing between the
// queue and the store: group commit without actors, messages or
// encoding. Each stream's events get cairn's keys (the stream's prefix,
// then the big-endian sequence number); values are the 8-byte event
// alone (cairn's stored record is about 38 bytes).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/persistence/open_loop.h"

namespace cairn::bench {

struct OfferedRun {
  std::vector<double> latencies_ms;  // each recorded event's, unsorted
  double events_per_second = 0;      // over the recorded rounds
};

// Runs `load` on a new store in the empty directory `dir`. An event's
// latency runs from its stamp (DriveOpenLoop) to the end of its
// commit. A failed open or write is returned, the run abandoned.
[[nodiscard]] absl::StatusOr<OfferedRun> RunRawOfferedLoad(
    const std::string& dir, const OfferedLoad& load, bool fsync);

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_PERSISTENCE_PERSIST_LATENCY_RAW_H_
