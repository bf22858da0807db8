#include "cluster/cluster.h"

#include <utility>

#include "actor/props.h"
#include "cluster/cluster_setup.h"
#include "cluster/internal/cluster_daemon.h"
#include "cluster/internal/cluster_shared.h"

namespace cairn::cluster {

Cluster::Cluster(actor::ActorSystem& system)
    : shared_(std::make_shared<internal::ClusterShared>()) {
  shared_->self = {system.address(), system.Uid()};
  const ClusterSetup* setup = system.Setup().Get<ClusterSetup>();
  absl::StatusOr<std::string> provider =
      system.Settings().GetString("akka.actor.provider");
  // The provider checked both when the system was made; without it the
  // cluster stays empty.
  absl::StatusOr<ClusterSettings> settings =
      ClusterSettings::FromConfig(system.Settings());
  if (!provider.ok() || *provider != "cluster" || setup == nullptr ||
      setup->members == nullptr || !settings.ok()) {
    return;
  }
  shared_->settings = *std::move(settings);
  shared_->store = setup->members;
  daemon_ = system.SystemActorOf(actor::Props::Create<internal::ClusterDaemon>(
                                     shared_, system.Log("cluster")),
                                 "cluster");
}

Cluster::~Cluster() = default;

const UniqueAddress& Cluster::SelfUniqueAddress() const {
  return shared_->self;
}

Member Cluster::SelfMember() const {
  Member self;
  self.unique_address = shared_->self;
  self.roles = shared_->settings.roles;
  base::MutexLock lock(&shared_->mu);
  self.status = shared_->self_status;
  return self;
}

CurrentClusterState Cluster::State() const {
  base::MutexLock lock(&shared_->mu);
  return shared_->state;
}

void Cluster::Subscribe(const actor::ActorRef& subscriber,
                        InitialStateMode mode) {
  if (daemon_.IsNobody()) {
    if (mode == InitialStateMode::kAsSnapshot) {
      subscriber.Tell(CurrentClusterState{});
    }
    return;
  }
  daemon_.Tell(internal::Subscribe{subscriber, mode});
}

void Cluster::Unsubscribe(const actor::ActorRef& subscriber) {
  if (!daemon_.IsNobody()) daemon_.Tell(internal::Unsubscribe{subscriber});
}

}  // namespace cairn::cluster
