#ifndef CAIRN_SHARDING_MESSAGE_EXTRACTOR_H_
#define CAIRN_SHARDING_MESSAGE_EXTRACTOR_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "actor/any_message.h"

namespace cairn::sharding {

// A message for the entity `entity_id`, for regions that use the default
// extractor (Akka's ShardingEnvelope).
struct ShardingEnvelope {
  std::string entity_id;
  actor::AnyMessage message;
};

// The shard of an entity: a stable hash of its id (FNV-1a, the same in
// every process and run) modulo `number_of_shards` (> 0), as a decimal
// string. Akka's default (it uses the id's hashCode).
std::string StableShardId(std::string_view entity_id, int number_of_shards);

// How a region reads the messages sent to it (Akka's MessageExtractor):
// which entity a message is for, which shard that entity lives in, and what
// the entity gets.
//
// Thread safety: called on the region's and the shards' actors and, in a
// cluster, on the thread of each actor of the process that tells the
// region, before the message is queued (the region's send route), all at
// once: it must not keep state that changes, block, or send, and it may be
// called more than once for one message.
class MessageExtractor {
 public:
  virtual ~MessageExtractor() = default;
  // The entity a message is for; nullopt: not for any entity (the region
  // sends it to dead letters, with a log line).
  virtual std::optional<std::string> EntityId(
      const actor::AnyMessage& message) const = 0;
  // What the entity receives. Default: the message itself.
  virtual actor::AnyMessage EntityMessage(
      const actor::AnyMessage& message) const {
    return message;
  }
  // The shard of `entity_id`. Default: StableShardId with the region's
  // number of shards.
  virtual std::string ShardId(std::string_view entity_id,
                              int number_of_shards) const {
    return StableShardId(entity_id, number_of_shards);
  }
};

// The extractor for ShardingEnvelope: the entity gets the inner message.
class EnvelopeExtractor final : public MessageExtractor {
 public:
  std::optional<std::string> EntityId(
      const actor::AnyMessage& message) const override;
  actor::AnyMessage EntityMessage(
      const actor::AnyMessage& message) const override;
};

}  // namespace cairn::sharding

#endif  // CAIRN_SHARDING_MESSAGE_EXTRACTOR_H_
