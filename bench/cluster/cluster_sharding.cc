// Sharding across processes on 127.0.0.1, each process a cluster member
// with its members and leases in PostgreSQL (issue 34's targets):
//
//   throughput   the driver (A) sends 100-byte messages, 1000 of them
//                unacknowledged at most, each acknowledged by the far
//                actor: through A's proxy to entities all hosted in B, and
//                by direct remote Tell to B's plain actors (the same
//                class, count, window and payload). Ratio region/direct
//                (goal >= 0.8x): the median of --runs runs each, the two
//                taking turns to go first, with the least and the most.
//   takeover     B hosts 100 entities that A keeps probing, C hosts the
//                same type; kill -9 of B, until each entity answers from
//                C: p50 and max over the entities, with the lease ttl.
//   hand-off     the same with 1000 active entities and SIGTERM: B leaves
//                (coordinated shutdown hands its shards off).
//
// The far processes are this program with --serve=TYPE. Entities are
// plain actors (nothing to recover): the takeover is the lease's and the
// membership's. A fresh schema per run of the benchmark, dropped at its
// end.
//
//   bazel run -c opt //bench/cluster:cluster_sharding -- --postgres URL
//   ... -- --postgres URL --runs 9 --lease_ttl_seconds 5
//   (or CAIRN_BENCH_POSTGRES_URL=URL; without either it says it needs one
//   and exits 0)
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_selection.h"
#include "actor/ask.h"
#include "actor/props.h"
#include "bench/cluster/cluster_bench.pb.h"
#include "bench/cluster/die.h"
#include "bench/cluster/drop_schema.h"
#include "bench/cluster/entity.h"
#include "bench/cluster/member_system.h"
#include "bench/cluster/node.h"
#include "bench/cluster/node_process.h"
#include "bench/cluster/prober.h"
#include "bench/cluster/window_sender.h"
#include "bench/support/bench_main.h"
#include "bench/support/statistics.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

ABSL_FLAG(std::string, postgres, "",
          "the PostgreSQL server the members share (a libpq URL); default: "
          "$CAIRN_BENCH_POSTGRES_URL");
ABSL_FLAG(int, runs, 5, "throughput runs of each row (--quick: 1)");
ABSL_FLAG(int, lease_ttl_seconds, 10,
          "the leases' and members' time to live (--quick: 2)");
ABSL_FLAG(std::string, serve, "",
          "internal: be a node hosting this entity type (the benchmark "
          "starts it)");
ABSL_FLAG(std::string, schema, "",
          "internal: the node's schema (the benchmark gives it)");

