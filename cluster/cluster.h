#ifndef CAIRN_CLUSTER_CLUSTER_H_
#define CAIRN_CLUSTER_CLUSTER_H_

#include <memory>

#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "cluster/cluster_events.h"
#include "cluster/member.h"

namespace cairn::cluster {

namespace internal {
struct ClusterShared;
}  // namespace internal

// Akka's Cluster extension, with the members kept as rows in a store every
// process reaches (persistence/storage/member_store.h; docs/CLUSTER.md)
// rather than by gossip. A system with `akka.actor.provider = cluster`
// (link //cluster:registration) and a ClusterSetup joins when it starts:
// it writes its row (status up), renews it every renew-interval, reads
// every row when the store announces a change and every
// refresh-interval, and tells its subscribers what changed. A member
// whose row ran out is unreachable, then removed; coordinated shutdown
// leaves gracefully (leaving, exiting, then its row goes).
//
// On a system without the cluster provider the cluster is empty: no
// members, no events.
//
// Lifetime: made by Get on first use (the provider makes it when the
// system starts); destroyed with the system. Thread safety: every method
// from any thread; none blocks.
class Cluster {
 public:
  explicit Cluster(actor::ActorSystem& system);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  static Cluster& Get(actor::ActorSystem& system) {
    return system.GetExtension<Cluster>();
  }

  // This system: its address and incarnation.
  const UniqueAddress& SelfUniqueAddress() const;
  // This system as a member: its status as last read (kRemoved before its
  // row was first read, and once it is gone), its roles.
  Member SelfMember() const;
  // The members as last read.
  CurrentClusterState State() const;

  // Sends `subscriber` the members there are (as `mode` says), then every
  // change (MemberUp, MemberLeft, MemberExited, MemberRemoved,
  // UnreachableMember, ReachableMember) until Unsubscribe or its stop.
  void Subscribe(const actor::ActorRef& subscriber, InitialStateMode mode);
  void Unsubscribe(const actor::ActorRef& subscriber);

 private:
  std::shared_ptr<internal::ClusterShared> shared_;
  actor::ActorRef daemon_;  // nobody without the cluster provider
};

}  // namespace cairn::cluster

#endif  // CAIRN_CLUSTER_CLUSTER_H_
