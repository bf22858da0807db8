#include "remote/internal/inbound_stream.h"

#include <utility>

#include "absl/strings/str_join.h"
#include "actor/actor_path.h"
#include "actor/actor_selection.h"
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
  HandOff(this);
  StartRead(&in_);
}

void InboundStream::OnReadDone(bool ok) {
  TakeOver(this);
  if (!ok) {
    // The peer ended its writes, or the stream broke.
    FinishOnce(grpc::Status::OK);
    return;
  }
  if (peer_.empty()) {
    std::string refusal = CheckHandshake(in_);
    if (!refusal.empty()) {
      core_->log.Warning(base::StrCat("refused a connection: ", refusal));
      FinishOnce(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, refusal));
      return;
    }
    peer_ = in_.handshake().from_address();
    *answer_.mutable_handshake() = core_->MakeHandshake(peer_);
    {
      base::MutexLock lock(&mu_);
      writing_ = true;
    }
    HandOff(this);
    StartWrite(&answer_);
  }
  for (const wire::Envelope& envelope : in_.envelopes()) Deliver(envelope);
  in_.Clear();
  HandOff(this);
  StartRead(&in_);
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
  }
}

void InboundStream::OnDone() {
  TakeOver(this);
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

std::string InboundStream::CheckHandshake(const wire::Frame& frame) const {
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

absl::StatusOr<actor::ActorRef> InboundStream::Resolve(const std::string& text,
                                                       bool local) {
  if (text.empty()) {
    if (local) return absl::InvalidArgumentError("no recipient");
    return actor::ActorRef::NoSender();
  }
  if (auto it = refs_.find(text); it != refs_.end()) return it->second;
  absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(text);
  if (!path.ok()) return path.status();
  if (local && path->address() != core_->address) {
    // Checked before resolving: a peer does not make this system relay
    // to, or even connect to, a third one.
    return absl::InvalidArgumentError(
        base::StrCat(text, " is not an actor of this system"));
  }
  actor::ActorRef ref = core_->system->ResolveActorRef(*path);
  // Only a path with a uid names one actor for good; one without names
  // whatever has the name when a message comes.
  if (path->uid() != 0) {
    if (refs_.size() >= kMaxRememberedRefs) refs_.clear();
    refs_.emplace(text, ref);
  }
  return ref;
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
