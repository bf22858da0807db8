#ifndef CAIRN_SHARDING_INTERNAL_MEMBER_VIEW_H_
#define CAIRN_SHARDING_INTERNAL_MEMBER_VIEW_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/cluster_events.h"
#include "cluster/member.h"

namespace cairn::sharding::internal {

// The members as a region in a cluster sees them, from the cluster's
// events: who may host its shards, and who holds a lease it read. A
// member is live while it is up, leaving or exiting and reachable: its
// leases are renewed and its region answers. A value kept by the region's
// actor: not thread-safe.
class MemberView {
 public:
  // `role`: members without it host nothing of this region's type
  // (empty: every member may).
  explicit MemberView(std::string role) : role_(std::move(role)) {}

  // Each returns the members that stopped being live, whose shards' homes
  // the region forgets.
  std::vector<cluster::Member> Apply(const cluster::CurrentClusterState& state);
  // A member's new status (up, leaving, exiting); its reachability stays.
  std::vector<cluster::Member> Update(const cluster::Member& member);
  // A member's reachability changed.
  std::vector<cluster::Member> SetReachable(const cluster::Member& member,
                                            bool reachable);
  std::vector<cluster::Member> Remove(const cluster::Member& member);

  // Whether the member (by UniqueAddress::ToString) runs a region that
  // takes shards (RegionStatus).
  void SetHosting(const std::string& unique, bool hosting);
  bool IsHosting(const std::string& unique) const {
    return hosting_.contains(unique);
  }
  // The live members.
  std::vector<cluster::Member> LiveMembers() const;

  // Where a free shard may go: the addresses of the up, reachable members
  // with the role whose regions take shards, in no particular order. `exclude`:
  // one member left out (a region that does not host: a proxy, or one handing
  // off).
  std::vector<std::string> Candidates(
      const std::optional<cluster::UniqueAddress>& exclude) const;
  // The live member with this UniqueAddress::ToString (a lease's owner).
  std::optional<cluster::Member> Live(const std::string& unique) const;
  // The up member at `address` (a candidate's), if any.
  std::optional<cluster::Member> UpAt(const std::string& address) const;
  // Whether a live member is at `address`.
  bool LiveAt(const std::string& address) const;

 private:
  bool IsLive(const std::string& unique) const;

  const std::string role_;
  std::map<std::string, cluster::Member> members_;  // by unique address
  std::set<std::string> unreachable_;               // unique addresses
  std::set<std::string> hosting_;                   // their regions take shards
};

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_MEMBER_VIEW_H_
