// cairn's persistence next to raw RocksDB (the librocksdb cairn links)
// doing the same writes and scans, in the same run. One row per case:
// cairn's events per second, raw RocksDB's, and the ratio cairn/raw
// (higher is better for cairn).
//
//   bazel build -c opt //bench/persistence:persistence_benchmark
//   bazel-bin/bench/persistence/persistence_benchmark [--quick] [--filter
//   SUBSTRING]
//
// Persist rows: N persistent actors persist K events each (Persist,
// PersistAsync or PersistAll of 10; fsync on or off); raw RocksDB then
// writes the very records cairn stored, batched as cairn's group commits
// batched them (read back from cairn's WAL), with the same sync.
// Recovery rows: cairn's actors replay what they stored; raw RocksDB scans
// the same streams in the same store. Each side runs three times (once
// with --quick), taking turns; a row shows each side's median rate and the
// median of the runs' ratios, and a second table the ratios' spread.
// docs/BENCHMARKS.md has the details.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bench/persistence/persistence_benchmark_cairn.h"
#include "bench/persistence/persistence_benchmark_raw.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/support/allocation_counter.h"
#include "bench/support/bench_main.h"
#include "bench/support/ratio_table.h"
#include "persistence/storage/testing/temp_dir.h"
#include "rocksdb/version.h"

ABSL_FLAG(std::string, filter, "",
          "run only the rows whose name contains this text");

