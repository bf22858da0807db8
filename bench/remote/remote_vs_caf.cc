// cairn's remoting (gRPC streams) next to CAF 0.17's (libcaf_io, BASP over
// TCP), doing the same between two processes on 127.0.0.1 in the same run,
// with 100-byte messages:
//
//   ping-pong, 1 in flight      round trips one at a time: latency
//   ping-pong, 1000 in flight   1000 balls bouncing: pipelined throughput
//   one-way                     a sender to a sink, flow-controlled by
//                               answered batch markers (workload.h)
//
// Each run starts a fresh far side (this program with --serve) for each
// runtime, the two taking turns to go first; a row is the median of the
// runs, with the least and the most. The round trip's p50 and p99 are each
// run's, then their median. Akka's published Artery figures are printed
// below. Each runtime gets a worker thread per CPU the process may use.
//
//   bazel run -c opt //bench/remote:remote_vs_caf            (5 runs)
//   bazel run -c opt //bench/remote:remote_vs_caf -- --quick (a check)
//   ... -- --runs 9 --only one-way
//   taskset -c 0 bazel-bin/bench/remote/remote_vs_caf        (one core)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "base/usable_cpus.h"
#include "bench/remote/caf_side.h"
#include "bench/remote/cairn_side.h"
#include "bench/remote/side.h"
#include "bench/remote/workload.h"
#include "bench/support/bench_main.h"
#include "bench/support/statistics.h"

ABSL_FLAG(std::string, only, "",
          "run only the patterns whose name contains this text");
ABSL_FLAG(int, runs, 5, "runs of each pattern on each side (--quick: 1)");
ABSL_FLAG(std::string, serve, "",
          "internal: be the far side of `cairn` or `caf` (the benchmark "
          "starts it)");

