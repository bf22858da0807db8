#ifndef CAIRN_SHARDING_INTERNAL_REGION_H_
#define CAIRN_SHARDING_INTERNAL_REGION_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "actor/actor.h"
#include "sharding/entity_region.h"
#include "sharding/internal/remembered_ids.h"
#include "sharding/internal/shard.h"

namespace cairn::sharding::internal {

// The region's actor: the parent of its shards, each created with its
// first entity. Routes each message by the extractor to its shard, keeping
// the sender; answers the state and stats queries by asking every shard.
//
// With remember entities, a RememberedIds child keeps the ids of the
// shards: the region starts them all once it has loaded them (holding the
// messages that come meanwhile), and starts a new shard only once its id
// is written (holding its messages), so that a shard that remembers an
// entity is itself remembered.
class Region final : public actor::Actor {
 public:
  Region(std::string type_name, EntityRegion::EntityProps entity_props,
         EntityRegionSettings settings,
         std::shared_ptr<const MessageExtractor> extractor);
  void PreStart() override;

 private:
  using Held = std::deque<std::pair<actor::AnyMessage, actor::ActorRef>>;

  // A state or stats query waiting for its shards' answers.
  struct Query {
    actor::ActorRef asker;
    bool stats = false;
    std::size_t waiting = 0;
    CurrentShardRegionState state;
  };

  void Route(const actor::AnyMessage& message, const actor::ActorRef& sender);
  // The entity a message is for: a StartEntity's, else the extractor's.
  std::optional<std::string> EntityIdOf(const actor::AnyMessage& message) const;
  // What the shard of `entity_id` gets for `message`.
  ShardDelivery DeliveryOf(std::string entity_id,
                           const actor::AnyMessage& message) const;
  actor::ActorRef StartShard(const std::string& shard_id);
  // Tells every shard its part of the active-entity limit (ActiveLimit):
  // the limit divided among the active shards, the remainder one each to
  // the first shards by id, so that the parts add up to the limit.
  void ShareLimit();
  void BeginShutdown();
  void Terminated(const actor::ActorRef& ref);
  // Messages to dead letters, with a log line saying why.
  void Drop(Held& held, const std::string& why);

  // Remember entities.
  void StartStore();
  void Loaded(const std::set<std::string>& shard_ids);
  void Stored(const IdChanges& changes);
  void Ask(bool stats);
  void Answer(const ShardState& state);

  const std::string type_name_;
  const EntityRegion::EntityProps entity_props_;
  const EntityRegionSettings settings_;
  const std::shared_ptr<const MessageExtractor> extractor_;
  // With a lease store: who holds the leases, and the thread their blocking
  // calls run on (shared with the shards, which may outlive this object's
  // incarnation).
  const std::string lease_owner_;
  const std::shared_ptr<base::TaskRunner> lease_runner_;
  absl::flat_hash_map<std::string, actor::ActorRef> shards_;
  std::map<uint64_t, Query> queries_;
  uint64_t next_query_ = 1;
  bool shutting_down_ = false;

  // To itself: a new remember-entities store after one failed.
  struct RestartStore {};

  actor::ActorRef store_;  // RememberedIds; nobody without remember
  int stores_started_ = 0;
  bool store_ready_ = false;  // it has loaded and takes writes
  bool loading_ = false;      // waiting for the first store's IdsLoaded
  Held waiting_load_;         // messages as sent, in order
  // Messages for shards whose id is being written, by shard.
  absl::flat_hash_map<std::string, Held> waiting_shard_;
  std::size_t held_ = 0;  // in waiting_load_ and waiting_shard_
};

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_REGION_H_
