#include "sharding/message_extractor.h"

#include <cstdint>

namespace cairn::sharding {

std::string StableShardId(std::string_view entity_id, int number_of_shards) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a, 64 bits
  for (unsigned char c : entity_id) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  const uint64_t shards =
      static_cast<uint64_t>(number_of_shards > 0 ? number_of_shards : 1);
  return std::to_string(hash % shards);
}

std::optional<std::string> EnvelopeExtractor::EntityId(
    const actor::AnyMessage& message) const {
  if (const auto* e = message.As<ShardingEnvelope>()) return e->entity_id;
  return std::nullopt;
}

actor::AnyMessage EnvelopeExtractor::EntityMessage(
    const actor::AnyMessage& message) const {
  if (const auto* e = message.As<ShardingEnvelope>()) return e->message;
  return message;
}

}  // namespace cairn::sharding
