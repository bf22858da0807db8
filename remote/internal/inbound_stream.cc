#include "remote/internal/inbound_stream.h"

#include <utility>

#include "absl/strings/str_join.h"
#include "actor/actor_path.h"
#include "actor/actor_selection.h"
#include "actor/remote_transport.h"
#include "base/string_view.h"
#include "remote/internal/tsan_handoff.h"

namespace cairn::remote::internal {
namespace {

// Paths remembered per stream; beyond, the memory starts again.
constexpr size_t kMaxRememberedRefs = 4096;

}  // namespace

InboundStream::InboundStream(std::shared_ptr<TransportCore> core)
    : core_(std::move(core)) {
  core_->InboundStarted();
  core_->AwaitHandshake(this);
  HandOff(this);
  StartRead(&in_);
}

void InboundStream::RefuseSlowHandshake() {
  core_->log.Warning(
      "refused a connection: no handshake within handshake-timeout");
  FinishOnce(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                          "no handshake within handshake-timeout"));
}

void InboundStream::OnReadDone(bool ok) {
  TakeOver(this);
  if (!ok) {
    // The peer ended its writes, or the stream broke.
    FinishOnce(grpc::Status::OK);
    return;
  }
  if (peer_.empty()) {
    // Refused meanwhile for being slow: the stream is finishing.
    if (!core_->HandshakeCame(this)) return;
    std::string refusal = CheckHandshake(in_);
    if (refusal.empty() &&
        !core_->SeenIncarnation(peer_address_, in_.handshake().from_uid())) {
      refusal = base::StrCat("the peer's incarnation ",
                             in_.handshake().from_uid(), " is quarantined");
    }
    if (!refusal.empty()) {
      core_->log.Warning(base::StrCat("refused a connection: ", refusal));
      FinishOnce(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, refusal));
      return;
    }
    peer_ = in_.handshake().from_address();
    peer_uid_ = in_.handshake().from_uid();
    base::MutexLock lock(&mu_);
    answer_handshake_ = true;
  }
  if (core_->IsQuarantined(peer_address_, peer_uid_)) {
    // Quarantined since the handshake (unreachable, given up): nothing
    // more of it is taken or answered, so it finds out too.
    FinishOnce(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                            "this system has quarantined yours"));
    return;
  }
  bool system = false;
  for (const wire::SystemMessage& m : in_.system_messages()) {
    system = true;
    // Taken once, in order; a repeat or one past a gap is dropped (the
    // sender writes every unacknowledged one again).
    if (core_->TakeSystemMessage(peer_address_, peer_uid_, m.seq())) {
      DeliverSystem(m);
    }
  }
  for (const wire::Envelope& envelope : in_.envelopes()) Deliver(envelope);
  const bool heartbeat = in_.heartbeat();
  if (in_.terminating()) {
    core_->PeerGone(peer_address_, peer_uid_, "it is shutting down",
                    /*expected=*/true);
  }
  {
    base::MutexLock lock(&mu_);
    if (system) {
      ack_ = core_->SystemMessagesTaken(peer_address_, peer_uid_);
    }
    answer_heartbeat_ = answer_heartbeat_ || heartbeat;
  }
  WriteAnswers();
  in_.Clear();
  HandOff(this);
  StartRead(&in_);
}

void InboundStream::WriteAnswers() {
  {
    base::MutexLock lock(&mu_);
    if (writing_ || finished_) return;
    out_.Clear();
    if (answer_handshake_) {
      *out_.mutable_handshake() = core_->MakeHandshake(peer_);
      answer_handshake_ = false;
    }
    if (ack_ > acked_) {
      out_.set_ack(ack_);
      acked_ = ack_;
    }
    out_.set_heartbeat_answer(std::exchange(answer_heartbeat_, false));
    if (!out_.has_handshake() && out_.ack() == 0 && !out_.heartbeat_answer()) {
      return;
    }
    writing_ = true;
  }
  HandOff(this);
  StartWrite(&out_);
}

void InboundStream::OnWriteDone(bool) {
  TakeOver(this);
  grpc::Status status;
  bool finish = false;
  {
    base::MutexLock lock(&mu_);
    writing_ = false;
    if (finish_after_write_) {
      finish = true;
      status = finish_status_;
    }
  }
  if (finish) {
    HandOff(this);
    Finish(status);
    return;
  }
  WriteAnswers();
}

