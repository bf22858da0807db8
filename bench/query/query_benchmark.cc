// The read side's speed (issue 17): cairn's queries by tag on the RocksDB
// journal, each figure next to its peer in the same run where it has one.
//
//   bazel run -c opt //bench/query:query_benchmark -- [--quick] [--events N]
//
// 1. CurrentEventsByTag over N tagged events (default 1,000,000) through
//    the plugin's ReadJournal, pulled 1000 at a time, against raw RocksDB
//    scanning the same tag index in the same store (an iterator over the
//    tag's range of the `tags` column family and a Get of each event it
//    names, nothing decoded). Ratio cairn/raw.
// 2. A live EventsByTag consumer while 1000 persistent actors persist
//    tagged events: the latency from each write to its delivery, as p50
//    and p99. No peer.
// 3. The persist throughput of 1000 actors (Persist, fsync off) with every
//    event Tagged{event, {"t"}} against the same without tags. Ratio
//    tagged/untagged.
// docs/BENCHMARKS.md has the details.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bench/persistence/persistence_benchmark_cairn.h"
#include "bench/persistence/persistence_benchmark_raw.h"
#include "bench/query/query_benchmark_cairn.h"
#include "bench/support/bench_main.h"
#include "persistence/storage/testing/temp_dir.h"
#include "rocksdb/version.h"

ABSL_FLAG(int64_t, events, 0,
          "events in the CurrentEventsByTag row (0: the plan's)");

