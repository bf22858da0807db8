#ifndef CAIRN_PERSISTENCE_STORAGE_SNAPSHOT_STORE_WRAPPER_H_
#define CAIRN_PERSISTENCE_STORAGE_SNAPSHOT_STORE_WRAPPER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "persistence/storage/snapshot_store.h"

namespace cairn::persistence {

// A SnapshotStore that passes every call, unchanged, to the store it wraps
// (the target): the base of snapshot store decorators, as JournalWrapper
// is of journal ones (journal_wrapper.h). A decorator overrides only the
// calls it changes. It names no ColocationKey (SnapshotStore's default),
// so a journal never reads around a decorator: every load goes through it.
//
// Ownership: the wrapper owns its target and destroys it in its destructor,
// which completes what was submitted. A subclass whose callbacks still use
// its members calls DestroyTarget() in its own destructor.
//
// Thread safety and callbacks: the target's (the SnapshotStore contract).
class SnapshotStoreWrapper : public SnapshotStore {
 public:
  // `target` must not be null.
  explicit SnapshotStoreWrapper(std::unique_ptr<SnapshotStore> target)
      : target_(std::move(target)) {}
  SnapshotStoreWrapper(const SnapshotStoreWrapper&) = delete;
  SnapshotStoreWrapper& operator=(const SnapshotStoreWrapper&) = delete;

  void AsyncLoad(std::string persistence_id, SnapshotSelectionCriteria criteria,
                 int64_t to_sequence_nr, LoadCallback done) override {
    target_->AsyncLoad(std::move(persistence_id), criteria, to_sequence_nr,
                       std::move(done));
  }
  void AsyncSave(SnapshotMetadata metadata, serialization::Payload snapshot,
                 std::optional<WriteFence> fence, DoneCallback done) override {
    target_->AsyncSave(std::move(metadata), std::move(snapshot),
                       std::move(fence), std::move(done));
  }
  void AsyncDelete(SnapshotMetadata metadata, std::optional<WriteFence> fence,
                   DoneCallback done) override {
    target_->AsyncDelete(std::move(metadata), std::move(fence),
                         std::move(done));
  }
  void AsyncDeleteByCriteria(std::string persistence_id,
                             SnapshotSelectionCriteria criteria,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override {
    target_->AsyncDeleteByCriteria(std::move(persistence_id), criteria,
                                   std::move(fence), std::move(done));
  }

 protected:
  // The wrapped store; not valid after DestroyTarget().
  SnapshotStore& target() const { return *target_; }
  // Destroys the target now (completing what it was given); no call may
  // follow.
  void DestroyTarget() { target_.reset(); }

 private:
  std::unique_ptr<SnapshotStore> target_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_SNAPSHOT_STORE_WRAPPER_H_
