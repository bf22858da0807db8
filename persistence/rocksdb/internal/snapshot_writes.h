#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_SNAPSHOT_WRITES_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_SNAPSHOT_WRITES_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "base/mutex.h"

namespace cairn::persistence::rocksdb_internal {

// The snapshot saves and deletes of a store submitted and not yet applied,
// counted by persistence id. The snapshot store applies them in order on
// its own thread, so a load through it sees every one submitted before;
// a journal that loads a recovery's snapshot itself, on its reader
// threads (RocksDbJournal::AsyncStartRecovery), does so only for a
// stream with none in flight, and otherwise loads through the snapshot
// store, so it sees the same.
//
// Thread safety: every method from any thread.
class SnapshotWrites {
 public:
  // A save or delete of `persistence_id` is submitted: call before the
  // submitting call returns, and End once it is applied (or failed).
  void Begin(const std::string& persistence_id) {
    base::MutexLock lock(&mu_);
    ++in_flight_[persistence_id];
  }
  void End(const std::string& persistence_id) {
    base::MutexLock lock(&mu_);
    auto it = in_flight_.find(persistence_id);
    if (it != in_flight_.end() && --it->second == 0) in_flight_.erase(it);
  }
  bool InFlight(const std::string& persistence_id) const {
    base::MutexLock lock(&mu_);
    return in_flight_.contains(persistence_id);
  }

 private:
  mutable base::Mutex mu_;
  absl::flat_hash_map<std::string, int> in_flight_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_SNAPSHOT_WRITES_H_
