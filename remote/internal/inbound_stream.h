#ifndef CAIRN_REMOTE_INTERNAL_INBOUND_STREAM_H_
#define CAIRN_REMOTE_INTERNAL_INBOUND_STREAM_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "base/mutex.h"
#include "remote/internal/transport_core.h"
#include "remote/internal/wire.grpc.pb.h"

namespace cairn::remote::internal {

// A peer's stream to this system (the server side of Associate): checks
// the handshake, answers it, then takes the peer's system messages once
// each, in order (acknowledging them), delivers each envelope to its local
// recipient (a selection along its elements) in the order they came, and
// answers heartbeats.
// What cannot be delivered is logged and dropped: an undecodable message,
// a path that does not parse; a recipient that does not exist gets a dead
// letter (its ref is an empty one).
//
// Made by gRPC's callback service; deletes itself when gRPC is done with
// it. The transport waits for every one to be done before its Shutdown
// returns (TransportCore::AwaitNoInbound).
class InboundStream final
    : public grpc::ServerBidiReactor<wire::Frame, wire::Frame> {
 public:
  explicit InboundStream(std::shared_ptr<TransportCore> core);

  // The peer sent no handshake within handshake-timeout: the stream ends
  // (DEADLINE_EXCEEDED). Called by TransportCore::RefuseSlowHandshakes.
  void RefuseSlowHandshake();

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone() override;

 private:
  // A ref that Resolve found, remembered by the path's text.
  struct Remembered {
    actor::ActorRef ref;
    bool by_name;  // found by a path without a uid
    bool local;    // an actor of this system
  };

  // Returns a refusal's reason, or "" for a good handshake (whose sender
  // it notes in peer_address_).
  std::string CheckHandshake(const wire::Frame& frame);
  void Deliver(const wire::Envelope& envelope);
  void DeliverSystem(const wire::SystemMessage& message);
  // Writes what the peer is owed (the handshake's answer, an
  // acknowledgement, a heartbeat answer) unless a write is in flight
  // (its completion writes what has gathered meanwhile).
  void WriteAnswers();
  // The ref a path in an envelope names (`local`: it must be this
  // system's). Remembered, up to a bound: refs of paths with a uid (they
  // never change), and this system's actors found by a path without one,
  // for as long as they run.
  absl::StatusOr<actor::ActorRef> Resolve(const std::string& text, bool local);
  static absl::Status NotOfThisSystem(std::string_view text);
  void FinishOnce(grpc::Status status);
  // Logs a warning about the peer's traffic, at most one a second.
  void Complain(std::string_view text);

  const std::shared_ptr<TransportCore> core_;
  wire::Frame in_;
  wire::Frame out_;
  // The peer's address and incarnation, once its handshake was read.
  std::string peer_;
  actor::Address peer_address_{""};
  uint64_t peer_uid_ = 0;
  absl::flat_hash_map<std::string, Remembered> refs_;
  absl::Time next_complaint_ = absl::InfinitePast();
  int64_t unsaid_complaints_ = 0;

  // Reads and the one write complete on different threads.
  base::Mutex mu_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool answer_handshake_ ABSL_GUARDED_BY(mu_) = false;
  bool answer_heartbeat_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t ack_ ABSL_GUARDED_BY(mu_) = 0;    // to acknowledge
  uint64_t acked_ ABSL_GUARDED_BY(mu_) = 0;  // acknowledged in a write
  bool finish_after_write_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status finish_status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_INBOUND_STREAM_H_