void InboundStream::OnDone() {
  TakeOver(this);
  (void)core_->HandshakeCame(this);  // gone from the waiting, before delete
  std::shared_ptr<TransportCore> core = core_;
  delete this;
  core->InboundDone();
}

void InboundStream::FinishOnce(grpc::Status status) {
  {
    base::MutexLock lock(&mu_);
    if (finished_) return;
    finished_ = true;
    if (writing_) {
      // Finish may not overlap a write: OnWriteDone finishes.
      finish_after_write_ = true;
      finish_status_ = std::move(status);
      return;
    }
  }
  HandOff(this);
  Finish(status);
}

std::string InboundStream::CheckHandshake(const wire::Frame& frame) {
  if (!frame.has_handshake()) {
    return "the first frame has no handshake (not a cairn peer?)";
  }
  const wire::Handshake& h = frame.handshake();
  if (h.protocol_version() != kProtocolVersion) {
    return base::StrCat("the peer speaks protocol version ",
                        h.protocol_version(), ", this system ",
                        kProtocolVersion);
  }
  if (h.to_address() != core_->address.ToString()) {
    return base::StrCat("this is ", core_->address.ToString(), ", not ",
                        h.to_address());
  }
  absl::StatusOr<actor::Address> from = actor::Address::Parse(h.from_address());
  if (!from.ok() || !from->HasGlobalScope()) {
    return base::StrCat("the peer's address '", h.from_address(),
                        "' is not one of a system at a host and port");
  }
  if (h.from_uid() == 0) return "the peer's handshake has no uid";
  peer_address_ = *from;
  if (!core_->started.load(std::memory_order_acquire)) {
    return "this system is still starting";
  }
  return "";
}

void InboundStream::Deliver(const wire::Envelope& envelope) {
  absl::StatusOr<actor::AnyMessage> message =
      core_->codec.Decode(envelope.message());
  if (!message.ok()) {
    Complain(base::StrCat("dropped a message from ", peer_, " to ",
                          envelope.recipient(), ": ",
                          message.status().message()));
    return;
  }
  absl::StatusOr<actor::ActorRef> recipient =
      Resolve(envelope.recipient(), /*local=*/true);
  absl::StatusOr<actor::ActorRef> sender =
      Resolve(envelope.sender(), /*local=*/false);
  if (!recipient.ok() || !sender.ok()) {
    Complain(
        base::StrCat("dropped a ", message->TypeName(), " from ", peer_, ": ",
                     (recipient.ok() ? sender : recipient).status().message()));
    return;
  }
  if (core_->settings.log_received_messages) {
    core_->log.Debug(base::StrCat("received a ", message->TypeName(), " for ",
                                  envelope.recipient(), " from ", peer_));
  }
  if (!envelope.selection()) {
    recipient->TellAny(*message, *sender);
    return;
  }
  // Each element is one name (or pattern, or ".."): an element holding a
  // '/' could make the joined path absolute, or another system's, and
  // this system would relay the message there.
  for (const std::string& element : envelope.elements()) {
    if (element.empty() || element.find('/') != std::string::npos) {
      Complain(base::StrCat("dropped a selection from ", peer_, ": element '",
                            element, "' is not a name"));
      return;
    }
  }
  actor::ActorSelection::Parse(core_->system, *recipient,
                               absl::StrJoin(envelope.elements(), "/"))
      .TellAny(*message, *sender);
}

