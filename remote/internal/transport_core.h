#ifndef CAIRN_REMOTE_INTERNAL_TRANSPORT_CORE_H_
#define CAIRN_REMOTE_INTERNAL_TRANSPORT_CORE_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/address.h"
#include "actor/any_message.h"
#include "actor/logging.h"
#include "base/mutex.h"
#include "remote/internal/message_codec.h"
#include "remote/internal/remote_watcher.h"
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
// Thread safety: every method from any thread; the fields are immutable
// after construction, except `started` (atomic) and `watcher`
// (thread-safe).
class Association;
class InboundStream;

struct TransportCore : std::enable_shared_from_this<TransportCore> {
  TransportCore(
      actor::ActorSystem* system, RemoteSettings settings,
      actor::Address address, uint64_t uid,
      std::shared_ptr<const serialization::SerializationRegistry> registry,
      std::shared_ptr<grpc::ChannelCredentials> channel_credentials);

  // The handshake this system opens a stream to `to` with, or answers one.
  wire::Handshake MakeHandshake(const std::string& to) const;
  // A message that will not be delivered, published as Akka does.
  void DeadLetter(const actor::AnyMessage& message,
                  const actor::ActorRef& sender,
                  const std::string& recipient) const;
  // A channel to `to`'s server with the settings' limits and credentials
  // (TLS when ssl.enabled).
  std::shared_ptr<grpc::Channel> ChannelTo(const actor::Address& to) const;

  // Inbound streams not yet done; the transport's shutdown waits for 0.
  void InboundStarted();
  void InboundDone();
  void AwaitNoInbound();

  // Inbound streams whose peer has not sent its handshake yet: one that
  // has not within handshake-timeout is refused (RefuseSlowHandshakes,
  // from the transport's tick). HandshakeCame forgets `stream` and
  // returns whether it was still waiting (false: it has been refused).
  void AwaitHandshake(InboundStream* stream);
  bool HandshakeCame(InboundStream* stream);
  void RefuseSlowHandshakes();

  // The association to `address`, made on first use; one made after
  // BeginShutdown is closed from the start.
  std::shared_ptr<Association> AssociationTo(const actor::Address& address);
  // Marks the shutdown begun and hands over every association (the core
  // keeps none from then on).
  std::vector<std::shared_ptr<Association>> BeginShutdown();
  std::vector<std::shared_ptr<Association>> Associations();

  // A handshake (either way) showed incarnation `uid` at `address`. A
  // different one than known means the known one is gone (PeerGone for
  // it). Returns false when `uid` is quarantined: refuse it.
  bool SeenIncarnation(const actor::Address& address, uint64_t uid);
  // The system at `address` (incarnation `uid`; 0: the one known) is gone,
  // for `why`: its actors' local watchers get Terminated, its watchers of
  // local actors are dropped, and the incarnation is quarantined: refused
  // from now on, whatever is queued for it dropped.
  void PeerGone(const actor::Address& address, uint64_t uid,
                std::string_view why, bool expected = false);
  bool IsQuarantined(const actor::Address& address, uint64_t uid);
  // The receiving side of system messages from `address`'s incarnation
  // `uid`: true when `seq` is the next in order, which it then counts as
  // taken; Taken is the highest taken (what to acknowledge).
  bool TakeSystemMessage(const actor::Address& address, uint64_t uid,
                         uint64_t seq);
  uint64_t SystemMessagesTaken(const actor::Address& address, uint64_t uid);

  actor::ActorSystem* const system;
  const RemoteSettings settings;
  const actor::Address address;
  const uint64_t uid;
  const MessageCodec codec;
  const actor::LoggingAdapter log;
  const std::shared_ptr<grpc::ChannelCredentials> channel_credentials;
  // Incoming traffic is refused until the system is up (Start).
  std::atomic<bool> started{false};
  RemoteWatcher watcher;

 private:
  struct Incarnation {
    uint64_t uid = 0;
    uint64_t taken = 0;  // system messages taken from it, in order
  };

  // Taken before an InboundStream's own lock, never after.
  base::Mutex handshakes_mu_;
  absl::flat_hash_map<InboundStream*, absl::Time> awaiting_handshake_
      ABSL_GUARDED_BY(handshakes_mu_);

  base::Mutex mu_;
  base::CondVar inbound_done_;
  int inbound_ ABSL_GUARDED_BY(mu_) = 0;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<actor::Address, std::shared_ptr<Association>>
      associations_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<actor::Address, Incarnation> incarnations_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::pair<actor::Address, uint64_t>> quarantined_
      ABSL_GUARDED_BY(mu_);
};

// "host:port" as gRPC wants it (an IPv6 host in brackets).
std::string GrpcTarget(const std::string& host, int port);

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_TRANSPORT_CORE_H_