namespace cairn::bench {
namespace {

using persistence::testing::TempDir;

constexpr int kPersistAllBatch = 10;
constexpr int64_t kRecoveryEventsEach = 10;
// The long stream is written with PersistAll commands of this many events
// (not timed; only its recovery is).
constexpr int kStreamFillBatch = 1000;

struct Plan {
  int64_t write_events;            // per persist row with fsync off
  int64_t fsync_events_per_actor;  // with fsync on, at most this many each
  int64_t stream_events;           // the long stream's length
  int recovery_actors;             // each with kRecoveryEventsEach events
  // Each side of a row runs this many times, taking turns with the other;
  // the median of each is reported, with the spread of the ratios (issue
  // 35: a figure that needs a lucky run is not one).
  int runs;
};

// Full: each side of a row takes about a second or less per run on 2
// cores. The data of a write row stays well below RocksDB's 64 MB write
// buffer, so that cairn's WAL still holds every commit when ReadCommits
// reads it. The long stream is issue 19's: one million events.
constexpr Plan kFullPlan = {100'000, 2'000, 1'000'000, 10'000, 3};
// Quick: a smoke run, seconds even under ThreadSanitizer.
constexpr Plan kQuickPlan = {2'000, 100, 2'000, 1'000, 1};

struct Flags {
  bool quick = false;
  std::string filter;  // run only the rows whose name contains it
};

struct Row {
  double cairn = 0;              // events per second
  double raw = 0;                // events per second
  double events_per_commit = 0;  // 0: not a write row
  double value_bytes = 0;        // mean stored value size
  // Over the runs: cairn/raw of each run, its median, fewest and most
  // (one run: that run's).
  double ratio = 0;
  double ratio_min = 0;
  double ratio_max = 0;
  // What the timed part cost per event, every thread: allocations (the
  // fewest of the runs) and CPU time (the median of the runs).
  SideCost cairn_cost;
  SideCost raw_cost;
};

struct Case {
  std::string name;
  std::function<absl::StatusOr<Row>()> run;
};

Flags ReadFlags() {
  return {.quick = Quick(), .filter = absl::GetFlag(FLAGS_filter)};
}

const char* ModeName(PersistMode mode) {
  switch (mode) {
    case PersistMode::kPersist:
      return "Persist";
    case PersistMode::kPersistAsync:
      return "PersistAsync";
    case PersistMode::kPersistAll:
      return "PersistAll(10)";
  }
  return "?";
}

// The same total for every actor count (fsync off), or fewer with fsync on
// where one actor's Persist pays one fsync per event; a multiple of the
// PersistAll batch per actor, so all three modes write the same events.
WriteLoad MakeLoad(PersistMode mode, int actors, bool fsync, const Plan& plan) {
  int64_t total = plan.write_events;
  if (fsync) total = std::min(total, actors * plan.fsync_events_per_actor);
  const int64_t each = std::max<int64_t>(total / actors, kPersistAllBatch) /
                       kPersistAllBatch * kPersistAllBatch;
  return WriteLoad{
      mode,  actors,
      each,  mode == PersistMode::kPersistAll ? kPersistAllBatch : 1,
      fsync, /*tags=*/{}};
}

double Fewest(double a, double b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return std::min(a, b);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// A row from its runs: each side's median rate and CPU per event, the
// median and range of the runs' ratios, the mean commits and value size,
// each side's fewest allocations.
Row Summarize(const std::vector<Row>& runs) {
  std::vector<double> cairn, raw, ratios, cairn_cpu, raw_cpu;
  Row row;
  for (const Row& run : runs) {
    cairn.push_back(run.cairn);
    raw.push_back(run.raw);
    ratios.push_back(run.cairn / run.raw);
    cairn_cpu.push_back(run.cairn_cost.cpu_us);
    raw_cpu.push_back(run.raw_cost.cpu_us);
    row.events_per_commit += run.events_per_commit / runs.size();
    row.value_bytes += run.value_bytes / runs.size();
    row.cairn_cost.allocations =
        Fewest(row.cairn_cost.allocations, run.cairn_cost.allocations);
    row.raw_cost.allocations =
        Fewest(row.raw_cost.allocations, run.raw_cost.allocations);
  }
  row.cairn = Median(cairn);
  row.raw = Median(raw);
  row.cairn_cost.cpu_us = Median(cairn_cpu);
  row.raw_cost.cpu_us = Median(raw_cpu);
  row.ratio = Median(ratios);
  row.ratio_min = *std::min_element(ratios.begin(), ratios.end());
  row.ratio_max = *std::max_element(ratios.begin(), ratios.end());
  return row;
}

// cairn writes `load`; raw RocksDB then writes the commits cairn made.
absl::StatusOr<Row> PersistOnce(const WriteLoad& load) {
  absl::StatusOr<TempDir> cairn_dir = TempDir::Make("cairn-bench-journal");
  if (!cairn_dir.ok()) return cairn_dir.status();
  absl::StatusOr<TempDir> raw_dir = TempDir::Make("cairn-bench-raw");
  if (!raw_dir.ok()) return raw_dir.status();

  Row row;
  absl::StatusOr<double> cairn =
      CairnWrite(cairn_dir->path(), load, &row.cairn_cost);
  if (!cairn.ok()) return cairn.status();
  row.cairn = *cairn;

  absl::StatusOr<std::vector<CommitBatch>> commits =
      ReadCommits(cairn_dir->path());
  if (!commits.ok()) return commits.status();
  int64_t events = 0;
  int64_t value_bytes = 0;
  for (const CommitBatch& commit : *commits) {
    for (const Record& record : commit) {
      value_bytes += static_cast<int64_t>(record.value.size());
    }
    events += static_cast<int64_t>(commit.size());
  }
  const int64_t expected = load.actors * load.events_per_actor;
  if (events != expected) {
    return absl::DataLossError(absl::StrCat(
        "cairn's WAL holds ", events, " of the ", expected,
        " events written: the raw side would not do the same work"));
  }
  row.events_per_commit = static_cast<double>(events) / commits->size();
  row.value_bytes = static_cast<double>(value_bytes) / events;

  absl::StatusOr<double> raw =
      WriteCommits(raw_dir->path(), *commits, load.fsync, &row.raw_cost);
  if (!raw.ok()) return raw.status();
  row.raw = *raw;
  return row;
}

absl::StatusOr<Row> PersistRow(const WriteLoad& load, int runs) {
  std::vector<Row> done;
  for (int i = 0; i < runs; ++i) {
    absl::StatusOr<Row> run = PersistOnce(load);
    if (!run.ok()) return run.status();
    done.push_back(*run);
  }
  return Summarize(done);
}

// cairn's actors recover the streams `ids` of the store in `dir`; raw
// RocksDB then scans them in the same store.
absl::StatusOr<Row> RecoverOnce(const std::string& dir,
                                const std::vector<std::string>& ids,
                                int64_t events_each) {
  const int actors = static_cast<int>(ids.size());
  Row row;
  absl::StatusOr<double> cairn =
      CairnRecover(dir, actors, events_each, &row.cairn_cost);
  if (!cairn.ok()) return cairn.status();
  row.cairn = *cairn;

  absl::StatusOr<ScanResult> scan = ScanStreams(dir, ids);
  if (!scan.ok()) return scan.status();
  if (scan->events != actors * events_each) {
    return absl::DataLossError(absl::StrCat("raw scan found ", scan->events,
                                            " of ", actors * events_each,
                                            " events"));
  }
  row.raw = static_cast<double>(scan->events) / scan->seconds;
  row.value_bytes = static_cast<double>(scan->value_bytes) / scan->events;
  row.raw_cost.allocations = static_cast<double>(scan->allocations) /
                             static_cast<double>(scan->events);
  row.raw_cost.cpu_us =
      scan->cpu_seconds * 1e6 / static_cast<double>(scan->events);
  return row;
}

// Writes `actors` streams of `events_each` events (not timed), then
// measures their recovery `runs` times.
absl::StatusOr<Row> RecoveryRow(int actors, int64_t events_each, int fill_batch,
                                int runs) {
  absl::StatusOr<TempDir> dir = TempDir::Make("cairn-bench-recovery");
  if (!dir.ok()) return dir.status();
  const WriteLoad fill{
      PersistMode::kPersistAll, actors,     events_each, fill_batch,
      /*fsync=*/false,          /*tags=*/{}};
  if (absl::StatusOr<double> s = CairnWrite(dir->path(), fill); !s.ok()) {
    return s.status();
  }
  std::vector<std::string> ids;
  ids.reserve(actors);
  for (int i = 0; i < actors; ++i) ids.push_back(BenchPersistenceId(i));

  std::vector<Row> done;
  for (int i = 0; i < runs; ++i) {
    absl::StatusOr<Row> run = RecoverOnce(dir->path(), ids, events_each);
    if (!run.ok()) return run.status();
    done.push_back(*run);
  }
  return Summarize(done);
}

std::vector<Case> Cases(const Plan& plan) {
  std::vector<Case> cases;
  for (bool fsync : {false, true}) {
    for (PersistMode mode : {PersistMode::kPersist, PersistMode::kPersistAsync,
                             PersistMode::kPersistAll}) {
      for (int actors : {1, 10, 100, 1000}) {
        const WriteLoad load = MakeLoad(mode, actors, fsync, plan);
        cases.push_back(
            {absl::StrCat(ModeName(mode), ", ", actors,
                          actors == 1 ? " actor" : " actors", ", fsync ",
                          fsync ? "on" : "off"),
             [load, runs = plan.runs] { return PersistRow(load, runs); }});
      }
    }
  }
  cases.push_back(
      {absl::StrCat("recovery, 1 stream of ", plan.stream_events, " events"),
       [plan] {
         return RecoveryRow(1, plan.stream_events, kStreamFillBatch, plan.runs);
       }});
  cases.push_back({absl::StrCat("recovery, ", plan.recovery_actors,
                                " actors x ", kRecoveryEventsEach, " events"),
                   [plan] {
                     return RecoveryRow(plan.recovery_actors,
                                        kRecoveryEventsEach,
                                        kRecoveryEventsEach, plan.runs);
                   }});
  return cases;
}

void PrintHeader(const Plan& plan) {
  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  std::printf("RocksDB: %s\n", rocksdb::GetRocksVersionAsString().c_str());
  // fsync costs what the file system under it makes it cost.
  std::printf("stores under: %s\n", TempDir::Root().c_str());
  std::printf(
      "runs per side: %d, in turns; medians shown (the ratio: of the runs' "
      "ratios); ev/commit: cairn's mean\n",
      plan.runs);
  PrintRatioHeader();
}

void PrintRow(const std::string& name, const Row& row) {
  PrintRatioRow(name, row.cairn, row.raw, row.events_per_commit,
                row.value_bytes, row.ratio);
}

// The second table: each row's ratio, median, fewest and most of its runs
// (bench/report.sh reads it by its title). No "x", so that the parsers of
// the first table skip it.
void PrintSpread(const std::vector<std::pair<std::string, Row>>& rows,
                 int runs) {
  std::printf(
      "\nratio per run (cairn/raw of each of %d runs: median, "
      "fewest, most)\n",
      runs);
  std::printf("%-40s %8s %8s %8s\n", "case", "median", "fewest", "most");
  for (const auto& [name, row] : rows) {
    std::printf("%-40s %8.2f %8.2f %8.2f\n", name.c_str(), row.ratio,
                row.ratio_min, row.ratio_max);
  }
}

// The second table: allocations per event of each row, after every row
// (bench/report.sh reads it by its title). Its ratio has no "x" so that
// the parsers of the first table skip it.
void PrintAllocations(const std::vector<std::pair<std::string, Row>>& rows) {
  if (!AllocationsCounted()) {
    std::printf("\nallocations per event: not counted in this build\n");
    return;
  }
  std::printf(
      "\nallocations per event (timed part, every thread, fewest of the "
      "runs)\n");
  std::printf("%-40s %10s %10s %10s\n", "case", "cairn", "raw", "cairn/raw");
  for (const auto& [name, row] : rows) {
    const SideCost& cairn = row.cairn_cost;
    const SideCost& raw = row.raw_cost;
    if (cairn.allocations < 0 || raw.allocations < 0) continue;
    std::printf(
        "%-40s %10.1f %10.1f %10.1f\n", name.c_str(), cairn.allocations,
        raw.allocations,
        raw.allocations > 0 ? cairn.allocations / raw.allocations : 0.0);
  }
}

// The third table: CPU time per event of each row (every thread of the
// process; raw RocksDB's side is one thread and the store's own). Less
// moved by when threads wake than the rates are: what cairn's work per
// event costs against the store's. Read by bench/report.sh by its title;
// no "x", as above.
void PrintCpu(const std::vector<std::pair<std::string, Row>>& rows) {
  std::printf(
      "\nCPU per event (timed part, every thread, microseconds, median of "
      "the runs)\n");
  std::printf("%-40s %10s %10s %10s\n", "case", "cairn", "raw", "cairn/raw");
  for (const auto& [name, row] : rows) {
    const double cairn = row.cairn_cost.cpu_us;
    const double raw = row.raw_cost.cpu_us;
    if (cairn < 0 || raw <= 0) continue;
    std::printf("%-40s %10.2f %10.2f %10.2f\n", name.c_str(), cairn, raw,
                cairn / raw);
  }
}

// Runs every selected case, also after one fails; 1 if any failed.
int Run(const Flags& flags) {
  const Plan& plan = flags.quick ? kQuickPlan : kFullPlan;
  PrintHeader(plan);
  int exit_code = 0;
  std::vector<std::pair<std::string, Row>> done;
  for (const Case& c : Cases(plan)) {
    if (c.name.find(flags.filter) == std::string::npos) continue;
    absl::StatusOr<Row> row = c.run();
    if (row.ok()) {
      PrintRow(c.name, *row);
      done.emplace_back(c.name, *row);
    } else {
      std::printf("%-40s FAILED: %s\n", c.name.c_str(),
                  row.status().ToString().c_str());
      exit_code = 1;
    }
  }
  PrintSpread(done, plan.runs);
  PrintAllocations(done);
  PrintCpu(done);
  return exit_code;
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  cairn::bench::InitBenchmark(
      argc, argv, "persistence_benchmark [--quick] [--filter SUBSTRING]");
  return cairn::bench::Run(cairn::bench::ReadFlags());
}
