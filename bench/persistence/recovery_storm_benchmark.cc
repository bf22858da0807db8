// A recovery storm: N persistent actors with E events each in RocksDB, all
// sent a command at once, so that all recover together (issue 18: "a
// recovery storm (100k entities addressed at once) does not exhaust memory
// or starve other actors"). Side by side:
//
//   direct         each actor started with ActorOf and told its command
//   region         the same actors as the entities of an EntityRegion
//   region, limit  the same with an active-entity limit of N/10
//
// For each: the time until every actor has recovered and persisted its
// command's event (actors per second; ratio against direct), the peak heap
// above what was in use before (the store already open), and how long
// another actor took to answer
// a ping sent every millisecond meanwhile (p50 / p99 / max): what the
// storm does to everything else. Recoveries go through the recovery
// permits (akka.persistence.max-concurrent-recoveries, 50).
//
//   bazel run -c opt //bench/persistence:recovery_storm_benchmark [-- --quick]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "base/mutex.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/persistence/persistence_benchmark_system.h"
#include "bench/persistence/stored_entity.h"
#include "bench/support/bench_main.h"
#include "bench/support/peak_heap.h"
#include "bench/support/statistics.h"
#include "persistence/messages.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/testing/temp_dir.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

namespace cairn::bench {
namespace {

using actor::ActorRef;
using actor::AnyMessage;
using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "recovery_storm_benchmark: %s\n", what.c_str());
  std::exit(1);
}

// How long each ping waited; shared by the Pinger and its Echo, so that
// pings still queued for the Echo when the Pinger stops (and is gone)
// record into something that exists.
struct PingWaits {
  base::Mutex mu;
  std::vector<double> ms ABSL_GUARDED_BY(mu);
};

// Answers a ping (its send time) by recording how long it took.
class Echo final : public actor::Actor {
 public:
  explicit Echo(std::shared_ptr<PingWaits> waits) {
    Receive<Clock::time_point>([waits](const Clock::time_point& sent) {
      const double ms =
          std::chrono::duration<double, std::milli>(Clock::now() - sent)
              .count();
      base::MutexLock lock(&waits->mu);
      waits->ms.push_back(ms);
    });
  }
};

// Pings an Echo actor every millisecond while it lives.
class Pinger {
 public:
  explicit Pinger(actor::ActorSystem& system)
      : echo_(system.ActorOf(actor::Props::Create<Echo>(waits_))) {
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        echo_.Tell(Clock::now());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  // Stops pinging; the waits recorded so far, sorted.
  std::vector<double> Stop() {
    stop_ = true;
    thread_.join();
    std::vector<double> sorted;
    {
      base::MutexLock lock(&waits_->mu);
      sorted = waits_->ms;
    }
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  }

 private:
  const std::shared_ptr<PingWaits> waits_ = std::make_shared<PingWaits>();
  ActorRef echo_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

enum class Host { kDirect, kRegion, kRegionLimited };

struct Storm {
  double seconds = 0;
  long peak_bytes = 0;
  std::vector<double> ping_ms;  // sorted
};

Storm RunStorm(const std::string& dir, int64_t actors, Host host) {
  auto bench = BenchSystem::Start(dir, /*fsync=*/false);
  if (!bench.ok()) Die(bench.status().ToString());
  actor::ActorSystem& system = (*bench)->system();
  Countdown done(actors);
  ActorRef region;
  if (host != Host::kDirect) {
    sharding::EntityRegionSettings settings;
    settings.passivate_idle_entity_after = absl::ZeroDuration();
    // "region" has no limit (the default is 100,000, off here explicitly).
    settings.active_entity_limit = host == Host::kRegionLimited
                                       ? static_cast<std::size_t>(actors / 10)
                                       : 0;
    region = sharding::EntityRegion::Start(
        system, "storm",
        [&done](const std::string& id) {
          return actor::Props::Create<StoredEntity>(id, &done);
        },
        settings, std::make_shared<sharding::EnvelopeExtractor>());
  }
  {
    // Opens the store (RocksDB reads its log into memory then), so that
    // the heap figure is the actors' and not the store's.
    Countdown warm(1);
    system.ActorOf(actor::Props::Create<StoredEntity>("warm-up", &warm))
        .Tell(Add{});
    if (absl::Status s = warm.Wait(); !s.ok()) Die(s.ToString());
  }
  Pinger pinger(system);
  const long before = HeapInUse();
  PeakHeap peak;
  const Stopwatch watch;
  const AnyMessage add = AnyMessage::Of(Add{});
  for (int64_t i = 0; i < actors; ++i) {
    if (host == Host::kDirect) {
      system
          .ActorOf(
              actor::Props::Create<StoredEntity>(BenchPersistenceId(i), &done))
          .Tell(Add{});
    } else {
      region.Tell(sharding::ShardingEnvelope{BenchPersistenceId(i), add});
    }
  }
  if (absl::Status s = done.Wait(); !s.ok()) Die(s.ToString());
  Storm storm;
  storm.seconds = watch.Seconds();
  storm.peak_bytes = peak.Stop() - before;
  storm.ping_ms = pinger.Stop();
  return storm;
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  using namespace cairn::bench;
  cairn::bench::InitBenchmark(argc, argv, "recovery_storm_benchmark [--quick]");
  const bool quick = cairn::bench::Quick();
  const int64_t actors = quick ? 5'000 : 100'000;
  const int events = 10;
  absl::StatusOr<cairn::persistence::testing::TempDir> temp =
      cairn::persistence::testing::TempDir::Make("cairn-recovery-storm");
  if (!temp.ok()) Die(temp.status().ToString());
  const std::string& dir = temp->path();

  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  std::printf(
      "%lld persistent actors x %d events, all sent a command at "
      "once (RocksDB, fsync off)\n",
      static_cast<long long>(actors), events);
  if (absl::Status s = FillStoredEntities(dir, actors, events); !s.ok()) {
    Die(s.ToString());
  }
  std::printf("%-28s %12s %7s %12s %28s\n", "host", "actors/s", "ratio",
              "peak heap", "ping wait p50/p99/max ms");
  double direct_rate = 0;
  for (auto [host, name] :
       {std::pair{Host::kDirect, "direct (ActorOf)"},
        std::pair{Host::kRegion, "region"},
        std::pair{Host::kRegionLimited, "region, limit N/10"}}) {
    const Storm storm = RunStorm(dir, actors, host);
    const double rate = static_cast<double>(actors) / storm.seconds;
    if (host == Host::kDirect) direct_rate = rate;
    char heap[32];
    std::snprintf(heap, sizeof heap, "+%.1f MB",
                  static_cast<double>(storm.peak_bytes) / 1e6);
    std::printf("%-28s %12.0f %6.2fx %12s %12.1f/%.1f/%.1f\n", name, rate,
                rate / direct_rate, heap,
                PercentileOfSorted(storm.ping_ms, 0.5),
                PercentileOfSorted(storm.ping_ms, 0.99),
                storm.ping_ms.empty() ? 0.0 : storm.ping_ms.back());
  }
  return 0;
}
