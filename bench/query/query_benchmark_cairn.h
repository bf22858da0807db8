#ifndef CAIRN_BENCH_QUERY_QUERY_BENCHMARK_CAIRN_H_
#define CAIRN_BENCH_QUERY_QUERY_BENCHMARK_CAIRN_H_

// The cairn side of query_benchmark: queries through
// PersistenceQuery::Get(system).ReadJournalFor("") of an actor system whose
// RocksDB journal is configured as a user configures it
// (persistence_benchmark_system.h), pulled on the read journal's own
// thread, each Pull from the previous one's callback.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace cairn::bench {

struct QueryScan {
  int64_t events = 0;
  double seconds = 0;
};

// Starts an actor system over the store in `dir` (closed), gets its read
// journal (which opens the store: not timed), then times
// CurrentEventsByTag(tag, 0) pulled `batch` events at a time until it
// completes. DataLoss unless it delivered `expected` events.
[[nodiscard]] absl::StatusOr<QueryScan> CairnQueryByTag(const std::string& dir,
                                                        const std::string& tag,
                                                        std::size_t batch,
                                                        int64_t expected);

struct LatencyLoad {
  int actors = 1000;
  int64_t events_per_actor = 100;
  std::size_t batch = 1000;  // the live consumer's Pull size
};

// Per event, in nanoseconds of the steady clock.
struct Latencies {
  // The Persist call to its handler: the write as its actor sees it.
  std::vector<int64_t> persist_to_handler;
  // The Persist call to the live query's delivery of the event.
  std::vector<int64_t> persist_to_delivery;
  // The persist handler (which runs once the write's commit completed) to
  // the delivery; negative when the query was first.
  std::vector<int64_t> handler_to_delivery;
};

// On a new store in `dir`: load.actors persistent actors recover (empty
// streams; this opens the store), a live EventsByTag("t", 0) starts
// pulling, then each actor gets load.events_per_actor commands up front,
// each persisting Tagged{Event{the steady clock at the Persist call},
// {"t"}} with Persist (one write in flight per actor). The handler notes
// its time; the consumer notes, for each batch, the time its callback
// started. Returns once every event was delivered; DataLoss if one was
// missed or delivered twice.
[[nodiscard]] absl::StatusOr<Latencies> CairnLiveLatency(
    const std::string& dir, const LatencyLoad& load);

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_QUERY_QUERY_BENCHMARK_CAIRN_H_
