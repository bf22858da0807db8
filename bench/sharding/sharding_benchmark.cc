// Entity hosting (sharding/) and routers (actor/routing): what a region
// and a round-robin pool cost next to telling the actors directly, and the
// memory of many entities under an active limit. Issue 18's targets:
// region >= 0.7x and pool >= 0.8x of direct Tell; memory bounded by the
// limit, not by the number of entities touched.
//
//   bazel run -c opt //bench/sharding:sharding_benchmark [-- --quick]
//
// 1. Messages to already active entities: the same entity actors, told
//    through the region (ShardingEnvelope, EnvelopeExtractor) or directly
//    (ActorRef::Tell from the sending thread). Ratio region/direct.
// 2. The same through a RoundRobinPool of as many routees. Ratio
//    pool/direct.
// 3. N distinct entities touched once each with an active-entity limit:
//    the rate of entity creation plus passivation, and the peak of heap
//    bytes in use (bench::HeapInUse, sampled every millisecond) above what was
//    in use before, against the same with no limit. Sent in bursts of 10,000
//    (each handled before the next), so the figure is the entities', not
//    a backlog in the region's mailbox.
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
#include "actor/routing/router_config.h"
#include "base/mutex.h"
#include "bench/support/bench_main.h"
#include "bench/support/peak_heap.h"
#include "sharding/entity_region.h"

namespace cairn::bench {
namespace {

using actor::ActorRef;
using actor::AnyMessage;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Counts messages over all entities; opens when `target` arrived.
class Countdown {
 public:
  explicit Countdown(int64_t target) : left_(target) {}
  void One() {
    if (left_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      base::MutexLock lock(&mu_);
      done_ = true;
      cv_.SignalAll();
    }
  }
  void Wait() {
    base::MutexLock lock(&mu_);
    while (!done_) cv_.Wait(&mu_);
  }

