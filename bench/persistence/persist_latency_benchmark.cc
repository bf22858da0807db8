// Persist latency under load, beside one fdatasync of the disk (issue 19:
// "persist latency p50 / p99 / p99.9 under 1000-actor load with fsync: p99
// <= 3x one fdatasync of this disk, printed beside it").
//
// First the disk: the latency of appending 4 KiB to a file and fdatasync-ing
// it, in a directory next to the stores (TempDir::Root(): $TEST_TMPDIR,
// $TMPDIR or /tmp), N times. Then cairn: persistent actors on the RocksDB
// journal, each persisting one 8-byte Event per command. The command
// carries the steady clock at its send; the persist handler records how
// long ago that was. So the latency is the whole path: the command's wait
// in the mailbox, the write's wait for its group commit, the commit (and
// its sync), and the handler's wait to run. The first events of each actor
// are a warm-up and are not recorded. Rows:
//
//   1 actor, fsync on        closed loop: the actor sends itself its next
//                            command from its persist handler, so one
//                            write is in flight; one commit per write
//   1000 actors, fsync on    the same loop in each actor (1000 writes in
//                            flight): the target's row, its p99 printed as
//                            a multiple of the fdatasync p50
//   1000 actors, fsync off   as context: what the sync adds
//   1000 actors, fsync on,   open loop: a driver thread sends the commands
//     N/s offered            round robin at a fixed rate, well below what
//                            the journal commits, so that the latency is a
//                            write's and not a queue's; in turns with raw
//                            RocksDB under the same loop (a writer thread
//                            committing whatever is queued as one batch,
//                            persist_latency_raw.h), 3 runs each, their
//                            p50 and p99 compared run by run
//
// A StallProbe watches each offered run: on a VM, the host pausing the
// whole process (6-10 ms about every 100 ms under fsync-heavy load on the
// 2-vCPU machines here) sets the p99 of both sides; the probe's line
// prints those pauses and the CPU each side used.
//
// A closed loop of A actors committing R events/s waits A/R s per event on
// average (Little's law), whatever the disk: that row measures the journal's
// throughput under 1000 writers as much as its latency.
//
//   bazel run -c opt //bench/persistence:persist_latency_benchmark [-- --quick]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "actor/props.h"
#include "bench/persistence/open_loop.h"
#include "bench/persistence/persist_latency_raw.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/persistence/persistence_benchmark_system.h"
#include "bench/support/bench_main.h"
#include "bench/support/stall_probe.h"
#include "bench/support/statistics.h"
#include "persistence/messages.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::bench {
namespace {

using Clock = std::chrono::steady_clock;
using persistence::testing::TempDir;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "persist_latency_benchmark: %s\n", what.c_str());
  std::exit(1);
}

