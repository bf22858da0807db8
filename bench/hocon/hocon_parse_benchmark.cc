// Parses Akka.NET's akka.conf (~1200 lines, from the shared conformance
// data) with cairn's HOCON library and with Debian's C++ HOCON library
// (cpp-hocon 0.3), side by side in one run, then prints the ratio.
//
//   bazel run -c opt //bench/hocon:hocon_parse_benchmark
//   bazel run -c opt //bench/hocon:hocon_parse_benchmark -- --akka_conf=PATH
//
// "Parse" is text to an unresolved tree; "Load" adds resolving the
// substitutions, which is what an application does at start-up. Both
// libraries get the same bytes: the file's UTF-8 BOM is removed first,
// because cpp-hocon reads it as part of the first key.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "benchmark/benchmark.h"
#include "hocon/config.h"
#include "hocon/config.hpp"  // cpp-hocon, from /usr/include/hocon
#include "hocon/testing/conformance_dir.h"

namespace {

std::string& AkkaConf() {
  static std::string* text = new std::string;
  return *text;
}

void BM_Cairn_Parse(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<cairn::hocon::Config> c =
        cairn::hocon::Config::ParseString(AkkaConf(), "akka.conf");
    if (!c.ok()) state.SkipWithError(std::string(c.status().message()).c_str());
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_Cairn_Parse)->Unit(benchmark::kMicrosecond);

void BM_CppHocon_Parse(benchmark::State& state) {
  for (auto _ : state) {
    try {
      auto c = hocon::config::parse_string(AkkaConf());
      benchmark::DoNotOptimize(c);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
    }
  }
}
BENCHMARK(BM_CppHocon_Parse)->Unit(benchmark::kMicrosecond);

void BM_Cairn_Load(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<cairn::hocon::Config> c =
        cairn::hocon::Config::ParseString(AkkaConf(), "akka.conf");
    if (c.ok()) c = c->Resolve();
    if (!c.ok()) state.SkipWithError(std::string(c.status().message()).c_str());
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_Cairn_Load)->Unit(benchmark::kMicrosecond);

void BM_CppHocon_Load(benchmark::State& state) {
  for (auto _ : state) {
    try {
      auto c = hocon::config::parse_string(AkkaConf())->resolve();
      benchmark::DoNotOptimize(c);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
    }
  }
}
BENCHMARK(BM_CppHocon_Load)->Unit(benchmark::kMicrosecond);

// Prints as usual and keeps each benchmark's time per iteration (in
// microseconds, the unit the benchmarks report in).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    // With --benchmark_repetitions the median stands for the benchmark.
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median") {
        continue;
      }
      micros_[run.run_name.function_name] = run.GetAdjustedRealTime();
    }
  }
  double Micros(const std::string& name) const {
    auto it = micros_.find(name);
    return it == micros_.end() ? 0 : it->second;
  }

 private:
  std::map<std::string, double> micros_;
};

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each row reaches a pipe
  std::string path;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--akka_conf=", 12) == 0) path = argv[i] + 12;
  }
  if (path.empty()) {
    std::string dir = cairn::hocon::testing::ConformanceDir();
    if (!dir.empty()) path = dir + "/hocon/akka/akka.conf";
  }
  std::ifstream in(path, std::ios::binary);
  if (path.empty() || !in) {
    std::fprintf(stderr, "akka.conf not found; pass --akka_conf=PATH\n");
    return 1;
  }
  std::ostringstream s;
  s << in.rdbuf();
  AkkaConf() = s.str();
  if (AkkaConf().rfind("\xEF\xBB\xBF", 0) == 0) AkkaConf().erase(0, 3);
  std::printf("input: %s (%zu bytes)\n", path.c_str(), AkkaConf().size());

  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  for (const char* what : {"Parse", "Load"}) {
    double cairn = reporter.Micros(std::string("BM_Cairn_") + what);
    double peer = reporter.Micros(std::string("BM_CppHocon_") + what);
    if (cairn > 0 && peer > 0) {
      std::printf(
          "%-5s cairn %9.1f us, cpp-hocon %9.1f us: cairn is %.1fx %s\n", what,
          cairn, peer, cairn < peer ? peer / cairn : cairn / peer,
          cairn < peer ? "faster" : "slower");
    }
  }
  return 0;
}
