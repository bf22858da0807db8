#include "actor/internal/type_match.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "base/mutex.h"

namespace cairn::actor::internal {
namespace {

struct DerivationCache {
  base::Mutex mu;
  absl::flat_hash_map<std::pair<std::type_index, std::type_index>, bool> known
      ABSL_GUARDED_BY(mu);
};

DerivationCache& Cache() {
  static DerivationCache* cache = new DerivationCache();
  return *cache;
}

}  // namespace

int LookupDerivation(std::type_index value, std::type_index wanted) {
  DerivationCache& cache = Cache();
  base::MutexLock lock(&cache.mu);
  auto it = cache.known.find({value, wanted});
  return it == cache.known.end() ? -1 : (it->second ? 1 : 0);
}

void RecordDerivation(std::type_index value, std::type_index wanted,
                      bool derives) {
  DerivationCache& cache = Cache();
  base::MutexLock lock(&cache.mu);
  cache.known.insert_or_assign({value, wanted}, derives);
}

}  // namespace cairn::actor::internal
