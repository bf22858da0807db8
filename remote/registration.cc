// Adds the gRPC transport to actor::RemoteTransports under "remote", the
// value of akka.actor.provider that selects it, when this target is linked.
#include <memory>

#include "absl/status/statusor.h"
#include "actor/actor_system.h"
#include "actor/remote_transport.h"
#include "remote/internal/grpc_transport.h"

namespace cairn::remote {
namespace {

[[maybe_unused]] const bool kRegistered = actor::RemoteTransports::Add(
    "remote",
    [](actor::ActorSystem& system)
        -> absl::StatusOr<std::unique_ptr<actor::RemoteTransport>> {
      absl::StatusOr<std::unique_ptr<internal::GrpcTransport>> transport =
          internal::GrpcTransport::Create(system);
      if (!transport.ok()) return transport.status();
      return std::unique_ptr<actor::RemoteTransport>(*std::move(transport));
    });

}  // namespace
}  // namespace cairn::remote
