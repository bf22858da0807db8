#ifndef CAIRN_SHARDING_INTERNAL_REMEMBERED_IDS_H_
#define CAIRN_SHARDING_INTERNAL_REMEMBERED_IDS_H_

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "actor/actor_ref.h"
#include "persistence/persistent_actor.h"

namespace cairn::sharding::internal {

// Changes to a set of ids, in order: added (true) or removed (false).
using IdChanges = std::vector<std::pair<std::string, bool>>;

// The stored form of a batch of changes, or of a whole set (a snapshot: all
// added). A std::string, because every SerializationRegistry stores those
// and sharding cannot add types to the application's registry:
//   "cairn.sharding.ids 1\n", then per change '+' or '-', the id's length
//   in decimal, ':' and the id's bytes.
std::string EncodeIdChanges(const IdChanges& changes);
// InvalidArgument saying what is wrong and at which byte.
absl::StatusOr<IdChanges> DecodeIdChanges(std::string_view bytes);

// Parent -> store: write these changes. Store -> parent, once written and
// applied: IdsStored with the same changes.
struct StoreIds {
  IdChanges changes;
};
struct IdsStored {
  IdChanges changes;
};
// Store -> parent, once recovered: the set.
struct IdsLoaded {
  std::set<std::string> ids;
};

// How a RememberedIds store writes (from EntityRegionSettings).
struct RememberedIdsSettings {
  std::string journal_plugin_id;
  std::string snapshot_plugin_id;
  int64_t snapshot_after = 1000;   // events between snapshots
  int64_t keep_nr_of_batches = 2;  // snapshots kept (older events deleted)
};

// A persistent set of ids, the remember-entities store of a shard (its
// entities) and of a region (its shards), as Akka's event-sourced
// remember-entities store: tells its parent IdsLoaded once recovered, then
// writes each StoreIds as one event and answers IdsStored. Snapshots the
// whole set every `snapshot_after` events and deletes the events and
// snapshots older than the last `keep_nr_of_batches` snapshots.
//
// A failed recovery or write stops it (with the reason logged): the parent
// watches it.
class RememberedIds final : public persistence::PersistentActor {
 public:
  RememberedIds(std::string persistence_id, RememberedIdsSettings settings);

  std::string PersistenceId() const override { return persistence_id_; }
  std::string JournalPluginId() const override {
    return settings_.journal_plugin_id;
  }
  std::string SnapshotPluginId() const override {
    return settings_.snapshot_plugin_id;
  }
  std::optional<persistence::RetentionCriteria> GetRetention() const override;
  std::optional<serialization::Payload> RetentionSnapshot() const override;

 private:
  void OnPersistRejected(const absl::Status& cause,
                         const serialization::Payload& event,
                         int64_t sequence_nr) override;
  void Apply(std::string_view bytes, const char* what);
  void ApplyChanges(const IdChanges& changes);

  const std::string persistence_id_;
  const RememberedIdsSettings settings_;
  std::set<std::string> ids_;
};

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_REMEMBERED_IDS_H_