namespace cairn::bench::remote {
namespace {

// Akka's Artery (Aeron transport, MaxThroughputSpec and LatencySpec)
// between two m4.4xlarge EC2 hosts, 100-byte payloads, as published in
// "Aeron in Artery" (https://akka.io/blog/2016/12/05/aeron-in-artery):
// 630,239 msg/s one-way; round trips at 10,000 msg/s p50 155 us, p99
// 196 us. Other machines and a real network: printed beside, no ratio.
constexpr double kAkkaArteryOneWay = 630'239;
constexpr double kAkkaArteryRoundTripP50Us = 155;
constexpr double kAkkaArteryRoundTripP99Us = 196;

struct Counts {
  int64_t single_round_trips;
  int64_t pipelined_round_trips;
  int64_t one_way_messages;
};

struct Pattern {
  std::string name;
  int in_flight;  // 0 for one-way
  std::function<Measurement(Side&)> run;
};

// What a runtime's runs gave, per row name.
using Figures = std::map<std::string, std::vector<double>>;

void Record(const std::string& name, const Measurement& m, Figures& into) {
  into[name].push_back(m.rate);
  if (m.round_trip_us.empty()) return;
  into[name + ", p50"].push_back(PercentileOfSorted(m.round_trip_us, 0.5));
  into[name + ", p99"].push_back(PercentileOfSorted(m.round_trip_us, 0.99));
}

void RunOnce(const std::function<std::unique_ptr<Side>()>& start,
             const std::vector<Pattern>& patterns, const Counts& counts,
             Figures& into) {
  std::unique_ptr<Side> side = start();
  // Connections made, code paths and allocators warm: not measured.
  side->PingPong(counts.single_round_trips / 10 + 1, 1);
  side->OneWay(kBatch * kWindowBatches * 2);
  for (const Pattern& p : patterns) Record(p.name, p.run(*side), into);
}

std::string Figure(double value, bool microseconds) {
  char text[32];
  std::snprintf(text, sizeof text, microseconds ? "%.1f" : "%.0f", value);
  return text;
}

// One row: both medians, the unit, cairn against CAF (higher is better
// for cairn: CAF / cairn for latencies; "-" for a row that only restates
// another), then each side's least and most.
void PrintRow(const std::string& name, const Figures& cairn, const Figures& caf,
              bool with_ratio) {
  const bool latency = name.ends_with(", p50") || name.ends_with(", p99");
  const Spread a = SpreadOf(cairn.at(name));
  const Spread b = SpreadOf(caf.at(name));
  char ratio[16] = "-";
  if (with_ratio) {
    std::snprintf(ratio, sizeof ratio, "%.2fx",
                  latency ? b.median / a.median : a.median / b.median);
  }
  std::printf("%-38s %10s %10s %-5s %7s   cairn %s-%s, CAF %s-%s\n",
              name.c_str(), Figure(a.median, latency).c_str(),
              Figure(b.median, latency).c_str(), latency ? "us" : "msg/s",
              ratio, Figure(a.min, latency).c_str(),
              Figure(a.max, latency).c_str(), Figure(b.min, latency).c_str(),
              Figure(b.max, latency).c_str());
}

int Benchmark() {
  const bool quick = Quick();
  const int runs = quick ? 1 : std::max(1, absl::GetFlag(FLAGS_runs));
  const std::string only = absl::GetFlag(FLAGS_only);
  const Counts counts =
      quick ? Counts{300, 5'000, 20'000} : Counts{20'000, 300'000, 1'000'000};
  std::vector<Pattern> patterns;
  auto add = [&](std::string name, int in_flight,
                 std::function<Measurement(Side&)> run) {
    if (name.find(only) != std::string::npos) {
      patterns.push_back({std::move(name), in_flight, std::move(run)});
    }
  };
  add("remote ping-pong, 1 in flight", 1,
      [&](Side& s) { return s.PingPong(counts.single_round_trips, 1); });
  add("remote ping-pong, 1000 in flight", 1000,
      [&](Side& s) { return s.PingPong(counts.pipelined_round_trips, 1000); });
  add("remote one-way", 0,
      [&](Side& s) { return s.OneWay(counts.one_way_messages); });

  std::printf(
      "cores: %u, usable (affinity) and worker threads per runtime: "
      "%d\n",
      std::thread::hardware_concurrency(), base::UsableCpus());
  std::printf(
      "%d-byte payloads, two processes on 127.0.0.1, one-way's "
      "window %d messages, %d run(s): the median, then the least "
      "and the most\n",
      kPayloadBytes, kBatch * kWindowBatches, runs);
  Figures cairn;
  Figures caf;
  for (int run = 0; run < runs; ++run) {
    // Taking turns to go first: neither always meets a machine the
    // other has just warmed or disturbed.
    if (run % 2 == 0) {
      RunOnce(StartCairnSide, patterns, counts, cairn);
      RunOnce(StartCafSide, patterns, counts, caf);
    } else {
      RunOnce(StartCafSide, patterns, counts, caf);
      RunOnce(StartCairnSide, patterns, counts, cairn);
    }
  }
  std::printf("%-38s %10s %10s %-5s %7s   %s\n", "pattern", "cairn", "CAF 0.17",
              "unit", "ratio", "spread");
  for (const Pattern& p : patterns) {
    PrintRow(p.name, cairn, caf, /*with_ratio=*/true);
    if (cairn.contains(p.name + ", p50")) {
      // With 1000 in flight a round trip is mostly queueing: 1000 / (rate
      // / 2) by Little's law, the rate's ratio again.
      const bool latency = p.in_flight == 1;
      PrintRow(p.name + ", p50", cairn, caf, latency);
      PrintRow(p.name + ", p99", cairn, caf, latency);
    }
  }
  std::printf(
      "Akka Artery, published (two hosts, Aeron): one-way %.0f "
      "msg/s; round trip at 10,000 msg/s p50 %.0f us, p99 %.0f us\n",
      kAkkaArteryOneWay, kAkkaArteryRoundTripP50Us, kAkkaArteryRoundTripP99Us);
  return 0;
}

}  // namespace
}  // namespace cairn::bench::remote

int main(int argc, char** argv) {
  cairn::bench::InitBenchmark(
      argc, argv, "remote_vs_caf [--quick] [--runs N] [--only TEXT]");
  const std::string serve = absl::GetFlag(FLAGS_serve);
  if (serve == "cairn") return cairn::bench::remote::ServeCairn();
  if (serve == "caf") return cairn::bench::remote::ServeCaf();
  if (!serve.empty()) {
    std::fprintf(stderr, "--serve takes cairn or caf, not '%s'\n",
                 serve.c_str());
    return 2;
  }
  return cairn::bench::remote::Benchmark();
}
