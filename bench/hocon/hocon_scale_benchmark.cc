// How cairn's HOCON library scales with large and hostile input: N appends
// to one field (`a += 1`, N lines) parsed and resolved, and a file of N
// keys parsed, with the memory it takes against the size of the file.
//
//   bazel run -c opt //bench/hocon:hocon_scale_benchmark
//   bazel run -c opt //bench/hocon:hocon_scale_benchmark -- --quick   (small N)
//
// Each memory row runs in a new process of its own (this program again),
// so that its peak resident set (getrusage's ru_maxrss) is its own: "peak
// RSS" is the whole process's (program, input and tree), "heap" what the
// parsed tree holds (bench::HeapInUse, while it is alive). Timings are wall
// clock; appends are the best of three.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "bench/support/bench_main.h"
#include "bench/support/heap_in_use.h"
#include "hocon/config.h"

namespace {

using cairn::hocon::Config;
using Clock = std::chrono::steady_clock;

double Millis(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "hocon_scale_benchmark: %s\n", what.c_str());
  std::exit(1);
}

// N lines of `a += 1`, parsed and resolved: a list of N ones.
void AppendsRow(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += "a += 1\n";
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    Clock::time_point start = Clock::now();
    absl::StatusOr<Config> c = Config::ParseString(text);
    if (c.ok()) c = c->Resolve();
    if (!c.ok()) Die(std::string(c.status().message()));
    double ms = Millis(Clock::now() - start);
    absl::StatusOr<std::vector<int>> list = c->GetIntList("a");
    if (!list.ok() || list->size() != static_cast<std::size_t>(n)) {
      Die("appends: wrong result");
    }
    if (round == 0 || ms < best) best = ms;
  }
  std::printf("%-34s %9zu bytes %10.1f ms\n",
              ("appends, " + std::to_string(n) + " lines").c_str(), text.size(),
              best);
}

std::size_t HeapInUse() {
  return static_cast<std::size_t>(cairn::bench::HeapInUse());
}

// What the child measured, sent back through a pipe.
struct Measured {
  double millis;
  std::size_t heap;  // held by the parsed tree
};

// `key000000 = 0`, one per line.
std::string WriteKeysFile(int n) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path =
      std::string(tmp ? tmp : "/tmp") + "/hocon_scale_keys_XXXXXX.conf";
  int fd = mkstemps(path.data(), 5);
  if (fd < 0) Die("cannot create " + path);
  close(fd);
  std::ofstream out(path, std::ios::binary);
  char line[64];
  for (int i = 0; i < n; ++i) {
    int len = std::snprintf(line, sizeof(line), "key%06d = %d\n", i, i);
    out.write(line, len);
  }
  if (!out) Die("cannot write " + path);
  return path;
}

constexpr char kMeasureFlag[] = "--measure_in_this_process";

// The child's part of a keys row (this program run with kMeasureFlag):
// parses `path` (and, with `to_json`, resolves it and renders it as JSON,
// as hocon2json does) and writes what it measured to stdout.
int Measure(const std::string& path, bool to_json) {
  std::size_t before = HeapInUse();
  Clock::time_point start = Clock::now();
  absl::StatusOr<Config> c = Config::ParseFile(path);
  if (!c.ok()) return 2;
  Measured m{0, HeapInUse() - before};
  std::string json;
  if (to_json) {
    c = c->Resolve();
    if (!c.ok()) return 2;
    json = c->ToJson();
  }
  m.millis = Millis(Clock::now() - start);
  if (write(STDOUT_FILENO, &m, sizeof(m)) != sizeof(m)) return 3;
  return json.size() == 1 ? 4 : 0;  // keeps `json` alive until here
}

// Runs Measure in a new process; prints its row.
void KeysRow(int n, const std::string& path, std::size_t file_size,
             bool to_json) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) Die("pipe");
  pid_t child = fork();
  if (child < 0) Die("fork");
  if (child == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    std::string self = "/proc/self/exe";
    std::vector<char*> args = {self.data(), const_cast<char*>(kMeasureFlag),
                               const_cast<char*>(path.c_str())};
    std::string json = "json";
    if (to_json) args.push_back(json.data());
    args.push_back(nullptr);
    execv(self.c_str(), args.data());
    _exit(5);
  }
  close(pipe_fds[1]);
  Measured m{};
  bool got = read(pipe_fds[0], &m, sizeof(m)) == sizeof(m);
  close(pipe_fds[0]);
  int status = 0;
  struct rusage usage {};
  if (wait4(child, &status, 0, &usage) != child || !got || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    Die("the child parsing " + path + " failed");
  }
  double rss = static_cast<double>(usage.ru_maxrss) * 1024;  // KiB
  std::string name = std::to_string(n) + " keys, " +
                     (to_json ? "parse+resolve+JSON" : "parse");
  std::printf("%-34s %9zu bytes %10.1f ms   peak RSS %6.1f MB = %4.1fx input",
              name.c_str(), file_size, m.millis, rss / 1e6, rss / file_size);
  std::printf("   heap %6.1f MB = %4.1fx input\n", m.heap / 1e6,
              static_cast<double>(m.heap) / file_size);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], kMeasureFlag) == 0) {
    return Measure(argv[2], argc > 3);
  }
  cairn::bench::InitBenchmark(argc, argv, "hocon_scale_benchmark [--quick]");
  const bool quick = cairn::bench::Quick();
  std::printf("%-34s %15s %13s\n", "row", "input", "time");
  for (int n : quick ? std::vector<int>{1000, 10000}
                     : std::vector<int>{10000, 100000}) {
    AppendsRow(n);
  }
  int keys = quick ? 10000 : 1000000;
  std::string path = WriteKeysFile(keys);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::size_t size = static_cast<std::size_t>(in.tellg());
  KeysRow(keys, path, size, /*to_json=*/false);
  KeysRow(keys, path, size, /*to_json=*/true);
  std::remove(path.c_str());
  return 0;
}
