#ifndef CAIRN_CLUSTER_CLUSTER_SETUP_H_
#define CAIRN_CLUSTER_CLUSTER_SETUP_H_

#include <memory>

#include "persistence/storage/member_store.h"

namespace cairn::cluster {

// What the cluster takes in code rather than config
// (actor/actor_system_setup.h), as a lease store for sharding:
//
//   options.setup = ActorSystemSetup().With(cluster::ClusterSetup{
//       *persistence::PostgresMembers::Open(options)});
//
// A system with `akka.actor.provider = cluster` needs one.
struct ClusterSetup {
  // Where the member rows are: PostgresMembers across processes,
  // InMemoryMemberStore shared by systems of one process (tests). Shared;
  // called from the cluster's own thread.
  std::shared_ptr<persistence::MemberStore> members;
};

}  // namespace cairn::cluster

#endif  // CAIRN_CLUSTER_CLUSTER_SETUP_H_
