#include "actor/routing/routing_logic.h"

#include <numeric>

#include "absl/strings/str_cat.h"

namespace cairn::actor::routing {

bool RoutingLogic::Route(const AnyMessage& message, const ActorRef& sender,
                         const std::vector<Routee>& routees, ActorContext*) {
  const std::vector<size_t> picked = Select(message, routees);
  for (size_t i : picked) routees[i].Send(message, sender);
  return !picked.empty();
}

std::vector<size_t> RoundRobinRoutingLogic::Select(
    const AnyMessage&, const std::vector<Routee>& routees) {
  return {static_cast<size_t>(next_.fetch_add(1, std::memory_order_relaxed) %
                              routees.size())};
}

RandomRoutingLogic::RandomRoutingLogic(std::optional<uint64_t> seed)
    : random_(seed.has_value() ? *seed : std::random_device()()) {}

std::vector<size_t> RandomRoutingLogic::Select(
    const AnyMessage&, const std::vector<Routee>& routees) {
  std::lock_guard<std::mutex> lock(mu_);
  std::uniform_int_distribution<size_t> pick(0, routees.size() - 1);
  return {pick(random_)};
}

std::vector<size_t> BroadcastRoutingLogic::Select(
    const AnyMessage&, const std::vector<Routee>& routees) {
  std::vector<size_t> all(routees.size());
  std::iota(all.begin(), all.end(), size_t{0});
  return all;
}

ConsistentHashingRoutingLogic::ConsistentHashingRoutingLogic(
    HashKeyFunction hash_key, int virtual_nodes_factor)
    : hash_key_(std::move(hash_key)),
      virtual_nodes_factor_(virtual_nodes_factor < 1 ? 1
                                                     : virtual_nodes_factor) {}

uint64_t ConsistentHashingRoutingLogic::Hash(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  // FNV-1a spreads short, similar keys poorly over the high bits; a final
  // mix (from SplitMix64) makes neighbouring keys land far apart.
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}

std::vector<size_t> ConsistentHashingRoutingLogic::Select(
    const AnyMessage& message, const std::vector<Routee>& routees) {
  std::optional<std::string> key;
  if (const auto* envelope = message.As<ConsistentHashableEnvelope>()) {
    key = envelope->hash_key;
  }
  if (!key.has_value() && hash_key_) key = hash_key_(message);
  if (!key.has_value()) {
    if (const auto* hashable = message.As<ConsistentHashable>()) {
      key = hashable->ConsistentHashKey();
    }
  }
  if (!key.has_value()) return {};

  std::lock_guard<std::mutex> lock(mu_);
  if (ring_routees_ != routees) {
    ring_routees_ = routees;
    ring_.clear();
    for (size_t i = 0; i < routees.size(); ++i) {
      const std::string name = routees[i].ToString();
      for (int v = 0; v < virtual_nodes_factor_; ++v) {
        ring_.emplace(Hash(absl::StrCat(name, ":", v)), i);
      }
    }
  }
  auto it = ring_.lower_bound(Hash(*key));
  if (it == ring_.end()) it = ring_.begin();  // the ring wraps around
  return {it->second};
}

bool ConsistentHashingRoutingLogic::Route(const AnyMessage& message,
                                          const ActorRef& sender,
                                          const std::vector<Routee>& routees,
                                          ActorContext*) {
  const std::vector<size_t> picked = Select(message, routees);
  const auto* envelope = message.As<ConsistentHashableEnvelope>();
  for (size_t i : picked) {
    routees[i].Send(envelope != nullptr ? envelope->message : message, sender);
  }
  return !picked.empty();
}

}  // namespace cairn::actor::routing
