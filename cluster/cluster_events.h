#ifndef CAIRN_CLUSTER_CLUSTER_EVENTS_H_
#define CAIRN_CLUSTER_CLUSTER_EVENTS_H_

// What Cluster::Subscribe sends (Akka's ClusterEvent): a member's status
// changes, and its reachability. Local messages: they are not sent to
// other systems.

#include <vector>

#include "cluster/member.h"

namespace cairn::cluster {

// A member's row was written: it joined.
struct MemberUp {
  Member member;
};
// It began to leave gracefully (its shards are being handed off).
struct MemberLeft {
  Member member;
};
// It is done handing off; its row goes next.
struct MemberExited {
  Member member;
};
// Its row is gone: it left, or ran out and was removed as down, or
// another incarnation took its address. `member.status` is kRemoved.
struct MemberRemoved {
  Member member;
  MemberStatus previous_status = MemberStatus::kUp;
};
// Its row ran out: it stopped renewing (dead, paused, or cut off from the
// database). Removed next, unless it renews first (ReachableMember).
struct UnreachableMember {
  Member member;
};
struct ReachableMember {
  Member member;
};

// The members now (Akka's CurrentClusterState): every member with a row,
// by address, and those of them that are unreachable.
struct CurrentClusterState {
  std::vector<Member> members;
  std::vector<Member> unreachable;
};

// How a subscriber learns of the members there already are (Akka's
// SubscriptionInitialStateMode): a CurrentClusterState, or a MemberUp (and
// MemberLeft or MemberExited, UnreachableMember) per member, as if it had
// subscribed before they came.
enum class InitialStateMode { kAsSnapshot, kAsEvents };

}  // namespace cairn::cluster

#endif  // CAIRN_CLUSTER_CLUSTER_EVENTS_H_
