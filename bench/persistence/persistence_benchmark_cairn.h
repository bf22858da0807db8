#ifndef CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_CAIRN_H_
#define CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_CAIRN_H_

// The cairn side of persistence_benchmark: persistent actors on a real
// ActorSystem whose RocksDB journal is configured as a user configures it
// (akka.persistence.journal.rocksdb { dir, fsync }), their events an int64
// registered in a SerializationRegistry (persistence_benchmark_system.h).
// query_benchmark writes its tagged events with it too.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/persistence/persistence_benchmark_support.h"

namespace cairn::bench {

enum class PersistMode {
  kPersist,       // one event per command; commands stash meanwhile
  kPersistAsync,  // one event per command; commands go on being handled
  kPersistAll,    // `batch` events per command, one atomic write; stashing
};

struct WriteLoad {
  PersistMode mode = PersistMode::kPersist;
  int actors = 1;                // streams bench-0, bench-1, ...
  int64_t events_per_actor = 1;  // a multiple of `batch`
  int batch = 1;                 // events per command (kPersistAll)
  bool fsync = false;
  // Not empty: each event is persisted as Tagged{event, tags}.
  std::vector<std::string> tags;
};

// Starts load.actors persistent actors on a new actor system with its
// journal in `dir`, waits until they have recovered (their streams are
// empty; this also opens the store), then sends every command up front and
// waits until every persist handler has run. Returns the events persisted
// per second over that last part, and sets `*cost` (if not null) to what
// that part cost per event. The system is terminated and the store closed
// when it returns.
[[nodiscard]] absl::StatusOr<double> CairnWrite(const std::string& dir,
                                                const WriteLoad& load,
                                                SideCost* cost = nullptr);

// Starts `actors` persistent actors (bench-0, ...) on a new actor system
// over the store in `dir`, which CairnWrite filled with `events_per_actor`
// events each, and waits until every one has completed its recovery.
// Returns the events replayed per second, from the first actor's creation
// to the last RecoveryCompleted; DataLoss if not every event was replayed.
// The store is opened (by an actor with an empty stream) before the clock
// starts, so that opening it (and RocksDB's replay of its WAL) is not
// counted. `cost` as for CairnWrite.
[[nodiscard]] absl::StatusOr<double> CairnRecover(const std::string& dir,
                                                  int actors,
                                                  int64_t events_per_actor,
                                                  SideCost* cost = nullptr);

// As CairnWrite and CairnRecover, on the journal `persistence_config`
// chooses and configures (BenchSystem::StartWithConfig), e.g. the
// PostgreSQL plugin; load.fsync is then that journal's to decide, and is
// not read. CairnRecoverWithConfig runs `hooks` with its clock.
[[nodiscard]] absl::StatusOr<double> CairnWriteWithConfig(
    const std::string& persistence_config, const WriteLoad& load,
    SideCost* cost = nullptr);
[[nodiscard]] absl::StatusOr<double> CairnRecoverWithConfig(
    const std::string& persistence_config, int actors, int64_t events_per_actor,
    const ClockHooks& hooks = {}, SideCost* cost = nullptr);

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_CAIRN_H_
