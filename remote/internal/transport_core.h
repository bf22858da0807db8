#ifndef CAIRN_REMOTE_INTERNAL_TRANSPORT_CORE_H_
#define CAIRN_REMOTE_INTERNAL_TRANSPORT_CORE_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/address.h"
#include "actor/any_message.h"
#include "actor/logging.h"
#include "base/mutex.h"
#include "remote/internal/message_codec.h"
#include "remote/internal/wire.grpc.pb.h"
#include "remote/remote_settings.h"

namespace cairn::remote::internal {

// The protocol this build speaks; a peer speaking another is refused.
inline constexpr uint32_t kProtocolVersion = 1;
// A frame is a batch of messages no larger than maximum-frame-size, plus
// each envelope's paths; what a peer sends beyond that closes its stream.
inline constexpr int kPathAllowance = 64 * 1024;

// What the transport's parts share: the system, its address and
// incarnation, settings, the codec. Held by shared_ptr by associations,
// streams and remote refs, which may outlive the transport; they touch
// `system` only while the transport is not shut down (Association and
// InboundStream say how they make sure).
//
// Thread safety: immutable after construction, except `started` (atomic)
// and the inbound count (under its mutex).
struct TransportCore {
  TransportCore(
      actor::ActorSystem* system, RemoteSettings settings,
      actor::Address address, uint64_t uid,
      std::shared_ptr<const serialization::SerializationRegistry> registry);

  // The handshake this system opens a stream to `to` with, or answers one.
  wire::Handshake MakeHandshake(const std::string& to) const;
  // A message that will not be delivered, published as Akka does.
  void DeadLetter(const actor::AnyMessage& message,
                  const actor::ActorRef& sender,
                  const std::string& recipient) const;
  // A channel to `to`'s server with the settings' limits.
  std::shared_ptr<grpc::Channel> ChannelTo(const actor::Address& to) const;

  // Inbound streams not yet done; the transport's shutdown waits for 0.
  void InboundStarted();
  void InboundDone();
  void AwaitNoInbound();

  actor::ActorSystem* const system;
  const RemoteSettings settings;
  const actor::Address address;
  const uint64_t uid;
  const MessageCodec codec;
  const actor::LoggingAdapter log;
  // Incoming traffic is refused until the system is up (Start).
  std::atomic<bool> started{false};

 private:
  base::Mutex mu_;
  base::CondVar inbound_done_;
  int inbound_ ABSL_GUARDED_BY(mu_) = 0;
};

// "host:port" as gRPC wants it (an IPv6 host in brackets).
std::string GrpcTarget(const std::string& host, int port);

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_TRANSPORT_CORE_H_
