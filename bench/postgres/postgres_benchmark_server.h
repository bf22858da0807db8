#ifndef CAIRN_BENCH_POSTGRES_POSTGRES_BENCHMARK_SERVER_H_
#define CAIRN_BENCH_POSTGRES_POSTGRES_BENCHMARK_SERVER_H_

// postgres_benchmark's own PostgreSQL server: a durable throwaway cluster
// made by tools/postgres_test_server.sh (docs/POSTGRESQL.md), stopped and
// removed when the BenchServer is destroyed.

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace cairn::bench {

class BenchServer {
 public:
  // Runs `tools/postgres_test_server.sh start --durable DIR` from the
  // workspace (BUILD_WORKSPACE_DIRECTORY, as under `bazel run`, else the
  // current directory, as bench/report.sh runs it), DIR a new directory
  // in /tmp. NotFound, saying why, if PostgreSQL is not installed;
  // FailedPrecondition if the script is not there; Internal with the
  // script's last words if the server did not start.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<BenchServer>> Start();
  // Stops the server and removes its directory (the script's `stop DIR`);
  // a failure is printed to stderr.
  ~BenchServer();
  BenchServer(const BenchServer&) = delete;
  BenchServer& operator=(const BenchServer&) = delete;

  const std::string& url() const { return url_; }
  const std::string& dir() const { return dir_; }

 private:
  BenchServer(std::string script, std::string dir, std::string url)
      : script_(std::move(script)),
        dir_(std::move(dir)),
        url_(std::move(url)) {}

  const std::string script_;
  const std::string dir_;
  const std::string url_;
};

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_POSTGRES_POSTGRES_BENCHMARK_SERVER_H_