namespace cairn::bench {
namespace {

using persistence::testing::TempDir;

constexpr char kTag[] = "t";
// The writers of the tagged events the query reads: their events
// interleave in the tag's index as several actors' would.
constexpr int kFillActors = 10;
constexpr int kFillBatch = 100;  // events per PersistAll command
constexpr std::size_t kPullBatch = 1000;
constexpr int kLoadActors = 1000;

struct Plan {
  int64_t tag_events;        // the query's events (rounded up)
  int64_t events_per_actor;  // of the latency and tag cost rows
  // Each side of a row with a peer runs this many times, taking turns
  // with the other, and the best rate of each is reported.
  int runs;
};

// Full: each side of a row takes a few seconds or less on 2 cores.
constexpr Plan kFullPlan = {1'000'000, 300, 3};
// Quick: a smoke run, seconds even under a sanitizer.
constexpr Plan kQuickPlan = {2'000, 10, 1};

struct Flags {
  bool quick = false;
  int64_t events = 0;  // 0: the plan's
};

absl::StatusOr<Flags> ReadFlags() {
  const int64_t events = absl::GetFlag(FLAGS_events);
  if (events < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--events wants a positive count, not ", events));
  }
  return Flags{.quick = Quick(), .events = events};
}

// A row with a peer: both rates in events per second.
struct Rates {
  double cairn = 0;
  double peer = 0;
};

void PrintRate(const std::string& name, const Rates& rates, const char* peer) {
  std::printf("%-50s %12.0f %12.0f %6.2fx  %s\n", name.c_str(), rates.cairn,
              rates.peer, rates.cairn / rates.peer, peer);
  std::fflush(stdout);
}

void PrintFailure(const std::string& name, const absl::Status& status) {
  std::printf("%-50s FAILED: %s\n", name.c_str(), status.ToString().c_str());
  std::fflush(stdout);
}

// Fills a store with `events` events tagged kTag (not timed), then reads
// them back `runs` times with each side, taking turns.
absl::StatusOr<Rates> QueryByTagRow(int64_t events, int runs) {
  absl::StatusOr<TempDir> dir = TempDir::Make("cairn-bench-query");
  if (!dir.ok()) return dir.status();
  WriteLoad fill;
  fill.mode = PersistMode::kPersistAll;
  fill.actors = kFillActors;
  fill.events_per_actor = events / kFillActors;
  fill.batch = kFillBatch;
  fill.tags = {kTag};
  if (absl::StatusOr<double> s = CairnWrite(dir->path(), fill); !s.ok()) {
    return s.status();
  }
  Rates best;
  for (int i = 0; i < runs; ++i) {
    absl::StatusOr<QueryScan> cairn =
        CairnQueryByTag(dir->path(), kTag, kPullBatch, events);
    if (!cairn.ok()) return cairn.status();
    best.cairn = std::max(best.cairn, cairn->events / cairn->seconds);
    absl::StatusOr<ScanResult> raw = ScanTag(dir->path(), kTag);
    if (!raw.ok()) return raw.status();
    if (raw->events != events) {
      return absl::DataLossError(absl::StrCat(
          "the raw scan found ", raw->events, " of ", events, " events"));
    }
    best.peer = std::max(best.peer, raw->events / raw->seconds);
  }
  return best;
}

// 1000 actors persist `events_per_actor` events each, tagged and untagged
// in turn, `runs` times each, each run on a new store.
absl::StatusOr<Rates> TagCostRow(int64_t events_per_actor, int runs) {
  WriteLoad load;
  load.mode = PersistMode::kPersist;
  load.actors = kLoadActors;
  load.events_per_actor = events_per_actor;
  Rates best;
  for (int i = 0; i < runs; ++i) {
    for (bool tagged : {true, false}) {
      absl::StatusOr<TempDir> dir = TempDir::Make("cairn-bench-tag-cost");
      if (!dir.ok()) return dir.status();
      load.tags.clear();
      if (tagged) load.tags = {kTag};
      absl::StatusOr<double> rate = CairnWrite(dir->path(), load);
      if (!rate.ok()) return rate.status();
      double& kept = tagged ? best.cairn : best.peer;
      kept = std::max(kept, *rate);
    }
  }
  return best;
}

// The value at fraction `q` of `values` (sorted here), in microseconds.
double PercentileUs(std::vector<int64_t>& values, double q) {
  std::sort(values.begin(), values.end());
  const std::size_t at = std::min(
      values.size() - 1, static_cast<std::size_t>(q * (values.size() - 1)));
  return static_cast<double>(values[at]) / 1000.0;
}

void PrintLatency(const char* name, std::vector<int64_t>& values) {
  const double p50 = PercentileUs(values, 0.50);
  const double p99 = PercentileUs(values, 0.99);
  std::printf("  %-48s %9zu %10.0f %10.0f\n", name, values.size(), p50, p99);
  std::fflush(stdout);
}

int Run(const Flags& flags) {
  const Plan& plan = flags.quick ? kQuickPlan : kFullPlan;
  // A whole number of PersistAll commands for each filling actor.
  const int64_t per_command = kFillActors * kFillBatch;
  const int64_t requested = flags.events > 0 ? flags.events : plan.tag_events;
  const int64_t tag_events =
      (requested + per_command - 1) / per_command * per_command;

  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  std::printf("RocksDB: %s\n", rocksdb::GetRocksVersionAsString().c_str());
  std::printf("stores under: %s\n", TempDir::Root().c_str());
  std::printf("runs per side: %d, best shown\n", plan.runs);
  std::printf("%-50s %12s %12s %7s  %s\n", "case", "cairn ev/s", "peer ev/s",
              "ratio", "peer");
  int exit_code = 0;

  const std::string query_row = absl::StrCat("CurrentEventsByTag, ", tag_events,
                                             " events, Pull(", kPullBatch, ")");
  if (absl::StatusOr<Rates> row = QueryByTagRow(tag_events, plan.runs);
      row.ok()) {
    PrintRate(query_row, *row, "raw RocksDB: tags scan + Get");
  } else {
    PrintFailure(query_row, row.status());
    exit_code = 1;
  }

  const std::string cost_row =
      absl::StrCat("Persist Tagged, ", kLoadActors, " actors x ",
                   plan.events_per_actor, ", fsync off");
  if (absl::StatusOr<Rates> row = TagCostRow(plan.events_per_actor, plan.runs);
      row.ok()) {
    PrintRate(cost_row, *row, "Persist untagged");
  } else {
    PrintFailure(cost_row, row.status());
    exit_code = 1;
  }

  const std::string latency_row =
      absl::StrCat("live EventsByTag, ", kLoadActors, " actors x ",
                   plan.events_per_actor, " events, Pull(", kPullBatch, ")");
  absl::StatusOr<TempDir> dir = TempDir::Make("cairn-bench-live");
  absl::StatusOr<Latencies> latencies =
      dir.ok()
          ? CairnLiveLatency(
                dir->path(),
                LatencyLoad{kLoadActors, plan.events_per_actor, kPullBatch})
          : absl::StatusOr<Latencies>(dir.status());
  if (latencies.ok()) {
    std::printf("%-50s %9s %10s %10s\n", latency_row.c_str(), "events",
                "p50 us", "p99 us");
    PrintLatency("persist call -> persist handler",
                 latencies->persist_to_handler);
    PrintLatency("persist call -> delivery", latencies->persist_to_delivery);
    PrintLatency("persist handler -> delivery", latencies->handler_to_delivery);
  } else {
    PrintFailure(latency_row, latencies.status());
    exit_code = 1;
  }
  return exit_code;
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  cairn::bench::InitBenchmark(argc, argv,
                              "query_benchmark [--quick] [--events N]");
  absl::StatusOr<cairn::bench::Flags> flags = cairn::bench::ReadFlags();
  if (!flags.ok()) {
    std::fprintf(stderr, "%s\n", std::string(flags.status().message()).c_str());
    return 2;
  }
  return cairn::bench::Run(*flags);
}
