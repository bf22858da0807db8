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

}  // namespace

std::optional<std::string> RendezvousHome(
    std::string_view shard_id, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  uint64_t best_weight = 0;
  for (const std::string& candidate : candidates) {
    const uint64_t weight = Weight(shard_id, candidate);
    if (best == nullptr || weight > best_weight ||
        (weight == best_weight && candidate < *best)) {
      best = &candidate;
      best_weight = weight;
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

}  // namespace cairn::sharding::internal
