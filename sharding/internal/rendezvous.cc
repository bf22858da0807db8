#include "sharding/internal/rendezvous.h"

#include <cstdint>

namespace cairn::sharding::internal {
namespace {

uint64_t Fnv1a(uint64_t hash, std::string_view bytes) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

// MurmurHash3's finalizer: FNV-1a's low bits barely depend on the last
// bytes, and the weights of one shard differ only there.
uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

uint64_t Weight(std::string_view shard_id, std::string_view candidate) {
  uint64_t hash = Fnv1a(14695981039346656037ull, shard_id);
  hash = Fnv1a(hash, std::string_view("\0", 1));  // "a"+"bc" is not "ab"+"c"
  return Mix(Fnv1a(hash, candidate));
}

// Whether `a` (of weight `wa`) ranks above `b`: a higher weight, ties to
// the smaller name.
bool RanksAbove(uint64_t wa, std::string_view a, uint64_t wb,
                std::string_view b) {
  return wa > wb || (wa == wb && a < b);
}

std::optional<std::string> Best(
    std::string_view shard_id, const std::vector<std::string>& candidates,
    const std::optional<std::string_view>& ceiling) {
  const uint64_t ceiling_weight =
      ceiling.has_value() ? Weight(shard_id, *ceiling) : 0;
  const std::string* best = nullptr;
  uint64_t best_weight = 0;
  for (const std::string& candidate : candidates) {
    const uint64_t weight = Weight(shard_id, candidate);
    if (ceiling.has_value() &&
        !RanksAbove(ceiling_weight, *ceiling, weight, candidate)) {
      continue;
    }
    if (best == nullptr || RanksAbove(weight, candidate, best_weight, *best)) {
      best = &candidate;
      best_weight = weight;
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

}  // namespace

std::optional<std::string> RendezvousHome(
    std::string_view shard_id, const std::vector<std::string>& candidates) {
  return Best(shard_id, candidates, std::nullopt);
}

std::optional<std::string> RendezvousHomeBelow(
    std::string_view shard_id, const std::vector<std::string>& candidates,
    std::string_view ceiling) {
  return Best(shard_id, candidates, ceiling);
}

}  // namespace cairn::sharding::internal