double Milliseconds(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// Latencies in milliseconds, sorted.
struct Latencies {
  std::vector<double> ms;

  double Percentile(double p) const { return PercentileOfSorted(ms, p); }
  double Max() const { return ms.empty() ? 0 : ms.back(); }
};

// --- The disk ---------------------------------------------------------------

// Appends 4 KiB to a new file in `dir` and fdatasyncs it, `syncs` times
// (after 10 unrecorded ones); the latency of each write + fdatasync.
Latencies MeasureFdatasync(const std::string& dir, int syncs) {
  const std::string path = dir + "/fdatasync-probe";
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (fd < 0) {
    Die("cannot create " + path + ": " + std::strerror(errno));
  }
  const std::vector<char> block(4096, 'x');
  constexpr int kWarmUp = 10;
  Latencies latencies;
  latencies.ms.reserve(syncs);
  for (int i = 0; i < kWarmUp + syncs; ++i) {
    const Clock::time_point start = Clock::now();
    std::size_t written = 0;
    while (written < block.size()) {
      const ssize_t n =
          ::write(fd, block.data() + written, block.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) Die("cannot write to " + path + ": " + std::strerror(errno));
      written += static_cast<std::size_t>(n);
    }
    if (::fdatasync(fd) != 0) {
      Die("fdatasync of " + path + " failed: " + std::strerror(errno));
    }
    if (i >= kWarmUp)
      latencies.ms.push_back(Milliseconds(Clock::now() - start));
  }
  if (::close(fd) != 0) {
    Die("cannot close " + path + ": " + std::strerror(errno));
  }
  std::sort(latencies.ms.begin(), latencies.ms.end());
  return latencies;
}

// --- cairn ------------------------------------------------------------------

// The command: persist one Event. `sent` is when it was told.
struct Write {
  Clock::time_point sent;
};

// How many events an actor persists, how many of the first are not
// recorded, and who sends the commands.
struct Loop {
  int warm_up = 0;
  int recorded = 0;
  // 0: a closed loop (each actor sends itself its next command from its
  // persist handler). Else an open one: the driver sends the commands,
  // round robin over the actors, at this many per second in all, whatever
  // the latency.
  double offered_per_second = 0;
};

// What the actors of a run report to the driver. Thread safe.
struct Progress {
  explicit Progress(int actors) : warmed_up(actors), done(actors) {}
  Countdown warmed_up;                // an actor's warm-up is over
  Countdown done;                     // an actor persisted its last event
  std::atomic<int64_t> persisted{0};  // events, every actor's
};

// Persists one Event per Write; its handler records the time since the
// Write was sent (after the warm-up) into `latencies`, then, in a closed
// loop, tells the actor the next Write, until the loop is done. `latencies` is
// this actor's alone, and read by the driver only after progress->done counted
// down.
class LoopActor final : public persistence::PersistentActor {
 public:
  LoopActor(std::string id, Loop loop, std::vector<double>* latencies,
            Progress* progress)
      : id_(std::move(id)),
        loop_(loop),
        latencies_(latencies),
        progress_(progress) {
    Command<Write>([this](const Write& write) {
      Persist(Event{persisted_},
              [this, sent = write.sent](const Event&) { OnPersisted(sent); });
    });
  }
  std::string PersistenceId() const override { return id_; }

 protected:
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override {
    Fail(cause);
  }
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload&, int64_t) override {
    Fail(cause);
  }
  void OnPersistRejected(const absl::Status& cause,
                         const serialization::Payload&, int64_t) override {
    Fail(cause);
  }

 private:
  void OnPersisted(Clock::time_point sent) {
    const double ms = Milliseconds(Clock::now() - sent);
    if (persisted_ >= loop_.warm_up) latencies_->push_back(ms);
    progress_->persisted.fetch_add(1, std::memory_order_relaxed);
    ++persisted_;
    if (persisted_ == loop_.warm_up) progress_->warmed_up.CountDown();
    if (persisted_ == loop_.warm_up + loop_.recorded) {
      progress_->done.CountDown();
    } else if (loop_.offered_per_second == 0) {
      Self().Tell(Write{Clock::now()});
    }
  }

  // Ends both waits of the driver.
  void Fail(const absl::Status& cause) {
    progress_->warmed_up.Fail(cause);
    progress_->done.Fail(cause);
  }

  const std::string id_;
  const Loop loop_;
  std::vector<double>* const latencies_;
  Progress* const progress_;
  int64_t persisted_ = 0;
};

struct LoadResult {
  Latencies latencies;
  double events_per_second = 0;
};

// `loop` as open_loop.h runs it, over `actors` streams.
OfferedLoad OfferedOf(const Loop& loop, int actors) {
  return {.streams = actors,
          .warm_up_rounds = loop.warm_up,
          .recorded_rounds = loop.recorded,
          .per_second = loop.offered_per_second};
}

// Sends the Writes of an open loop (open_loop.h): round r to every actor,
// then round r + 1. Returns when all are sent; `watch` is started and
// `before` set as round warm_up begins.
void SendOpenLoop(const std::vector<actor::ActorRef>& refs, const Loop& loop,
                  const Progress& progress, Stopwatch& watch, int64_t& before) {
  DriveOpenLoop(
      OfferedOf(loop, static_cast<int>(refs.size())),
      [&] {
        watch = Stopwatch();
        before = progress.persisted.load();
      },
      [&](int actor, int, Clock::time_point stamp) {
        refs[actor].Tell(Write{stamp});
      });
}

