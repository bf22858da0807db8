#ifndef CAIRN_CLUSTER_INTERNAL_CLUSTER_SHARED_H_
#define CAIRN_CLUSTER_INTERNAL_CLUSTER_SHARED_H_

#include <memory>
#include <string>

#include "actor/actor_ref.h"
#include "base/mutex.h"
#include "base/task_runner.h"
#include "cluster/cluster_events.h"
#include "cluster/cluster_settings.h"
#include "cluster/member.h"
#include "persistence/storage/member_store.h"

namespace cairn::cluster::internal {

// What the Cluster extension and its daemon actor share: fixed at start
// but for the view, which the daemon writes after each read of the rows
// and Cluster's readers copy. Thread safety: the view under `mu`.
struct ClusterShared {
  ClusterSettings settings;
  std::shared_ptr<persistence::MemberStore> store;
  UniqueAddress self;
  // Where the store's blocking calls run, one at a time: here rather than
  // in the daemon so that it outlives the daemon (destroyed with the
  // extension, after every actor stopped): the daemon's stop never waits
  // for a call, or for its watch to end.
  std::unique_ptr<base::TaskRunner> store_thread =
      std::make_unique<base::TaskRunner>(1, "cluster-store");

  base::Mutex mu;
  CurrentClusterState state ABSL_GUARDED_BY(mu);
  MemberStatus self_status ABSL_GUARDED_BY(mu) = MemberStatus::kRemoved;
};

// Local messages to the daemon from Cluster's methods.
struct Subscribe {
  actor::ActorRef subscriber;
  InitialStateMode mode = InitialStateMode::kAsEvents;
};
struct Unsubscribe {
  actor::ActorRef subscriber;
};

}  // namespace cairn::cluster::internal

#endif  // CAIRN_CLUSTER_INTERNAL_CLUSTER_SHARED_H_
