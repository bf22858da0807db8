#include "persistence/storage/fault_injecting_snapshot_store.h"

#include <utility>

#include "base/mutex.h"

namespace cairn::persistence {
namespace {

bool Take(int& count, bool all) {
  if (all) return true;
  if (count <= 0) return false;
  --count;
  return true;
}

}  // namespace

void SnapshotStoreFaults::FailNextSaves(int n) {
  base::MutexLock lock(&mu_);
  failing_saves_ = n;
}

void SnapshotStoreFaults::FailNextLoads(int n) {
  base::MutexLock lock(&mu_);
  failing_loads_ = n;
}

void SnapshotStoreFaults::FailNextDeletes(int n) {
  base::MutexLock lock(&mu_);
  failing_deletes_ = n;
}

void SnapshotStoreFaults::SetFailAll(bool fail) {
  base::MutexLock lock(&mu_);
  fail_all_ = fail;
}

bool SnapshotStoreFaults::TakeSaveFailure() {
  base::MutexLock lock(&mu_);
  return Take(failing_saves_, fail_all_);
}

bool SnapshotStoreFaults::TakeLoadFailure() {
  base::MutexLock lock(&mu_);
  return Take(failing_loads_, fail_all_);
}

bool SnapshotStoreFaults::TakeDeleteFailure() {
  base::MutexLock lock(&mu_);
  return Take(failing_deletes_, fail_all_);
}

FaultInjectingSnapshotStore::FaultInjectingSnapshotStore(
    std::unique_ptr<SnapshotStore> inner,
    std::shared_ptr<SnapshotStoreFaults> faults)
    : SnapshotStoreWrapper(std::move(inner)),
      faults_(faults != nullptr ? std::move(faults)
                                : std::make_shared<SnapshotStoreFaults>()) {}

FaultInjectingSnapshotStore::~FaultInjectingSnapshotStore() = default;

void FaultInjectingSnapshotStore::FailInOrder(std::string id,
                                              absl::Status failure,
                                              DoneCallback done) {
  target().AsyncLoad(std::move(id), SnapshotSelectionCriteria::None(), 0,
                     [failure = std::move(failure), done = std::move(done)](
                         absl::StatusOr<LoadSnapshotResult>) mutable {
                       std::move(done)(std::move(failure));
                     });
}

void FaultInjectingSnapshotStore::AsyncLoad(std::string persistence_id,
                                            SnapshotSelectionCriteria criteria,
                                            int64_t to_sequence_nr,
                                            LoadCallback done) {
  if (faults_->TakeLoadFailure()) {
    FailInOrder(std::move(persistence_id),
                absl::UnavailableError("injected load failure"),
                [done = std::move(done)](absl::Status failure) mutable {
                  std::move(done)(std::move(failure));
                });
    return;
  }
  SnapshotStoreWrapper::AsyncLoad(std::move(persistence_id), criteria,
                                  to_sequence_nr, std::move(done));
}

void FaultInjectingSnapshotStore::AsyncSave(SnapshotMetadata metadata,
                                            serialization::Payload snapshot,
                                            std::optional<WriteFence> fence,
                                            DoneCallback done) {
  if (faults_->TakeSaveFailure()) {
    FailInOrder(std::move(metadata.persistence_id),
                absl::UnavailableError("injected save failure"),
                std::move(done));
    return;
  }
  SnapshotStoreWrapper::AsyncSave(std::move(metadata), std::move(snapshot),
                                  std::move(fence), std::move(done));
}

void FaultInjectingSnapshotStore::AsyncDelete(SnapshotMetadata metadata,
                                              std::optional<WriteFence> fence,
                                              DoneCallback done) {
  if (faults_->TakeDeleteFailure()) {
    FailInOrder(std::move(metadata.persistence_id),
                absl::UnavailableError("injected delete failure"),
                std::move(done));
    return;
  }
  SnapshotStoreWrapper::AsyncDelete(std::move(metadata), std::move(fence),
                                    std::move(done));
}

void FaultInjectingSnapshotStore::AsyncDeleteByCriteria(
    std::string persistence_id, SnapshotSelectionCriteria criteria,
    std::optional<WriteFence> fence, DoneCallback done) {
  if (faults_->TakeDeleteFailure()) {
    FailInOrder(std::move(persistence_id),
                absl::UnavailableError("injected delete failure"),
                std::move(done));
    return;
  }
  SnapshotStoreWrapper::AsyncDeleteByCriteria(
      std::move(persistence_id), criteria, std::move(fence), std::move(done));
}

}  // namespace cairn::persistence
