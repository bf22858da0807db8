#include "remote/internal/transport_core.h"

#include <utility>

#include "actor/actor_path.h"
#include "actor/messages.h"
#include "base/string_view.h"

namespace cairn::remote::internal {

TransportCore::TransportCore(
    actor::ActorSystem* system, RemoteSettings settings, actor::Address address,
    uint64_t uid,
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : system(system),
      settings(std::move(settings)),
      address(std::move(address)),
      uid(uid),
      codec(system, std::move(registry)),
      log(system->Log("akka.remote")) {}

wire::Handshake TransportCore::MakeHandshake(const std::string& to) const {
  wire::Handshake h;
  h.set_protocol_version(kProtocolVersion);
  h.set_from_address(address.ToString());
  h.set_from_uid(uid);
  h.set_to_address(to);
  return h;
}

void TransportCore::DeadLetter(const actor::AnyMessage& message,
                               const actor::ActorRef& sender,
                               const std::string& recipient) const {
  actor::ActorRef to = system->DeadLetters();
  if (absl::StatusOr<actor::ActorPath> path =
          actor::ActorPath::Parse(recipient);
      path.ok()) {
    to = system->ResolveActorRef(*path);
  }
  system->EventStream().Publish(actor::DeadLetter{message, sender, to});
}

std::shared_ptr<grpc::Channel> TransportCore::ChannelTo(
    const actor::Address& to) const {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(static_cast<int>(settings.maximum_frame_size) +
                                kPathAllowance);
  args.SetMaxSendMessageSize(static_cast<int>(settings.maximum_frame_size) +
                             kPathAllowance);
  // One channel per peer: gRPC would otherwise share a connection between
  // the channels of one target, and a system's streams to a peer would
  // share its fate with another system's in the same process.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(GrpcTarget(to.host(), to.port()),
                                   grpc::InsecureChannelCredentials(), args);
}

void TransportCore::InboundStarted() {
  base::MutexLock lock(&mu_);
  ++inbound_;
}

void TransportCore::InboundDone() {
  base::MutexLock lock(&mu_);
  if (--inbound_ == 0) inbound_done_.SignalAll();
}

void TransportCore::AwaitNoInbound() {
  base::MutexLock lock(&mu_);
  while (inbound_ > 0) inbound_done_.Wait(&mu_);
}

std::string GrpcTarget(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) {
    return base::StrCat("[", host, "]:", port);
  }
  return base::StrCat(host, ":", port);
}

}  // namespace cairn::remote::internal
