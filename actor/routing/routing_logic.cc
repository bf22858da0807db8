#include "actor/routing/routing_logic.h"

#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "actor/mailbox_status.h"
#include "base/mutex.h"

namespace cairn::actor::routing {

bool RoutingLogic::Route(const AnyMessage& message, const ActorRef& sender,
                         const std::vector<Routee>& routees, ActorContext*) {
  const std::vector<size_t> picked = Select(message, routees);
  for (size_t i : picked) routees[i].Send(message, sender);
  return !picked.empty();
}

std::vector<size_t> SingleRouteeLogic::Select(
    const AnyMessage& message, const std::vector<Routee>& routees) {
  const std::optional<size_t> picked = SelectOne(message, routees);
  if (!picked.has_value()) return {};
  return {*picked};
}

bool SingleRouteeLogic::Route(const AnyMessage& message, const ActorRef& sender,
                              const std::vector<Routee>& routees,
                              ActorContext*) {
  const std::optional<size_t> picked = SelectOne(message, routees);
  if (!picked.has_value()) return false;
  routees[*picked].Send(message, sender);
  return true;
}

std::optional<size_t> RoundRobinRoutingLogic::SelectOne(
    const AnyMessage&, const std::vector<Routee>& routees) {
  return static_cast<size_t>(next_.fetch_add(1, std::memory_order_relaxed) %
                             routees.size());
}

RandomRoutingLogic::RandomRoutingLogic(std::optional<uint64_t> seed)
    : random_(seed.has_value() ? *seed : std::random_device()()) {}

std::optional<size_t> RandomRoutingLogic::SelectOne(
    const AnyMessage&, const std::vector<Routee>& routees) {
  base::MutexLock lock(&mu_);
  std::uniform_int_distribution<size_t> pick(0, routees.size() - 1);
  return pick(random_);
}

std::optional<size_t> SmallestMailboxRoutingLogic::SelectOne(
    const AnyMessage&, const std::vector<Routee>& routees) {
  // Lower is better. Unseen mailboxes score above any seen one.
  constexpr uint64_t kUnseen = std::numeric_limits<uint64_t>::max();
  size_t best = 0;
  uint64_t best_score = kUnseen;
  for (size_t i = 0; i < routees.size(); ++i) {
    if (routees[i].is_selection()) continue;
    const std::optional<MailboxStatus> status =
        LocalMailboxStatus(routees[i].ref());
    if (!status.has_value()) continue;
    const uint64_t score =
        static_cast<uint64_t>(status->queued) + (status->scheduled ? 1 : 0);
    if (score == 0) return i;
    if (score < best_score) {
      best = i;
      best_score = score;
    }
  }
  return best;
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

uint64_t HashKey::StableHash(std::string_view text) {
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

std::optional<size_t> ConsistentHashingRoutingLogic::SelectOne(
    const AnyMessage& message, const std::vector<Routee>& routees) {
  std::optional<HashKey> key;
  if (const auto* envelope = message.As<ConsistentHashableEnvelope>()) {
    key = envelope->hash_key;
  }
  if (!key.has_value() && hash_key_) key = hash_key_(message);
  if (!key.has_value()) {
    if (const auto* hashable = message.As<ConsistentHashable>()) {
      key = hashable->ConsistentHashKey();
    }
  }
  if (!key.has_value()) return std::nullopt;

  base::MutexLock lock(&mu_);
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
  auto it = ring_.lower_bound(key->hash());
  if (it == ring_.end()) it = ring_.begin();  // the ring wraps around
  return it->second;
}

bool ConsistentHashingRoutingLogic::Route(const AnyMessage& message,
                                          const ActorRef& sender,
                                          const std::vector<Routee>& routees,
                                          ActorContext*) {
  const std::optional<size_t> picked = SelectOne(message, routees);
  if (!picked.has_value()) return false;
  const auto* envelope = message.As<ConsistentHashableEnvelope>();
  routees[*picked].Send(envelope != nullptr ? envelope->message : message,
                        sender);
  return true;
}

}  // namespace cairn::actor::routing
