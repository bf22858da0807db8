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
// messages queued for it, the system messages it has not acknowledged,
// and the one gRPC stream they go in, opened on the
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
  // A system message (its kind set; the number is given here): kept until
  // the peer acknowledges it, written again on every new stream and every
  // system-message-resend-interval (OnTick).
  void SendSystem(wire::SystemMessage message);
  // Remote DeathWatch, for the RemoteRef of the peer's actor at `path`
  // (`text`: its path as this system knows it): the local `watcher`
  // watches it (or stops: !watch), or the local `subject` it watched has
  // stopped.
  void SendWatch(const std::shared_ptr<const std::string>& text,
                 const actor::ActorPath& path, const actor::ActorRef& watcher,
                 bool watch);
  void SendDeathWatchNotification(
      const std::shared_ptr<const std::string>& text,
      const actor::ActorPath& path, const actor::ActorRef& subject,
      bool existence_confirmed);
  // Asks the peer for a heartbeat answer (remote DeathWatch).
  void RequestHeartbeat();
  // Every system-message-resend-interval: unacknowledged system messages
  // go again; past give-up-system-message-after, the peer is given up.
  void OnTick();
  // The peer's incarnation `uid` is quarantined. If it is the one this
  // association talks to (or none answered yet), what is queued and the
  // unacknowledged system messages are dropped, a stream to it is ended,
  // and numbering starts again for the next incarnation; an older one
  // changes nothing here.
  // `expected` (the peer said it is shutting down) logs at info level,
  // otherwise at warning.
  void Quarantined(uint64_t uid, std::string_view why, bool expected);
  // Shutting down: the peer is told (Frame.terminating) in the stream's
  // last write, if there is a stream to tell it in.
  void AnnounceTermination();

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

 private:
  friend class OutboundStream;

  // Someone is about to touch the system outside the lock (log, dead
  // letters, serializing): false once End has begun, else counted until
  // Unuse, which End waits for.
  bool Use() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Unuse();
  void UnuseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What the next write carries.
  struct Work {
    std::vector<wire::SystemMessage> system;
    bool heartbeat = false;
    std::vector<Outbound> batch;
    bool terminating = false;
    bool empty() const {
      return system.empty() && !heartbeat && batch.empty() && !terminating;
    }
  };
  // What a caller does once it has let go of the lock: start a stream, or
  // write on the idle one.
  struct Action {
    std::shared_ptr<OutboundStream> start;
    OutboundStream* write = nullptr;
    Work work;
  };
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Work TakeWork() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Starts a stream when there is none (and no backoff), or takes the
  // work for the idle one. Call under a Use.
  Action Kick() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Perform(Action action);
  // The queue's head, at most a frame's worth, or nothing.
  std::vector<Outbound> TakeBatch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Serializes `work` into a frame (the handshake first when `first`) and
  // writes it; with nothing to write, takes the next work, or marks
  // `stream` idle. `stream` is owned by this writer (its `writing`).
  void Write(OutboundStream* stream, Work work, bool first);
  // Called by the stream.
  void OnWriteDone(OutboundStream* stream, bool ok);
  void OnAnswer(OutboundStream* stream, const wire::Frame& frame);
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
  // System messages not yet acknowledged, by number; those up to
  // system_written_ are written in the current stream.
  std::deque<wire::SystemMessage> system_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 1;
  // The incarnation the numbering is for (0: none answered yet). A new
  // one that answers gets the unacknowledged messages renumbered from 1.
  uint64_t numbered_uid_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t system_written_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time unacked_since_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  bool heartbeat_pending_ ABSL_GUARDED_BY(mu_) = false;
  bool terminating_pending_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_ASSOCIATION_H_
