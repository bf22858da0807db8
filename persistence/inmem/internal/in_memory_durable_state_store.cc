#include "persistence/inmem/internal/in_memory_durable_state_store.h"

#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "base/string_view.h"
#include "persistence/storage/plugin_support/durable_state_check.h"

namespace cairn::persistence::inmem_internal {

InMemoryDurableStateStore::InMemoryDurableStateStore(
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : registry_(std::move(registry)), runner_(1, "cairn-inmem-state") {}

InMemoryDurableStateStore::~InMemoryDurableStateStore() = default;

void InMemoryDurableStateStore::AsyncGetObject(std::string persistence_id,
                                               GetCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id),
                done = std::move(done)]() mutable {
    DurableStateObject object;
    auto it = objects_.find(persistence_id);
    if (it != objects_.end()) {
      object.revision = it->second.revision;
      if (it->second.value.has_value()) {
        const serialization::SerializedPayload& stored = *it->second.value;
        absl::StatusOr<serialization::Payload> value = registry_->Deserialize(
            stored.serializer_id, stored.manifest, stored.bytes);
        if (!value.ok()) {
          std::move(done)(absl::DataLossError(
              base::StrCat("durable state of persistence id '", persistence_id,
                           "' at revision ", object.revision,
                           " cannot be read: ", value.status().message())));
          return;
        }
        object.value = *std::move(value);
      }
    }
    std::move(done)(std::move(object));
  });
}

absl::Status InMemoryDurableStateStore::CheckRevision(
    const std::string& persistence_id, int64_t revision) const {
  auto it = objects_.find(persistence_id);
  const int64_t stored = it == objects_.end() ? 0 : it->second.revision;
  if (revision == stored + 1) return absl::OkStatus();
  return plugin_support::StateRevisionConflict(persistence_id, revision,
                                               stored);
}

// Fences are ignored here: one process's store (durable_state_store.h).
void InMemoryDurableStateStore::AsyncUpsertObject(
    std::string persistence_id, int64_t revision, serialization::Payload value,
    std::string tag, std::optional<WriteFence> /*fence*/, DoneCallback done) {
  absl::StatusOr<serialization::SerializedPayload> bytes =
      registry_->Serialize(value);
  runner_.Post([this, persistence_id = std::move(persistence_id), revision,
                bytes = std::move(bytes), tag = std::move(tag),
                done = std::move(done)]() mutable {
    if (absl::Status s =
            plugin_support::CheckStateUpsert(persistence_id, revision, bytes);
        !s.ok()) {
      std::move(done)(std::move(s));
      return;
    }
    if (absl::Status s = CheckRevision(persistence_id, revision); !s.ok()) {
      std::move(done)(std::move(s));
      return;
    }
    Stored& stored = objects_[persistence_id];
    if (stored.offset != 0) by_offset_.erase(stored.offset);
    stored.revision = revision;
    stored.value = *std::move(bytes);
    stored.tag = std::move(tag);
    stored.offset = ++last_offset_;
    stored.timestamp_ms = absl::ToUnixMillis(absl::Now());
    by_offset_.emplace(stored.offset, persistence_id);
    std::move(done)(absl::OkStatus());
  });
}

void InMemoryDurableStateStore::AsyncDeleteObject(
    std::string persistence_id, int64_t revision,
    std::optional<WriteFence> /*fence*/, DoneCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id), revision,
                done = std::move(done)]() mutable {
    if (absl::Status s = CheckRevision(persistence_id, revision); !s.ok()) {
      std::move(done)(std::move(s));
      return;
    }
    Stored& stored = objects_[persistence_id];
    stored.revision = revision;
    stored.value.reset();
    // Reported under the tag the value had; an id never written has no
    // change to report.
    if (stored.offset != 0) {
      by_offset_.erase(stored.offset);
      stored.offset = ++last_offset_;
      stored.timestamp_ms = absl::ToUnixMillis(absl::Now());
      by_offset_.emplace(stored.offset, persistence_id);
    }
    std::move(done)(absl::OkStatus());
  });
}

void InMemoryDurableStateStore::AsyncCurrentChanges(std::string tag,
                                                    int64_t after_offset,
                                                    int64_t max,
                                                    ChangesCallback done) {
  runner_.Post([this, tag = std::move(tag), after_offset, max,
                done = std::move(done)]() mutable {
    std::vector<DurableStateChange> changes;
    for (auto it = by_offset_.upper_bound(after_offset);
         it != by_offset_.end() && static_cast<int64_t>(changes.size()) < max;
         ++it) {
      const Stored& stored = objects_.at(it->second);
      if (stored.tag != tag) continue;
      if (!stored.value.has_value()) {
        DurableStateChange deleted{it->second, stored.revision,
                                   serialization::Payload(), stored.offset,
                                   stored.timestamp_ms};
        deleted.deleted = true;
        changes.push_back(std::move(deleted));
        continue;
      }
      absl::StatusOr<serialization::Payload> value =
          registry_->Deserialize(stored.value->serializer_id,
                                 stored.value->manifest, stored.value->bytes);
      if (!value.ok()) {
        std::move(done)(absl::DataLossError(base::StrCat(
            "durable state of persistence id '", it->second, "' at revision ",
            stored.revision, " cannot be read: ", value.status().message())));
        return;
      }
      changes.push_back(DurableStateChange{it->second, stored.revision,
                                           *std::move(value), stored.offset,
                                           stored.timestamp_ms});
    }
    std::move(done)(std::move(changes));
  });
}

}  // namespace cairn::persistence::inmem_internal