// `actors` actors on a new store (in a new TempDir), each looping through
// `loop`; their recorded latencies merged, and the rate from the end of the
// warm-up to the end of the run (the first recovery, which opens the store,
// left out). Closed loop: from when the last actor ended its warm-up; open
// loop: from when the driver began the first recorded round.
LoadResult MeasurePersist(int actors, Loop loop, bool fsync) {
  absl::StatusOr<TempDir> dir = TempDir::Make("cairn-persist-latency");
  if (!dir.ok()) Die(dir.status().ToString());
  // Outlive the system, whose actors write into them.
  std::vector<std::vector<double>> per_actor(actors);
  for (std::vector<double>& v : per_actor) v.reserve(loop.recorded);
  Progress progress(actors);
  double seconds = 0;
  int64_t measured = 0;
  {
    absl::StatusOr<std::unique_ptr<BenchSystem>> bench =
        BenchSystem::Start(dir->path(), fsync);
    if (!bench.ok()) Die(bench.status().ToString());
    actor::ActorSystem& system = (*bench)->system();
    std::vector<actor::ActorRef> refs;
    refs.reserve(actors);
    for (int i = 0; i < actors; ++i) {
      refs.push_back(system.ActorOf(actor::Props::Create<LoopActor>(
          BenchPersistenceId(i), loop, &per_actor[i], &progress)));
    }
    Stopwatch watch;
    int64_t before = 0;
    if (loop.offered_per_second == 0) {
      for (const actor::ActorRef& ref : refs) ref.Tell(Write{Clock::now()});
      if (absl::Status s = progress.warmed_up.Wait(); !s.ok()) {
        Die(s.ToString());
      }
      watch = Stopwatch();
      before = progress.persisted.load();
    } else {
      SendOpenLoop(refs, loop, progress, watch, before);
    }
    if (absl::Status s = progress.done.Wait(); !s.ok()) Die(s.ToString());
    seconds = watch.Seconds();
    measured = progress.persisted.load() - before;
  }
  LoadResult result;
  result.events_per_second = static_cast<double>(measured) / seconds;
  result.latencies.ms.reserve(static_cast<std::size_t>(actors) * loop.recorded);
  for (const std::vector<double>& v : per_actor) {
    result.latencies.ms.insert(result.latencies.ms.end(), v.begin(), v.end());
  }
  std::sort(result.latencies.ms.begin(), result.latencies.ms.end());
  return result;
}

// "p50 0.152 ms  p99 ..." for a row.
std::string Percentiles(const Latencies& l) {
  char text[160];
  std::snprintf(
      text, sizeof text, "p50 %.3f ms  p99 %.3f ms  p99.9 %.3f ms  max %.3f ms",
      l.Percentile(0.5), l.Percentile(0.99), l.Percentile(0.999), l.Max());
  return text;
}

// A row: its name, percentiles, rate and p99 against the disk's
// fdatasync p50 (with fsync on), and `target` if not empty.
void PrintRow(const std::string& name, const Latencies& latencies,
              double events_per_second, bool fsync, double sync_p50,
              const std::string& target) {
  std::printf("%-46s %s  ev/s %.0f", name.c_str(),
              Percentiles(latencies).c_str(), events_per_second);
  if (fsync) {
    std::printf("  p99/fdatasync-p50 %.1fx",
                latencies.Percentile(0.99) / sync_p50);
    if (!target.empty()) std::printf(" (target %s)", target.c_str());
  }
  std::printf("\n");
}

// One side's runs of the offered row.
struct SideRuns {
  Latencies all;  // every run's samples, sorted once all are in
  std::vector<double> p50;
  std::vector<double> p99;
  std::vector<double> rates;
  Stalls stalls;  // every run's, summed

  void Add(std::vector<double> ms, double rate, const Stalls& seen) {
    std::sort(ms.begin(), ms.end());
    p50.push_back(PercentileOfSorted(ms, 0.5));
    p99.push_back(PercentileOfSorted(ms, 0.99));
    rates.push_back(rate);
    all.ms.insert(all.ms.end(), ms.begin(), ms.end());
    stalls.count += seen.count;
    stalls.total_ms += seen.total_ms;
    stalls.longest_ms = std::max(stalls.longest_ms, seen.longest_ms);
    stalls.seconds += seen.seconds;
    stalls.cpu_seconds += seen.cpu_seconds;
  }
};

// "2.1x 1.9x 2.4x": the median, fewest and most of cairn's figure over
// raw's, run by run.
std::string RatioSpread(const std::vector<double>& cairn,
                        const std::vector<double>& raw) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < cairn.size() && i < raw.size(); ++i) {
    ratios.push_back(raw[i] > 0 ? cairn[i] / raw[i] : 0);
  }
  const Spread spread = SpreadOf(ratios);
  char text[64];
  std::snprintf(text, sizeof text, "%.2fx %.2fx %.2fx", spread.median,
                spread.min, spread.max);
  return text;
}

// "CPU 1.21 cores, stalls 9.5 a second, 61 ms a second, longest 10.2 ms".
std::string StallRates(const Stalls& stalls) {
  const double seconds = std::max(stalls.seconds, 1e-9);
  char text[128];
  std::snprintf(text, sizeof text,
                "CPU %.2f cores, stalls %.1f a second, %.0f ms a second, "
                "longest %.1f ms",
                stalls.cpu_seconds / seconds, stalls.count / seconds,
                stalls.total_ms / seconds, stalls.longest_ms);
  return text;
}

