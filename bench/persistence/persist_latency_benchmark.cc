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
//                            write's and not a queue's
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
#include <utility>
#include <vector>

#include "actor/props.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/persistence/persistence_benchmark_system.h"
#include "bench/support/bench_main.h"
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

// Sends the Writes of an open loop: round r to every actor, then round
// r + 1, one Write every 1/offered_per_second, on time when it can (late
// ones go at once, each stamped when it is sent). Returns when all are
// sent; `watch` is started and `before` set as round warm_up begins.
void SendOpenLoop(const std::vector<actor::ActorRef>& refs, const Loop& loop,
                  const Progress& progress, Stopwatch& watch, int64_t& before) {
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1 / loop.offered_per_second));
  const Clock::time_point start = Clock::now();
  int64_t n = 0;
  for (int round = 0; round < loop.warm_up + loop.recorded; ++round) {
    if (round == loop.warm_up) {
      watch = Stopwatch();
      before = progress.persisted.load();
    }
    for (const actor::ActorRef& ref : refs) {
      const Clock::time_point due = start + n++ * period;
      if (Clock::now() < due) std::this_thread::sleep_until(due);
      ref.Tell(Write{Clock::now()});
    }
  }
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

  struct Row {
    int actors;
    Loop loop;
    bool fsync;
  };
  for (const Row& row : {Row{1, one, true}, Row{actors, many, true},
                         Row{actors, many, false}, Row{actors, open, true}}) {
    const LoadResult result = MeasurePersist(row.actors, row.loop, row.fsync);
    char name[80];
    int length = std::snprintf(
        name, sizeof name, "Persist, %d actor%s, fsync %s", row.actors,
        row.actors == 1 ? "" : "s", row.fsync ? "on" : "off");
    if (row.loop.offered_per_second != 0) {
      std::snprintf(name + length, sizeof name - length, ", %.0f/s offered",
                    row.loop.offered_per_second);
    }
    std::printf("%-46s %s  ev/s %.0f", name,
                Percentiles(result.latencies).c_str(),
                result.events_per_second);
    if (row.fsync) {
      std::printf("  p99/fdatasync-p50 %.1fx",
                  result.latencies.Percentile(0.99) / sync_p50);
      if (row.actors == actors) std::printf(" (target <= 3x)");
    }
    std::printf("\n");
  }
  return 0;
}
