#ifndef CAIRN_REMOTE_INTERNAL_ASSOCIATION_H_
#define CAIRN_REMOTE_INTERNAL_ASSOCIATION_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/address.h"
#include "actor/any_message.h"
#include "base/mutex.h"
#include "remote/internal/transport_core.h"
#include "remote/internal/wire.grpc.pb.h"

namespace cairn::remote::internal {

// A message on its way to a peer.
struct Outbound {
  std::shared_ptr<const std::string> recipient;  // path text with uid
  actor::AnyMessage message;
  actor::ActorRef sender;
  // An ActorSelection's elements; null for a message to `recipient`.
  std::shared_ptr<const std::vector<std::string>> elements;
};

class OutboundStream;

// This system's way to one peer (Artery's outbound association): the
// messages queued for it and the one gRPC stream they go in, opened on the
// first message and again after a failure (once outbound-restart-backoff
// has passed). Order is kept per association, so per sender-receiver pair.
//
// The stream's first write is the handshake, alone; messages wait in the
// queue for its answer. Then whoever finds no write in flight takes the
// queue as a batch,
// serializes it and starts the write (the sender's own thread when the
// stream is idle: no thread hop for request-reply); while a write is in
// flight, senders only enqueue, and the write's completion takes the next
// batch. Delivery is at-most-once: what is queued when the stream fails,
// the queue is full, or the peer is backing off, goes to dead letters.
//
// Thread safety: every method from any thread. Owned by shared_ptr (the
// transport's map, the remote refs, the stream in flight).
class Association : public std::enable_shared_from_this<Association> {
 public:
  Association(std::shared_ptr<TransportCore> core, actor::Address remote);
  ~Association();

  const actor::Address& remote() const { return remote_; }

  void Send(Outbound message);

  // The transport's shutdown, in three steps so that it runs them for
  // every peer at once. Flush waits until what is queued is written, or
  // `deadline`. End stops the association: later sends are dropped
  // without a trace (the system may be gone), what is still queued goes
  // to dead letters, the stream's writes are ended (the peer reads what
  // was written), and it returns once no other thread is in the middle
  // of touching the system for it. AwaitEnded waits until gRPC is done
  // with the stream; at `deadline` it cancels it, and then waits for the
  // cancel to finish it. After End, nothing of this association touches
  // the system.
  void Flush(absl::Time deadline);
  void End();
  void AwaitEnded(absl::Time deadline);
  // All three, for one association.
  void Close(absl::Time flush_deadline);

  // Logs a warning about this peer, unless the transport is shut down.
  void Warn(std::string_view text) const;

 private:
  friend class OutboundStream;

  // Someone is about to touch the system outside the lock (log, dead
  // letters, serializing): false once End has begun, else counted until
  // Unuse, which End waits for.
  bool Use() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Unuse();
  // The queue's head, at most a frame's worth, or nothing.
  std::vector<Outbound> TakeBatch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Serializes `batch` into a frame (the handshake first when `first`) and
  // writes it; with nothing to write, takes the next batch, or marks
  // `stream` idle. `stream` is owned by this writer (its `writing`).
  void Write(OutboundStream* stream, std::vector<Outbound> batch, bool first);
  // Called by the stream.
  void OnWriteDone(OutboundStream* stream, bool ok);
  void OnHandshake(OutboundStream* stream, const wire::Handshake& answer);
  void OnReadFailed(OutboundStream* stream);
  void OnDone(OutboundStream* stream, const grpc::Status& status);
  // Makes `stream` no longer this association's; what is queued goes to
  // `dropped`. Returns whether the caller must release the stream's hold.
  bool Detach(OutboundStream* stream, bool failed,
              std::vector<Outbound>* dropped)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropAll(std::vector<Outbound> dropped, const char* why);

  const std::shared_ptr<TransportCore> core_;
  const actor::Address remote_;
  const std::shared_ptr<wire::Transport::Stub> stub_;

  mutable base::Mutex mu_;
  base::CondVar changed_;
  std::deque<Outbound> queue_ ABSL_GUARDED_BY(mu_);
  OutboundStream* stream_ ABSL_GUARDED_BY(mu_) = nullptr;
  int live_streams_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int users_ ABSL_GUARDED_BY(mu_) = 0;
  // The stream End ended, for AwaitEnded to cancel.
  std::shared_ptr<OutboundStream> ending_ ABSL_GUARDED_BY(mu_);
  absl::Time backoff_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_ASSOCIATION_H_
