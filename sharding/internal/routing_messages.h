#ifndef CAIRN_SHARDING_INTERNAL_ROUTING_MESSAGES_H_
#define CAIRN_SHARDING_INTERNAL_ROUTING_MESSAGES_H_

#include <string>

#include "actor/actor_ref.h"
#include "actor/any_message.h"

// What the regions of one type in a cluster tell each other
// (docs/design/cluster.md, "Sharding over the members"). They cross
// processes: sharding's ModuleSerializer writes them
// (internal/wire_serializer.cc).

namespace cairn::sharding::internal {

// Region -> region: a message for an entity of `shard_id`, already through
// the extractor of the region that first routed it (`origin`), sent with
// the original sender. The receiving region delivers it to its shard; one
// that does not hold the shard starts it (it was chosen as the shard's
// home, and the lease decides) or, not hosting, routes it on and tells
// `origin` the home (ShardHome). `hops` counts the regions it went
// through, so that routing that goes round in circles ends.
struct RoutedDelivery {
  std::string shard_id;
  std::string entity_id;
  actor::AnyMessage message;  // what the entity gets; empty with `start`
  bool start = false;         // a StartEntity
  // Nobody when it is the region of this type at the sender's member (the
  // sender's address names it): left off the wire then.
  actor::ActorRef origin;
  int hops = 0;
};

// Region -> region: `region` is where `shard_id` lives now; the receiver
// sends the shard's messages there from now on.
struct ShardHome {
  std::string shard_id;
  actor::ActorRef region;
};

// Region -> region, after a hand-off, with remember entities: start
// `shard_id` here (take its lease, start its remembered entities) though
// no message for it has come.
struct HostShard {
  std::string shard_id;
};

// Region -> the other members' regions: whether `member` (a
// UniqueAddress::ToString) runs a region of this type that takes shards.
// Placement and rebalancing choose only among members whose regions said
// so, so that no shard goes to a member that runs no region (yet), or a
// proxy, or one that leaves. A region says so when it starts, to each
// member that comes up, in answer to another's first word, and every
// rebalance interval (a word lost is said again); it says `hosting` false
// when it begins to hand its shards off, before anything it passes on
// (messages between two systems keep their order).
struct RegionStatus {
  std::string member;
  bool hosting = false;
};

// Local only. Coordinated shutdown -> region in a cluster: hand every
// shard off, answer HandedOff, and keep routing (hosting nothing) until
// the system stops, so that messages that come while the others learn
// this member leaves still reach the shards' next homes.
struct HandOffAll {};
struct HandedOff {};

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_ROUTING_MESSAGES_H_
