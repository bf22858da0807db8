#ifndef CAIRN_EXAMPLES_PLUGIN_EXAMPLE_SNAPSHOT_STORE_H_
#define CAIRN_EXAMPLES_PLUGIN_EXAMPLE_SNAPSHOT_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "base/task_runner.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/serialization.h"

namespace cairn::examples::plugin {

// A snapshot store kept in memory behind one worker thread, the journal's
// companion (example_journal.h): every method posts a task to the worker,
// which alone touches the snapshots and runs every callback, in submission
// order. Snapshots are kept serialized; one that cannot be decoded is
// passed over for the next older one and reported (snapshot_store.h).
class ExampleSnapshotStore final : public persistence::SnapshotStore {
 public:
  // `serialization` must not be null.
  explicit ExampleSnapshotStore(
      std::shared_ptr<const serialization::SerializationRegistry>
          serialization);
  ~ExampleSnapshotStore() override;

  void AsyncLoad(std::string persistence_id,
                 persistence::SnapshotSelectionCriteria criteria,
                 int64_t to_sequence_nr, LoadCallback done) override;
  void AsyncSave(persistence::SnapshotMetadata metadata,
                 serialization::Payload snapshot,
                 std::optional<persistence::WriteFence> fence,
                 DoneCallback done) override;
  void AsyncDelete(persistence::SnapshotMetadata metadata,
                   std::optional<persistence::WriteFence> fence,
                   DoneCallback done) override;
  void AsyncDeleteByCriteria(std::string persistence_id,
                             persistence::SnapshotSelectionCriteria criteria,
                             std::optional<persistence::WriteFence> fence,
                             DoneCallback done) override;

 private:
  struct Stored {
    int64_t timestamp = 0;
    serialization::SerializedPayload payload;
  };
  using Snapshots = std::map<int64_t, Stored>;  // by sequence number

  // The worker's side of AsyncLoad and AsyncSave.
  persistence::LoadSnapshotResult Load(
      const std::string& persistence_id,
      const persistence::SnapshotSelectionCriteria& criteria) const;
  absl::Status Save(const persistence::SnapshotMetadata& metadata,
                    const serialization::Payload& snapshot);

  const std::shared_ptr<const serialization::SerializationRegistry>
      serialization_;
  absl::flat_hash_map<std::string, Snapshots> streams_;  // the worker's
  // Declared last, so destroyed first (see ExampleJournal).
  base::TaskRunner worker_;
};

}  // namespace cairn::examples::plugin

#endif  // CAIRN_EXAMPLES_PLUGIN_EXAMPLE_SNAPSHOT_STORE_H_
