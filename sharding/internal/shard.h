#ifndef CAIRN_SHARDING_INTERNAL_SHARD_H_
#define CAIRN_SHARDING_INTERNAL_SHARD_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/scheduler.h"
#include "sharding/entity_region.h"

namespace cairn::sharding::internal {

// Region -> shard: a message for one entity (already through the
// extractor), with the original sender.
struct ShardDelivery {
  std::string entity_id;
  actor::AnyMessage message;
};
// Region -> shard: stop every entity, then stop (the region's
// GracefulShutdown).
struct HandOff {};
// Region -> shard -> region: the shard's entities, for GetShardRegionState
// and GetShardRegionStats.
struct GetShardState {
  uint64_t request = 0;
};
struct ShardState {
  uint64_t request = 0;
  std::string shard_id;
  std::set<std::string> entity_ids;
};

// One shard of a region: the parent of its entities. Creates an entity on
// its first message, holds the messages of an entity being passivated and
// gives them to its next incarnation, passivates idle entities and, beyond
// its part of the active-entity limit, the least recently used.
//
// Every entity the shard knows is in `entities_`; the active ones (not
// passivating) are also in `lru_`, most recent first.
class Shard final : public actor::Actor {
 public:
  Shard(std::string shard_id, EntityRegion::EntityProps entity_props,
        EntityRegionSettings settings, std::size_t active_limit);
  void PreStart() override;
  void PostStop() override;

 private:
  struct IdleCheck {};
  struct Entity {
    actor::ActorRef ref;
    bool passivating = false;
    // Messages (with their senders) that came while it stopped.
    std::deque<std::pair<actor::AnyMessage, actor::ActorRef>> held;
    absl::Time last_message;
    std::list<std::string>::iterator lru;  // valid while active
  };

  void Deliver(const std::string& id, const actor::AnyMessage& message,
               const actor::ActorRef& sender);
  Entity& StartEntity(const std::string& id);
  void StartPassivation(Entity& e, const actor::AnyMessage& stop_message);
  void EntityTerminated(const actor::ActorRef& ref);
  void PassivateIdle();
  void BeginHandOff();
  // Sends what is held for an entity to dead letters, with a log line.
  void DropHeld(const std::string& id, Entity& e);
  void EnforceLimit();

  const std::string shard_id_;
  const EntityRegion::EntityProps entity_props_;
  const EntityRegionSettings settings_;
  const std::size_t active_limit_;  // 0: none
  // Node-based: references to an Entity stay valid while others come and
  // go.
  absl::node_hash_map<std::string, Entity> entities_;
  absl::flat_hash_map<actor::ActorRef, std::string> ids_;  // ref -> id
  std::list<std::string> lru_;
  std::size_t held_ = 0;  // messages held, over all entities
  actor::Cancellable idle_check_;
  bool handing_off_ = false;
};

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_SHARD_H_
