#ifndef CAIRN_REMOTE_INTERNAL_GRPC_TRANSPORT_H_
#define CAIRN_REMOTE_INTERNAL_GRPC_TRANSPORT_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "actor/actor_system.h"
#include "actor/remote_transport.h"
#include "actor/scheduler.h"
#include "base/mutex.h"
#include "remote/internal/association.h"
#include "remote/internal/transport_core.h"
#include "remote/internal/wire.grpc.pb.h"

namespace cairn::remote::internal {

// The transport `akka.actor.provider = remote` makes: a gRPC server for
// the peers' streams to this system, and an association per peer for
// this system's messages to it. Thread safety: as RemoteTransport.
class GrpcTransport final : public actor::RemoteTransport {
 public:
  // Reads the settings and the setup, and starts listening (the bound
  // port is in the address). InvalidArgument for bad settings;
  // Unavailable when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<GrpcTransport>> Create(
      actor::ActorSystem& system);
  ~GrpcTransport() override;

  const actor::Address& address() const override { return core_->address; }
  uint64_t uid() const override { return core_->uid; }
  absl::Status Start() override;
  actor::ActorRef ResolveRef(const actor::ActorPath& path) override;
  void Shutdown() override;

 private:
  class Service;

  GrpcTransport(std::shared_ptr<TransportCore> core,
                std::unique_ptr<Service> service,
                std::unique_ptr<grpc::Server> server);
  // Every heartbeat-interval: heartbeats, unreachable systems; every
  // system-message-resend-interval: resends.
  void WatcherTick();
  void ResendTick();

  const std::shared_ptr<TransportCore> core_;
  const std::unique_ptr<Service> service_;
  const std::unique_ptr<grpc::Server> server_;

  base::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<actor::Cancellable> ticks_ ABSL_GUARDED_BY(mu_);
  base::Mutex tick_mu_;
  bool ticks_stopped_ ABSL_GUARDED_BY(tick_mu_) = false;
};

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_GRPC_TRANSPORT_H_
