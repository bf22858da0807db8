#ifndef CAIRN_SHARDING_INTERNAL_RENDEZVOUS_H_
#define CAIRN_SHARDING_INTERNAL_RENDEZVOUS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cairn::sharding::internal {

// Where a free shard goes (rendezvous, or highest-random-weight, hashing):
// the candidate with the highest weight for the shard, the weight a stable
// hash of the two (the same in every process, build and run), ties to the
// smaller candidate. Every member computing it over the same candidates
// gets the same home with no coordinator, and a candidate added or removed
// moves only the shards it wins or held: about 1/n of them. nullopt when
// there is no candidate.
std::optional<std::string> RendezvousHome(
    std::string_view shard_id, const std::vector<std::string>& candidates);

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_RENDEZVOUS_H_
