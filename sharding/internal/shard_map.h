#ifndef CAIRN_SHARDING_INTERNAL_SHARD_MAP_H_
#define CAIRN_SHARDING_INTERNAL_SHARD_MAP_H_

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace cairn::sharding::internal {

// A map by shard id that notes, in a set it shares with others of its
// kind, each shard that may have been added, removed or replaced. The
// region keeps the shards it hosts, resolves and forwards in these, and
// brings its send route up to date from the noted shards after each
// message (Region::UpdateRoute): no change of where a shard's messages go
// can be missed by a place that forgot to say so.
//
// Thread safety: the owner's (the region's actor).
template <typename V>
class ShardMap {
 public:
  using Map = absl::flat_hash_map<std::string, V>;
  using iterator = typename Map::iterator;
  using const_iterator = typename Map::const_iterator;

  // `noted` outlives this map.
  explicit ShardMap(absl::flat_hash_set<std::string>* noted) : noted_(noted) {}

  iterator begin() { return map_.begin(); }
  iterator end() { return map_.end(); }
  const_iterator begin() const { return map_.begin(); }
  const_iterator end() const { return map_.end(); }
  iterator find(const std::string& id) { return map_.find(id); }
  const_iterator find(const std::string& id) const { return map_.find(id); }
  bool contains(const std::string& id) const { return map_.contains(id); }
  const V& at(const std::string& id) const { return map_.at(id); }
  bool empty() const { return map_.empty(); }
  std::size_t size() const { return map_.size(); }

  // Through a reference that may replace the value: noted.
  V& operator[](const std::string& id) {
    noted_->insert(id);
    return map_[id];
  }
  template <typename... Args>
  std::pair<iterator, bool> try_emplace(const std::string& id, Args&&... args) {
    noted_->insert(id);
    return map_.try_emplace(id, std::forward<Args>(args)...);
  }
  std::size_t erase(const std::string& id) {
    noted_->insert(id);
    return map_.erase(id);
  }
  void erase(iterator it) {
    noted_->insert(it->first);
    map_.erase(it);
  }
  void clear() {
    for (const auto& [id, value] : map_) noted_->insert(id);
    map_.clear();
  }

 private:
  absl::flat_hash_set<std::string>* const noted_;
  Map map_;
};

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_SHARD_MAP_H_
