// Memory while one long stream replays (issue 19: "replaying one 10M-event
// stream keeps the process under 100 MB above its state"). One persistent
// actor whose state is a count recovers a stream of N events from RocksDB;
// the benchmark prints the replay's rate and the peak heap above what was
// in use when it started (the store already open). Replay is
// flow-controlled (replay-batch-size), so the figure should not grow with
// N: before that, every event became a mailbox message at once.
//
//   bazel run -c opt //bench/persistence:replay_memory_benchmark [-- --quick]
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "actor/props.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/persistence/persistence_benchmark_system.h"
#include "bench/support/bench_main.h"
#include "bench/support/peak_heap.h"
#include "persistence/messages.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::bench {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "replay_memory_benchmark: %s\n", what.c_str());
  std::exit(1);
}

constexpr char kStreamId[] = "long-stream";

// Events per PersistAll while filling the stream.
constexpr int64_t kFillBatch = 10'000;

// On an int command, persists kFillBatch events and counts down once they
// are written. Counts the events it recovers, and counts down when its
// recovery completes.
class Stream final : public persistence::PersistentActor {
 public:
  Stream(std::string id, Countdown* written, Countdown* recovered)
      : id_(std::move(id)), written_(written), recovered_(recovered) {
    Recover<Event>([this](const Event&) { ++count_; });
    Recover<persistence::RecoveryCompleted>(
        [this](const persistence::RecoveryCompleted&) {
          if (recovered_ != nullptr) recovered_->CountDown();
        });
    Command<int>([this](int) {
      std::vector<Event> events(kFillBatch, Event{1});
      PersistAll(std::move(events), [this](const Event&) {
        // The stream is a whole number of batches.
        if (++count_ % kFillBatch == 0) written_->CountDown();
      });
    });
  }
  std::string PersistenceId() const override { return id_; }

 protected:
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override {
    (recovered_ != nullptr ? recovered_ : written_)->Fail(cause);
  }
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload&, int64_t) override {
    written_->Fail(cause);
  }

 private:
  const std::string id_;
  Countdown* const written_;
  Countdown* const recovered_;
  int64_t count_ = 0;
};

void Fill(const std::string& dir, int64_t events) {
  auto bench = BenchSystem::Start(dir, /*fsync=*/false);
  if (!bench.ok()) Die(bench.status().ToString());
  const int64_t batches = events / kFillBatch;
  Countdown written(batches);
  actor::ActorRef stream = (*bench)->system().ActorOf(
      actor::Props::Create<Stream>(kStreamId, &written, nullptr));
  // The commands wait in the actor's stash while each PersistAll is written.
  for (int64_t i = 0; i < batches; ++i) stream.Tell(0);
  if (absl::Status s = written.Wait(); !s.ok()) Die(s.ToString());
}

struct Replay {
  double seconds = 0;
  long peak_bytes = 0;
};

Replay Recover(const std::string& dir) {
  auto bench = BenchSystem::Start(dir, /*fsync=*/false);
  if (!bench.ok()) Die(bench.status().ToString());
  actor::ActorSystem& system = (*bench)->system();
  Countdown unused(0);
  {
    // Opens the store (RocksDB reads its log into memory then), so that
    // the heap figure is the replay's and not the store's.
    Countdown warm(1);
    system.ActorOf(actor::Props::Create<Stream>("warm-up", &unused, &warm));
    if (absl::Status s = warm.Wait(); !s.ok()) Die(s.ToString());
  }
  Replay replay;
  const long before = HeapInUse();
  PeakHeap peak;
  const Stopwatch watch;
  Countdown recovered(1);
  system.ActorOf(actor::Props::Create<Stream>(kStreamId, &unused, &recovered));
  if (absl::Status s = recovered.Wait(); !s.ok()) Die(s.ToString());
  replay.seconds = watch.Seconds();
  replay.peak_bytes = peak.Stop() - before;
  return replay;
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  using namespace cairn::bench;
  cairn::bench::InitBenchmark(argc, argv, "replay_memory_benchmark [--quick]");
  const bool quick = cairn::bench::Quick();
  absl::StatusOr<cairn::persistence::testing::TempDir> temp =
      cairn::persistence::testing::TempDir::Make("cairn-replay-memory");
  if (!temp.ok()) Die(temp.status().ToString());
  const std::string& dir = temp->path();

  std::printf(
      "one persistent actor replays one stream (RocksDB, 8-byte "
      "events, replay-batch-size at its default)\n");
  std::printf("%-26s %12s %14s\n", "stream", "events/s", "peak heap");
  int64_t written = 0;
  for (int64_t events : quick ? std::vector<int64_t>{100'000, 200'000}
                              : std::vector<int64_t>{1'000'000, 10'000'000}) {
    Fill(dir, events - written);  // the stream grows to `events`
    written = events;
    const Replay replay = Recover(dir);
    char name[32];
    std::snprintf(name, sizeof name, "%lld events",
                  static_cast<long long>(events));
    char heap[32];
    std::snprintf(heap, sizeof heap, "+%.1f MB",
                  static_cast<double>(replay.peak_bytes) / 1e6);
    std::printf("%-26s %12.0f %14s\n", name,
                static_cast<double>(events) / replay.seconds, heap);
  }
  return 0;
}
