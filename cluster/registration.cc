// Adds "cluster" to actor::RemoteTransports, the value of
// akka.actor.provider that selects it, when this target is linked: the
// gRPC transport of //remote:registration, and the Cluster extension
// started with it, which joins.
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "actor/actor_system.h"
#include "actor/remote_transport.h"
#include "cluster/cluster.h"
#include "cluster/cluster_settings.h"
#include "cluster/cluster_setup.h"

namespace cairn::cluster {
namespace {

// Remoting's transport, and the cluster once it is started.
class ClusterTransport final : public actor::RemoteTransport {
 public:
  ClusterTransport(actor::ActorSystem& system,
                   std::unique_ptr<actor::RemoteTransport> remote)
      : system_(system), remote_(std::move(remote)) {}

  const actor::Address& address() const override { return remote_->address(); }
  uint64_t uid() const override { return remote_->uid(); }
  absl::Status Start() override {
    if (absl::Status started = remote_->Start(); !started.ok()) return started;
    Cluster::Get(system_);  // joins
    return absl::OkStatus();
  }
  actor::ActorRef ResolveRef(const actor::ActorPath& path) override {
    return remote_->ResolveRef(path);
  }
  void Shutdown() override { remote_->Shutdown(); }

 private:
  actor::ActorSystem& system_;
  const std::unique_ptr<actor::RemoteTransport> remote_;
};

[[maybe_unused]] const bool kRegistered = actor::RemoteTransports::Add(
    "cluster",
    [](actor::ActorSystem& system)
        -> absl::StatusOr<std::unique_ptr<actor::RemoteTransport>> {
      absl::StatusOr<ClusterSettings> settings =
          ClusterSettings::FromConfig(system.Settings());
      if (!settings.ok()) return settings.status();
      const ClusterSetup* setup = system.Setup().Get<ClusterSetup>();
      if (setup == nullptr || setup->members == nullptr) {
        return absl::InvalidArgumentError(
            "akka.actor.provider = cluster needs a member store: "
            "ActorSystemOptions::setup = ActorSystemSetup().With("
            "cluster::ClusterSetup{store}) (docs/CLUSTER.md)");
      }
      const actor::RemoteTransportFactory* remote =
          actor::RemoteTransports::Find("remote");
      if (remote == nullptr) {
        return absl::FailedPreconditionError(
            "akka.actor.provider = cluster needs remoting: link "
            "//remote:registration");
      }
      absl::StatusOr<std::unique_ptr<actor::RemoteTransport>> transport =
          (*remote)(system);
      if (!transport.ok()) return transport.status();
      return std::unique_ptr<actor::RemoteTransport>(
          std::make_unique<ClusterTransport>(system, *std::move(transport)));
    });

}  // namespace
}  // namespace cairn::cluster
