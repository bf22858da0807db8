#ifndef CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_SNAPSHOT_STORE_H_
#define CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_SNAPSHOT_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "base/task_runner.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence::inmem_internal {

// The in-memory snapshot store (see snapshot_store.h for the contract).
// Snapshots are kept serialized, as on disk. Serialization runs on the
// calling thread; everything else, and every callback, on the store's one
// thread, which alone touches the snapshots.
class InMemorySnapshotStore final : public SnapshotStore {
 public:
  explicit InMemorySnapshotStore(
      std::shared_ptr<const serialization::SerializationRegistry> registry);
  ~InMemorySnapshotStore() override;

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
  struct Stored {
    int64_t timestamp = 0;
    serialization::SerializedPayload payload;
  };
  using Snapshots = std::map<int64_t, Stored>;  // by sequence number

  absl::StatusOr<LoadSnapshotResult> Load(
      const std::string& persistence_id,
      const SnapshotSelectionCriteria& criteria, int64_t to_sequence_nr) const;

  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  absl::flat_hash_map<std::string, Snapshots> streams_;  // runner_'s thread
  // Declared last so that it is destroyed first, while streams_ lives.
  base::TaskRunner runner_;
};

}  // namespace cairn::persistence::inmem_internal

#endif  // CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_SNAPSHOT_STORE_H_