void InboundStream::DeliverSystem(const wire::SystemMessage& m) {
  if (m.has_watch() || m.has_unwatch()) {
    const wire::WatchMessage& w = m.has_watch() ? m.watch() : m.unwatch();
    absl::StatusOr<actor::ActorRef> watchee = Resolve(w.watchee(), true);
    absl::StatusOr<actor::ActorRef> watcher = Resolve(w.watcher(), false);
    if (!watchee.ok() || !watcher.ok() ||
        watcher->Path().address() != peer_address_) {
      Complain(base::StrCat("dropped a watch from ", peer_, ": ",
                            !watchee.ok()   ? watchee.status().message()
                            : !watcher.ok() ? watcher.status().message()
                                            : "its watcher is not the peer's"));
      return;
    }
    if (m.has_watch()) {
      // Noted first: watching an actor that is gone answers at once.
      core_->watcher.AddRemoteWatcher(peer_address_, *watchee, *watcher,
                                      w.watchee());
      actor::DeliverWatch(*watchee, *watcher);
    } else {
      core_->watcher.RemoveRemoteWatcher(peer_address_, *watchee, *watcher);
      actor::DeliverUnwatch(*watchee, *watcher);
    }
    return;
  }
  if (m.has_death_watch_notification()) {
    const wire::DeathWatchNotificationMessage& n = m.death_watch_notification();
    absl::StatusOr<actor::ActorRef> watcher = Resolve(n.watcher(), true);
    absl::StatusOr<actor::ActorRef> subject = Resolve(n.subject(), false);
    if (!watcher.ok() || !subject.ok() ||
        subject->Path().address() != peer_address_) {
      // A peer speaks only of its own actors' deaths.
      Complain(base::StrCat("dropped a death watch notification from ", peer_,
                            ": ",
                            !watcher.ok()   ? watcher.status().message()
                            : !subject.ok() ? subject.status().message()
                                            : "its subject is not the peer's"));
      return;
    }
    core_->watcher.RemoveWatch(peer_address_, *subject, *watcher);
    actor::DeliverDeathWatchNotification(*watcher, *subject,
                                         n.existence_confirmed(),
                                         /*address_terminated=*/false);
    return;
  }
  Complain(base::StrCat("dropped a system message of a kind unknown here from ",
                        peer_));
}

absl::StatusOr<actor::ActorRef> InboundStream::Resolve(const std::string& text,
                                                       bool local) {
  if (text.empty()) {
    if (local) return absl::InvalidArgumentError("no recipient");
    return actor::ActorRef::NoSender();
  }
  if (auto it = refs_.find(text); it != refs_.end()) {
    const Remembered& r = it->second;
    // A sender's path of another system, remembered, is no recipient.
    if (local && !r.local) return NotOfThisSystem(text);
    // A name is this cell's until the cell is closed (it is freed after):
    // while it runs, resolving the name again would find it.
    if (!r.by_name || !r.ref.impl()->IsTerminated()) return r.ref;
    refs_.erase(it);
  }
  absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(text);
  if (!path.ok()) return path.status();
  const bool of_this_system = path->address() == core_->address;
  if (local && !of_this_system) {
    // Checked before resolving: a peer does not make this system relay
    // to, or even connect to, a third one.
    return NotOfThisSystem(text);
  }
  actor::ActorRef ref = core_->system->ResolveActorRef(*path);
  // A path with a uid names one actor for good. One without names
  // whatever has the name when a message comes: a local actor found by it
  // is remembered while it runs (a region's path, say, which peers send
  // to by name: resolving it for every message cost more than the rest of
  // the delivery).
  const bool by_name = path->uid() == 0;
  if (!by_name ||
      (local && ref.impl() != nullptr && ref.impl()->AsCell() != nullptr &&
       !ref.impl()->IsTerminated())) {
    if (refs_.size() >= kMaxRememberedRefs) refs_.clear();
    refs_.emplace(text, Remembered{ref, by_name, of_this_system});
  }
  return ref;
}

absl::Status InboundStream::NotOfThisSystem(std::string_view text) {
  return absl::InvalidArgumentError(
      base::StrCat(text, " is not an actor of this system"));
}

void InboundStream::Complain(std::string_view text) {
  // A peer sending garbage must not flood the log: one line a second per
  // stream, with the count of those left out.
  const absl::Time now = core_->system->GetClock().Now();
  if (now < next_complaint_) {
    ++unsaid_complaints_;
    return;
  }
  next_complaint_ = now + absl::Seconds(1);
  if (unsaid_complaints_ > 0) {
    core_->log.Warning(
        base::StrCat(text, " (and ", unsaid_complaints_, " more not logged)"));
    unsaid_complaints_ = 0;
  } else {
    core_->log.Warning(text);
  }
}

}  // namespace cairn::remote::internal