// The offered row: cairn's actors and raw RocksDB (persist_latency_raw.h)
// under the same open loop, in turns, `runs` times each, each run
// watched by a StallProbe. Prints both rows (every run's samples merged),
// cairn's p50 and p99 over raw's run by run, and the stalls each side's
// runs saw.
void MeasureOffered(int actors, const Loop& loop, int runs, double sync_p50) {
  SideRuns cairn;
  SideRuns raw;
  const OfferedLoad load = OfferedOf(loop, actors);
  for (int run = 0; run < runs; ++run) {
    {
      StallProbe probe;
      LoadResult result = MeasurePersist(actors, loop, /*fsync=*/true);
      const Stalls stalls = probe.Stop();
      cairn.Add(std::move(result.latencies.ms), result.events_per_second,
                stalls);
    }
    absl::StatusOr<TempDir> dir = TempDir::Make("cairn-persist-latency-raw");
    if (!dir.ok()) Die(dir.status().ToString());
    StallProbe probe;
    absl::StatusOr<OfferedRun> result =
        RunRawOfferedLoad(dir->path(), load, /*fsync=*/true);
    const Stalls stalls = probe.Stop();
    if (!result.ok()) Die(result.status().ToString());
    raw.Add(std::move(result->latencies_ms), result->events_per_second, stalls);
  }
  std::sort(cairn.all.ms.begin(), cairn.all.ms.end());
  std::sort(raw.all.ms.begin(), raw.all.ms.end());
  const std::string offered =
      absl::StrFormat(", fsync on, %.0f/s offered", loop.offered_per_second);
  PrintRow(absl::StrCat("Persist, ", actors, " actors", offered), cairn.all,
           SpreadOf(cairn.rates).median, true, sync_p50, "<= 3x");
  PrintRow(absl::StrCat("raw RocksDB, ", actors, " streams", offered), raw.all,
           SpreadOf(raw.rates).median, true, sync_p50, "");
  std::printf(
      "  cairn/raw of each of %d runs (median, fewest, most): p50 %s  p99 %s\n",
      runs, RatioSpread(cairn.p50, raw.p50).c_str(),
      RatioSpread(cairn.p99, raw.p99).c_str());
  std::printf(
      "  while they ran (stalls: a sleeping thread woken over 1 ms late): "
      "cairn %s; raw %s\n",
      StallRates(cairn.stalls).c_str(), StallRates(raw.stalls).c_str());
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  using namespace cairn::bench;
  cairn::bench::InitBenchmark(argc, argv,
                              "persist_latency_benchmark [--quick]");
  const bool quick = cairn::bench::Quick();
  const int syncs = quick ? 200 : 2'000;
  const int actors = quick ? 100 : 1'000;
  const Loop many{.warm_up = quick ? 5 : 20, .recorded = quick ? 50 : 300};
  const Loop one{.warm_up = 20, .recorded = quick ? 200 : 2'000};
  // About a tenth of what 1000 actors in a closed loop commit (fsync on) on
  // a quiet machine: the latency of a write that does not queue behind a
  // saturated journal.
  const Loop open{.warm_up = quick ? 2 : 5,
                  .recorded = quick ? 10 : 40,
                  .offered_per_second = quick ? 5'000.0 : 20'000.0};

  std::printf("cores: %u; files and stores under %s\n",
              std::thread::hardware_concurrency(), TempDir::Root().c_str());
  std::printf(
      "each actor: one Persist of an 8-byte event per command, the next "
      "command sent from its persist handler (closed loop) or by a driver "
      "at a fixed rate (offered); latency from the command's send to the "
      "persist handler\n");

  Latencies disk;
  {
    absl::StatusOr<TempDir> dir = TempDir::Make("cairn-fdatasync");
    if (!dir.ok()) Die(dir.status().ToString());
    disk = MeasureFdatasync(dir->path(), syncs);
  }
  std::printf("%-46s %s\n", "fdatasync (4 KiB append)",
              Percentiles(disk).c_str());
  const double sync_p50 = disk.Percentile(0.5);

  for (const auto& [row_actors, loop, fsync] :
       {std::tuple{1, one, true}, std::tuple{actors, many, true},
        std::tuple{actors, many, false}}) {
    const LoadResult result = MeasurePersist(row_actors, loop, fsync);
    PrintRow(absl::StrCat("Persist, ", row_actors, " actor",
                          row_actors == 1 ? "" : "s", ", fsync ",
                          fsync ? "on" : "off"),
             result.latencies, result.events_per_second, fsync, sync_p50,
             row_actors == actors ? "<= 3x" : "");
  }
  MeasureOffered(actors, open, quick ? 1 : 3, sync_p50);
  return 0;
}
