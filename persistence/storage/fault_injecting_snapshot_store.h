#ifndef CAIRN_PERSISTENCE_STORAGE_FAULT_INJECTING_SNAPSHOT_STORE_H_
#define CAIRN_PERSISTENCE_STORAGE_FAULT_INJECTING_SNAPSHOT_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/mutex.h"
#include "persistence/storage/snapshot_store.h"
#include "persistence/storage/snapshot_store_wrapper.h"

namespace cairn::persistence {

// What a FaultInjectingSnapshotStore is told to fail. Separate from the
// store so that a test can hold it before the store exists (plugins are
// made lazily) and share it with the store.
//
// Thread safety: every method from any thread; a setting applies to the
// operations submitted after it.
class SnapshotStoreFaults {
 public:
  // The next `n` calls of AsyncSave fail with Unavailable ("injected save
  // failure"), saving nothing: SaveSnapshotFailure.
  void FailNextSaves(int n);
  // The next `n` calls of AsyncLoad fail with Unavailable ("injected load
  // failure"): the recoveries that make them fail.
  void FailNextLoads(int n);
  // The next `n` calls of AsyncDelete or AsyncDeleteByCriteria fail with
  // Unavailable ("injected delete failure"), deleting nothing.
  void FailNextDeletes(int n);
  // While on, every call fails as above (the store is down).
  void SetFailAll(bool fail);

  // For the store: whether the call about to be made fails (each consumes
  // one count).
  bool TakeSaveFailure();
  bool TakeLoadFailure();
  bool TakeDeleteFailure();

 private:
  base::Mutex mu_;
  int failing_saves_ ABSL_GUARDED_BY(mu_) = 0;
  int failing_loads_ ABSL_GUARDED_BY(mu_) = 0;
  int failing_deletes_ ABSL_GUARDED_BY(mu_) = 0;
  bool fail_all_ ABSL_GUARDED_BY(mu_) = false;
};

// A snapshot store decorator (SnapshotStoreWrapper, which owns the wrapped
// store) that fails operations on command: for tests of a persistent
// actor's SaveSnapshotFailure, DeleteSnapshot(s)Failure and
// OnRecoveryFailure, with any plugin underneath.
//
// Injected outcomes keep the SnapshotStore contract: each is delivered
// through the wrapped store (a load that selects nothing is sent to it and
// its callback reports the injected status), so it arrives on the wrapped
// store's thread, in order with the operations around it. An injected
// failure changes nothing stored.
//
// Thread safety: every method from any thread.
class FaultInjectingSnapshotStore final : public SnapshotStoreWrapper {
 public:
  // `inner` must not be null. `faults`: shared settings; null makes the
  // store its own.
  explicit FaultInjectingSnapshotStore(
      std::unique_ptr<SnapshotStore> inner,
      std::shared_ptr<SnapshotStoreFaults> faults = {});
  ~FaultInjectingSnapshotStore() override;

  SnapshotStoreFaults& faults() const { return *faults_; }

  void AsyncLoad(std::string persistence_id, SnapshotSelectionCriteria criteria,
                 int64_t to_sequence_nr, LoadCallback done) override;
  void AsyncSave(SnapshotMetadata metadata, serialization::Payload snapshot,
                 std::optional<WriteFence> fence, DoneCallback done) override;
  void AsyncDelete(SnapshotMetadata metadata, std::optional<WriteFence> fence,
                   DoneCallback done) override;
  void AsyncDeleteByCriteria(std::string persistence_id,
                             SnapshotSelectionCriteria criteria,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override;

 private:
  // Calls `done` with `failure` where the wrapped store completes its
  // operations on `id`, after those submitted before.
  void FailInOrder(std::string id, absl::Status failure, DoneCallback done);

  const std::shared_ptr<SnapshotStoreFaults> faults_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_FAULT_INJECTING_SNAPSHOT_STORE_H_
