#ifndef CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_DURABLE_STATE_STORE_H_
#define CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_DURABLE_STATE_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "base/task_runner.h"
#include "persistence/storage/durable_state_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence::inmem_internal {

// The in-memory durable state store (see durable_state_store.h for the
// contract). Values are kept serialized, as on disk. Serialization runs on
// the calling thread; everything else, and every callback, on the store's
// one thread, which alone touches the values.
class InMemoryDurableStateStore final : public DurableStateStore {
 public:
  explicit InMemoryDurableStateStore(
      std::shared_ptr<const serialization::SerializationRegistry> registry);
  ~InMemoryDurableStateStore() override;

  void AsyncGetObject(std::string persistence_id, GetCallback done) override;
  void AsyncUpsertObject(std::string persistence_id, int64_t revision,
                         serialization::Payload value, std::string tag,
                         std::optional<WriteFence> fence,
                         DoneCallback done) override;
  void AsyncDeleteObject(std::string persistence_id, int64_t revision,
                         std::optional<WriteFence> fence,
                         DoneCallback done) override;
  void AsyncCurrentChanges(std::string tag, int64_t after_offset, int64_t max,
                           ChangesCallback done) override;

 private:
  struct Stored {
    int64_t revision = 0;
    std::optional<serialization::SerializedPayload> value;  // none: deleted
    std::string tag;
    int64_t offset = 0;  // of its last reported change; 0: none
    int64_t timestamp_ms = 0;
  };

  // OK if `revision` may be written over what is stored for the id.
  absl::Status CheckRevision(const std::string& persistence_id,
                             int64_t revision) const;

  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  // runner_'s thread only.
  absl::flat_hash_map<std::string, Stored> objects_;
  // The ids with a reported change (a value, or the delete of one), by its
  // offset.
  std::map<int64_t, std::string> by_offset_;
  int64_t last_offset_ = 0;
  // Declared last so that it is destroyed first, while the rest lives.
  base::TaskRunner runner_;
};

}  // namespace cairn::persistence::inmem_internal

#endif  // CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_DURABLE_STATE_STORE_H_
