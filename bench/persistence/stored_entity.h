#ifndef CAIRN_BENCH_PERSISTENCE_STORED_ENTITY_H_
#define CAIRN_BENCH_PERSISTENCE_STORED_ENTITY_H_

// The persistent actor of the recovery storm and entity memory benchmarks,
// and how they store its events before they measure.

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "bench/persistence/persistence_benchmark_system.h"
#include "persistence/persistent_actor.h"

namespace cairn::bench {

// Commands of StoredEntity.
struct Fill {};  // persist the entity's `fill_events` events, then stop
struct Add {};   // persist one event
struct Ping {};  // only answer

// Its state is the number of events it recovered. Counts `done` down once
// it has filled, persisted what Add asked for, or heard a Ping; a failure
// to recover or persist fails `done`. Its id is its persistence id.
class StoredEntity final : public persistence::PersistentActor {
 public:
  StoredEntity(std::string id, Countdown* done, int fill_events = 0);
  std::string PersistenceId() const override { return id_; }

 protected:
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override;
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload&, int64_t) override;

 private:
  const std::string id_;
  Countdown* const done_;
  const int fill_events_;
  int64_t recovered_ = 0;
  int written_ = 0;
};

// Stores `events` events for each of the entities BenchPersistenceId(0) to
// BenchPersistenceId(count - 1) in the RocksDB store in `dir` (fsync off),
// 10,000 entities at a time. The first failure.
[[nodiscard]] absl::Status FillStoredEntities(const std::string& dir,
                                              int64_t count, int events);

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_PERSISTENCE_STORED_ENTITY_H_
