#include "remote/internal/transport_core.h"

#include <utility>

#include "actor/actor_path.h"
#include "actor/messages.h"
#include "base/string_view.h"
#include "remote/internal/association.h"
#include "remote/internal/inbound_stream.h"

namespace cairn::remote::internal {

TransportCore::TransportCore(
    actor::ActorSystem* system, RemoteSettings settings, actor::Address address,
    uint64_t uid,
    std::shared_ptr<const serialization::SerializationRegistry> registry,
    std::shared_ptr<grpc::ChannelCredentials> channel_credentials)
    : system(system),
      settings(std::move(settings)),
      address(std::move(address)),
      uid(uid),
      codec(system, std::move(registry)),
      log(system->Log("akka.remote")),
      channel_credentials(std::move(channel_credentials)),
      watcher(this->settings.failure_detector,
              this->settings.expected_response_after, system->GetClock()) {}

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
                                   channel_credentials, args);
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

void TransportCore::AwaitHandshake(InboundStream* stream) {
  base::MutexLock lock(&handshakes_mu_);
  awaiting_handshake_[stream] = system->GetClock().Now();
}

bool TransportCore::HandshakeCame(InboundStream* stream) {
  base::MutexLock lock(&handshakes_mu_);
  return awaiting_handshake_.erase(stream) > 0;
}

void TransportCore::RefuseSlowHandshakes() {
  const absl::Time now = system->GetClock().Now();
  base::MutexLock lock(&handshakes_mu_);
  for (auto it = awaiting_handshake_.begin();
       it != awaiting_handshake_.end();) {
    if (now - it->second < settings.handshake_timeout) {
      ++it;
      continue;
    }
    // Alive: a stream leaves this map (HandshakeCame, from its OnDone too)
    // before it is deleted, and that waits for this lock.
    it->first->RefuseSlowHandshake();
    awaiting_handshake_.erase(it++);
  }
}

std::shared_ptr<Association> TransportCore::AssociationTo(
    const actor::Address& to) {
  {
    base::MutexLock lock(&mu_);
    if (!shut_down_) {
      std::shared_ptr<Association>& association = associations_[to];
      if (association == nullptr) {
        association = std::make_shared<Association>(shared_from_this(), to);
      }
      return association;
    }
  }
  // Refs made after the shutdown began reach a closed association, which
  // is not kept (an association holds the core: kept here, it would keep
  // the core alive for ever).
  auto closed = std::make_shared<Association>(shared_from_this(), to);
  closed->Close(absl::InfinitePast());
  return closed;
}

std::vector<std::shared_ptr<Association>> TransportCore::BeginShutdown() {
  base::MutexLock lock(&mu_);
  shut_down_ = true;
  std::vector<std::shared_ptr<Association>> all;
  for (auto& [to, association] : associations_) all.push_back(association);
  // Handed over: the caller's are the last references the core holds.
  associations_.clear();
  return all;
}

std::vector<std::shared_ptr<Association>> TransportCore::Associations() {
  base::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<Association>> all;
  for (auto& [to, association] : associations_) all.push_back(association);
  return all;
}

bool TransportCore::SeenIncarnation(const actor::Address& at, uint64_t uid) {
  uint64_t gone = 0;
  {
    base::MutexLock lock(&mu_);
    if (quarantined_.contains(std::make_pair(at, uid))) return false;
    Incarnation& known = incarnations_[at];
    if (known.uid == uid) return true;
    gone = known.uid;
    known = Incarnation{uid, 0};
  }
  if (gone != 0)
    PeerGone(at, gone, "it restarted (a new incarnation answered)");
  return true;
}

void TransportCore::PeerGone(const actor::Address& at, uint64_t uid,
                             std::string_view why, bool expected) {
  {
    base::MutexLock lock(&mu_);
    if (uid == 0) {
      auto it = incarnations_.find(at);
      if (it != incarnations_.end()) uid = it->second.uid;
    }
    // An incarnation never heard from (uid still 0) is not remembered:
    // there is nothing to refuse, but its watchers are told all the same.
    // One quarantined before is told again: a watch made since (of an
    // actor there, not knowing it gone) must be answered too.
    if (uid != 0) quarantined_.insert(std::make_pair(at, uid));
  }
  watcher.AddressTerminated(at);
  AssociationTo(at)->Quarantined(uid, why, expected);
}

bool TransportCore::TakeSystemMessage(const actor::Address& from, uint64_t uid,
                                      uint64_t seq) {
  base::MutexLock lock(&mu_);
  Incarnation& known = incarnations_[from];
  if (known.uid != uid || seq != known.taken + 1) return false;
  known.taken = seq;
  return true;
}

bool TransportCore::IsQuarantined(const actor::Address& at, uint64_t uid) {
  base::MutexLock lock(&mu_);
  return quarantined_.contains(std::make_pair(at, uid));
}

uint64_t TransportCore::SystemMessagesTaken(const actor::Address& from,
                                            uint64_t uid) {
  base::MutexLock lock(&mu_);
  auto it = incarnations_.find(from);
  return it == incarnations_.end() || it->second.uid != uid ? 0
                                                            : it->second.taken;
}

std::string GrpcTarget(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) {
    return base::StrCat("[", host, "]:", port);
  }
  return base::StrCat(host, ":", port);
}

}  // namespace cairn::remote::internal