namespace cairn::bench::cluster {
namespace {

using actor::ActorRef;
using actor::ActorSystem;

struct Plan {
  int64_t messages;  // per throughput run
  int window;
  int runs;
  int takeover_entities;
  int handoff_entities;
};

// Waits until `proxy` knows exactly the regions of `hosts`: where free
// shards go.
void AwaitRegions(const ActorRef& proxy, const std::set<std::string>& hosts) {
  const absl::Time deadline = absl::Now() + absl::Minutes(1);
  while (true) {
    sharding::CurrentRegions current;
    try {
      current = actor::Ask<sharding::CurrentRegions>(
                    proxy, sharding::GetCurrentRegions{}, absl::Seconds(10))
                    .get();
    } catch (const std::exception& e) {
      Die(std::string("GetCurrentRegions: ") + e.what());
    }
    std::set<std::string> known;
    for (const actor::Address& a : current.regions) known.insert(a.ToString());
    if (known == hosts) return;
    if (absl::Now() > deadline) {
      Die("the proxy does not know the regions of the nodes in a minute");
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
}

ActorRef Resolve(ActorSystem& system, const std::string& path) {
  try {
    return system.ActorSelection(path).ResolveOne(absl::Seconds(20)).get();
  } catch (const std::exception& e) {
    Die("cannot reach " + path + ": " + e.what());
  }
}

void PrintRate(const std::string& name, const Spread& s) {
  std::printf("%-48s %10.0f msg/s   %.0f-%.0f\n", name.c_str(), s.median, s.min,
              s.max);
}

void Throughput(ActorSystem& system, const ClusterOptions& options,
                const Plan& plan) {
  const std::string type = "throughput";
  ActorRef proxy = sharding::EntityRegion::StartProxy(
      system, type, RegionSettings(options), Extractor());
  NodeProcess b(options, type);
  AwaitRegions(proxy, {b.address()});
  std::vector<ActorRef> echoes;
  for (int i = 0; i < kTargets; ++i) {
    echoes.push_back(
        Resolve(system, absl::StrCat(b.address(), "/user/echo-", i)));
  }
  const Route via_region = [proxy](int64_t i, const Work& work) {
    proxy.Tell(sharding::ShardingEnvelope{EntityId(i % kTargets),
                                          actor::AnyMessage::Of(work)});
  };
  const Route direct = [echoes](int64_t i, const Work& work) {
    echoes[static_cast<size_t>(i % kTargets)].Tell(work);
  };
  // Connections made, entities started, code paths warm: not measured.
  MeasureRate(system, via_region, plan.messages / 10 + kTargets, plan.window,
              b.address());
  MeasureRate(system, direct, plan.messages / 10 + kTargets, plan.window,
              b.address());
  std::vector<double> region_rates;
  std::vector<double> direct_rates;
  for (int run = 0; run < plan.runs; ++run) {
    // Taking turns to go first: neither always meets a machine the other
    // has just warmed or disturbed.
    for (int turn = 0; turn < 2; ++turn) {
      if ((run + turn) % 2 == 0) {
        region_rates.push_back(MeasureRate(system, via_region, plan.messages,
                                           plan.window, b.address()));
      } else {
        direct_rates.push_back(MeasureRate(system, direct, plan.messages,
                                           plan.window, b.address()));
      }
    }
  }
  system.Stop(proxy);
  const Spread region = SpreadOf(region_rates);
  const Spread plain = SpreadOf(direct_rates);
  std::printf(
      "throughput: %lld messages of %d bytes per run, %d unacknowledged at "
      "most, %d entities; %d run(s): the median, then the least and the "
      "most\n",
      static_cast<long long>(plan.messages), kPayloadBytes, plan.window,
      kTargets, plan.runs);
  PrintRate("Tell through A's proxy to entities in B", region);
  PrintRate("direct remote Tell to B's actors", plain);
  std::printf("%-48s %10.2fx         (goal >= 0.8x)\n", "region / direct",
              region.median / plain.median);
}

// B hosts `entities` probed by A; C runs; B is sent `signal`. The times
// from the signal until each entity answered from C, in ms, sorted.
std::vector<double> MeasureMove(ActorSystem& system,
                                const ClusterOptions& options,
                                const std::string& type, int entities,
                                int signal) {
  ActorRef proxy = sharding::EntityRegion::StartProxy(
      system, type, RegionSettings(options), Extractor());
  NodeProcess b(options, type);
  AwaitRegions(proxy, {b.address()});
  // B alone takes shards: every entity starts there.
  auto run = std::make_shared<ProbeRun>();
  ActorRef prober =
      system.ActorOf(ProberProps(proxy, entities, b.address(), run));
  run->warm.Await(type + ": every entity answering from B", absl::Minutes(2));
  NodeProcess c(options, type);
  AwaitRegions(proxy, {b.address(), c.address()});
  prober.Tell(NewHome{c.address()});
  const auto signalled = std::chrono::steady_clock::now();
  b.Signal(signal);
  run->moved.Await(type + ": every entity answering from C",
                   options.lease_ttl * 4 + absl::Minutes(2));
  system.Stop(prober);
  system.Stop(proxy);
  const int64_t from_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              signalled.time_since_epoch())
                              .count();
  std::vector<double> ms;
  for (int64_t at : run->moved_at_ns) {
    ms.push_back(static_cast<double>(at - from_ns) / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  return ms;
}

void PrintMove(const std::string& name, const std::vector<double>& ms) {
  std::printf("%-48s %10.0f ms p50, %.0f ms max\n", name.c_str(),
              PercentileOfSorted(ms, 0.5), ms.back());
}

std::string PostgresUrl() {
  std::string url = absl::GetFlag(FLAGS_postgres);
  if (url.empty()) {
    const char* env = std::getenv("CAIRN_BENCH_POSTGRES_URL");
    if (env != nullptr) url = env;
  }
  return url;
}

int Benchmark() {
  const bool quick = Quick();
  ClusterOptions options;
  options.postgres_url = PostgresUrl();
  if (options.postgres_url.empty()) {
    std::printf(
        "cluster_sharding needs PostgreSQL (the members and leases the "
        "processes share): give --postgres URL or CAIRN_BENCH_POSTGRES_URL "
        "(tools/postgres_test_server.sh start --durable makes a server). "
        "Nothing measured.\n");
    return 0;
  }
  // The pid alone may repeat: Bazel's sandbox gives each test a pid
  // namespace of its own.
  options.schema = absl::StrCat("cairn_bench_cluster_", ::getpid(), "_",
                                std::random_device()() % 1'000'000);
  const int ttl_seconds = quick ? 2 : absl::GetFlag(FLAGS_lease_ttl_seconds);
  if (ttl_seconds < 1) Die("--lease_ttl_seconds below 1");
  options.lease_ttl = absl::Seconds(ttl_seconds);
  const Plan plan =
      quick ? Plan{3'000, 1'000, 1, 10, 100}
            : Plan{200'000, 1'000, std::max(1, absl::GetFlag(FLAGS_runs)), 100,
                   1'000};
  std::printf(
      "cores: %u; processes on 127.0.0.1, members and leases in "
      "PostgreSQL (schema %s)\n",
      std::thread::hardware_concurrency(), options.schema.c_str());
  {
    std::unique_ptr<ActorSystem> system = StartMember(options);
    Throughput(*system, options, plan);
    std::printf(
        "takeover and hand-off: lease ttl %s (members' ttl the same), "
        "entities probed every %s, a lost probe sent again after %s\n",
        absl::FormatDuration(options.lease_ttl).c_str(),
        absl::FormatDuration(kProbeTick).c_str(),
        absl::FormatDuration(kProbeResend).c_str());
    PrintMove(absl::StrCat("takeover after kill -9, ", plan.takeover_entities,
                           " entities"),
              MeasureMove(*system, options, "takeover", plan.takeover_entities,
                          SIGKILL));
    PrintMove(absl::StrCat("hand-off on SIGTERM, ", plan.handoff_entities,
                           " active entities"),
              MeasureMove(*system, options, "handoff", plan.handoff_entities,
                          SIGTERM));
    if (!system->Terminate().wait_for(absl::Minutes(1))) {
      Die("the driver's system did not terminate in a minute");
    }
  }
  if (absl::Status s = DropSchema(options.postgres_url, options.schema);
      !s.ok()) {
    std::fprintf(stderr, "cluster_sharding: %s\n", s.ToString().c_str());
  }
  return 0;
}

}  // namespace
}  // namespace cairn::bench::cluster

int main(int argc, char** argv) {
  cairn::bench::InitBenchmark(argc, argv,
                              "cluster_sharding [--quick] [--postgres URL] "
                              "[--runs N] [--lease_ttl_seconds N]");
  const std::string serve = absl::GetFlag(FLAGS_serve);
  if (serve.empty()) return cairn::bench::cluster::Benchmark();
  cairn::bench::cluster::ClusterOptions options;
  options.postgres_url = absl::GetFlag(FLAGS_postgres);
  options.schema = absl::GetFlag(FLAGS_schema);
  options.lease_ttl = absl::Seconds(absl::GetFlag(FLAGS_lease_ttl_seconds));
  return cairn::bench::cluster::ServeNode(options, serve);
}
