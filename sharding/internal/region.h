#ifndef CAIRN_SHARDING_INTERNAL_REGION_H_
#define CAIRN_SHARDING_INTERNAL_REGION_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "actor/actor.h"
#include "sharding/entity_region.h"
#include "sharding/internal/shard.h"

namespace cairn::sharding::internal {

// The region's actor: the parent of its shards, each created with its
// first entity. Routes each message by the extractor to its shard, keeping
// the sender; answers the state and stats queries by asking every shard.
class Region final : public actor::Actor {
 public:
  Region(std::string type_name, EntityRegion::EntityProps entity_props,
         EntityRegionSettings settings,
         std::shared_ptr<const MessageExtractor> extractor);

 private:
  // A state or stats query waiting for its shards' answers.
  struct Query {
    actor::ActorRef asker;
    bool stats = false;
    std::size_t waiting = 0;
    CurrentShardRegionState state;
  };

  void Route(const actor::AnyMessage& message);
  void BeginShutdown();
  void ShardTerminated(const actor::ActorRef& shard);
  void Ask(bool stats);
  void Answer(const ShardState& state);

  const std::string type_name_;
  const EntityRegion::EntityProps entity_props_;
  const EntityRegionSettings settings_;
  const std::shared_ptr<const MessageExtractor> extractor_;
  const std::size_t active_limit_per_shard_;
  absl::flat_hash_map<std::string, actor::ActorRef> shards_;
  std::map<uint64_t, Query> queries_;
  uint64_t next_query_ = 1;
  bool shutting_down_ = false;
};

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_REGION_H_