 private:
  std::atomic<int64_t> left_;
  base::Mutex mu_;
  base::CondVar cv_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
};

// Counts into the countdown current when a message arrives.
class Counter final : public actor::Actor {
 public:
  explicit Counter(std::atomic<Countdown*>* current) {
    Receive<int>([current](int) { current->load()->One(); });
  }
};

std::unique_ptr<actor::ActorSystem> NewSystem() {
  auto system = actor::ActorSystem::Create("bench");
  if (!system.ok()) {
    std::fprintf(stderr, "%s\n", system.status().ToString().c_str());
    std::exit(1);
  }
  return *std::move(system);
}

sharding::EntityRegionSettings Settings(std::size_t limit) {
  sharding::EntityRegionSettings s;
  s.passivate_idle_entity_after = absl::ZeroDuration();
  s.active_entity_limit = limit;
  return s;
}

enum class Via { kRegion, kPool, kDirect };

// Rows 1 and 2, one side: `messages` over `entities`, through the region,
// a round-robin pool or directly, after one message to each (which creates
// the region's entities).
double ActiveEntities(Via via, int entities, int64_t messages) {
  std::unique_ptr<actor::ActorSystem> system = NewSystem();
  Countdown warm(entities);
  Countdown count(messages);
  std::atomic<Countdown*> current{&warm};
  std::vector<std::string> ids;
  for (int i = 0; i < entities; ++i) ids.push_back("e" + std::to_string(i));
  std::vector<ActorRef> direct;
  ActorRef region;
  ActorRef pool;
  if (via == Via::kRegion) {
    region = sharding::EntityRegion::Start(
        *system, "bench",
        [&current](const std::string&) {
          return actor::Props::Create<Counter>(&current);
        },
        Settings(0), std::make_shared<sharding::EnvelopeExtractor>());
  } else if (via == Via::kPool) {
    pool = system->ActorOf(actor::routing::RoundRobinPool(entities).Props(
        actor::Props::Create<Counter>(&current)));
  } else {
    for (int i = 0; i < entities; ++i) {
      direct.push_back(
          system->ActorOf(actor::Props::Create<Counter>(&current)));
    }
  }
  const AnyMessage one = AnyMessage::Of(1);
  auto send = [&](int i) {
    if (via == Via::kRegion) {
      region.Tell(sharding::ShardingEnvelope{ids[i], one});
    } else if (via == Via::kPool) {
      pool.Tell(1);  // the pool picks the routee, round robin
    } else {
      direct[i].Tell(1);
    }
  };
  for (int i = 0; i < entities; ++i) send(i);
  warm.Wait();
  current = &count;
  const auto start = Clock::now();
  for (int64_t m = 0; m < messages; ++m) send(static_cast<int>(m % entities));
  count.Wait();
  const double rate = static_cast<double>(messages) / Seconds(start);
  system->Terminate().wait();
  return rate;
}

struct Touched {
  double rate = 0;      // entities created (and passivated) per second
  long peak_bytes = 0;  // heap in use at the peak, above the start
};

// Row 2, one side: `entities` distinct entities touched once, sent in
// bursts of kBurst, each handled before the next is sent, so that what is
// measured is the entities, not a backlog of messages in the region's
// mailbox (which any actor sent a flood would hold).
constexpr int64_t kBurst = 10'000;

Touched TouchOnce(int64_t entities, std::size_t limit) {
  std::unique_ptr<actor::ActorSystem> system = NewSystem();
  std::atomic<Countdown*> current{nullptr};
  ActorRef region = sharding::EntityRegion::Start(
      *system, "bench",
      [&current](const std::string&) {
        return actor::Props::Create<Counter>(&current);
      },
      Settings(limit), std::make_shared<sharding::EnvelopeExtractor>());
  const long before = HeapInUse();
  PeakHeap peak;
  const AnyMessage one = AnyMessage::Of(1);
  const auto start = Clock::now();
  for (int64_t from = 0; from < entities; from += kBurst) {
    const int64_t to = std::min(entities, from + kBurst);
    Countdown burst(to - from);
    current = &burst;
    for (int64_t i = from; i < to; ++i) {
      region.Tell(sharding::ShardingEnvelope{"e" + std::to_string(i), one});
    }
    burst.Wait();
  }
  Touched t;
  t.rate = static_cast<double>(entities) / Seconds(start);
  t.peak_bytes = peak.Stop() - before;
  system->Terminate().wait();
  return t;
}

std::string Mb(long bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  using namespace cairn::bench;
  cairn::bench::InitBenchmark(argc, argv, "sharding_benchmark [--quick]");
  const bool quick = cairn::bench::Quick();
  const int entities = quick ? 100 : 1000;
  const int64_t messages = quick ? 20'000 : 2'000'000;
  const int64_t touched = quick ? 20'000 : 1'000'000;
  const std::size_t limit = quick ? 2'000 : 100'000;
  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  std::printf("%-50s %12s %12s %7s\n", "case", "via ev/s", "direct ev/s",
              "ratio");
  // Best of 3, taking turns.
  double region = 0, pool = 0, direct = 0;
  for (int run = 0; run < 3; ++run) {
    region = std::max(region, ActiveEntities(Via::kRegion, entities, messages));
    pool = std::max(pool, ActiveEntities(Via::kPool, entities, messages));
    direct = std::max(direct, ActiveEntities(Via::kDirect, entities, messages));
  }
  char name[64];
  std::snprintf(name, sizeof name, "Tell to %d active entities", entities);
  std::printf("%-50s %12.0f %12.0f %6.2fx\n", name, region, direct,
              region / direct);
  std::snprintf(name, sizeof name, "Tell to a round-robin pool of %d",
                entities);
  std::printf("%-50s %12.0f %12.0f %6.2fx\n", name, pool, direct,
              pool / direct);

  Touched limited = TouchOnce(touched, limit);
  Touched unlimited = TouchOnce(touched, 0);
  std::printf("\n%lld entities touched once:\n",
              static_cast<long long>(touched));
  std::printf("  %-36s %12.0f entities/s, peak heap +%s\n",
              ("active-entity-limit " + std::to_string(limit)).c_str(),
              limited.rate, Mb(limited.peak_bytes).c_str());
  std::printf("  %-36s %12.0f entities/s, peak heap +%s\n", "no limit",
              unlimited.rate, Mb(unlimited.peak_bytes).c_str());
  return 0;
}
