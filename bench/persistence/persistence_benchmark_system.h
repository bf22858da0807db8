#ifndef CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_SYSTEM_H_
#define CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_SYSTEM_H_

// What the cairn sides of persistence_benchmark and query_benchmark share:
// the event their actors persist, an actor system configured as a user
// configures the RocksDB journal, and a countdown the actors report to.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "actor/actor_system.h"
#include "base/mutex.h"

namespace cairn::bench {

// The event: 8 bytes once serialized (registered as "bench.Event.v1").
struct Event {
  int64_t value = 0;
};

// Waits for `count` actors to reach a point (recovered, done writing); the
// first failure reported ends the wait at once, so that a broken store
// fails the run instead of hanging it. Thread safe.
class Countdown {
 public:
  explicit Countdown(int64_t count) : left_(count) {}

  void CountDown();
  void Fail(const absl::Status& cause);
  // OK once the count reached 0; the first failure otherwise.
  [[nodiscard]] absl::Status Wait();
  // As Wait, but DeadlineExceeded if neither came within `timeout`.
  [[nodiscard]] absl::Status WaitFor(std::chrono::seconds timeout);

 private:
  base::Mutex mu_;
  base::CondVar done_;
  int64_t left_ ABSL_GUARDED_BY(mu_);
  absl::Status failure_ ABSL_GUARDED_BY(mu_);
};

// The configuration of the RocksDB journal in `dir`
// (akka.persistence.journal.rocksdb { dir, fsync }), as a user writes it.
std::string RocksDbJournalConfig(const std::string& dir, bool fsync);

// An actor system whose RocksDB journal is in `dir`
// (RocksDbJournalConfig, every other setting at its default) and whose
// persistence serializes Event. Terminated (and the store closed) when
// destroyed.
class BenchSystem {
 public:
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<BenchSystem>> Start(
      const std::string& dir, bool fsync);
  // As Start, with `persistence_config` (HOCON appended to the system's
  // config) choosing and configuring the journal instead, e.g. the
  // PostgreSQL plugin (akka.persistence.journal.plugin = ...).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<BenchSystem>>
  StartWithConfig(const std::string& persistence_config);
  ~BenchSystem();
  BenchSystem(const BenchSystem&) = delete;
  BenchSystem& operator=(const BenchSystem&) = delete;

  actor::ActorSystem& system() { return *system_; }

 private:
  explicit BenchSystem(std::unique_ptr<actor::ActorSystem> system)
      : system_(std::move(system)) {}

  std::unique_ptr<actor::ActorSystem> system_;
};

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_SYSTEM_H_
