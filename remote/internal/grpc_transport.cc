#include "remote/internal/grpc_transport.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "base/string_view.h"
#include "remote/internal/inbound_stream.h"
#include "remote/internal/remote_ref.h"
#include "remote/internal/tls_credentials.h"
#include "remote/remote_settings.h"
#include "remote/remote_setup.h"

namespace cairn::remote::internal {
namespace {

// The answer to a stream that comes before the transport has its core
// (the port is bound before the address, hence the core, is known).
class Refusal final : public grpc::ServerBidiReactor<wire::Frame, wire::Frame> {
 public:
  Refusal() {
    Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "this system is still starting"));
  }
  void OnDone() override { delete this; }
};

}  // namespace

class GrpcTransport::Service final : public wire::Transport::CallbackService {
 public:
  void Attach(std::shared_ptr<TransportCore> core) {
    base::MutexLock lock(&mu_);
    core_ = std::move(core);
  }

  grpc::ServerBidiReactor<wire::Frame, wire::Frame>* Associate(
      grpc::CallbackServerContext*) override {
    std::shared_ptr<TransportCore> core;
    {
      base::MutexLock lock(&mu_);
      core = core_;
    }
    if (core == nullptr) return new Refusal();
    return new InboundStream(std::move(core));
  }

 private:
  base::Mutex mu_;
  std::shared_ptr<TransportCore> core_ ABSL_GUARDED_BY(mu_);
};

absl::StatusOr<std::unique_ptr<GrpcTransport>> GrpcTransport::Create(
    actor::ActorSystem& system) {
  absl::StatusOr<RemoteSettings> settings =
      RemoteSettings::FromConfig(system.Settings());
  if (!settings.ok()) return settings.status();
  const RemoteSetup* setup = system.Setup().Get<RemoteSetup>();

  const std::string bind_host = settings->bind_hostname.empty()
                                    ? settings->canonical_hostname
                                    : settings->bind_hostname;
  const int bind_port =
      settings->bind_port < 0 ? settings->canonical_port : settings->bind_port;
  absl::StatusOr<Credentials> credentials = MakeCredentials(settings->ssl);
  if (!credentials.ok()) return credentials.status();
  auto service = std::make_unique<Service>();
  int bound_port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(GrpcTarget(bind_host, bind_port),
                           credentials->server, &bound_port);
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(settings->maximum_frame_size) + kPathAllowance);
  // gRPC sets SO_REUSEPORT by default, which would let a second system
  // bind a port the first listens on and take half its connections.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(service.get());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || bound_port == 0) {
    if (server != nullptr) server->Shutdown();
    return absl::UnavailableError(
        base::StrCat("akka.remote.artery: cannot listen on ",
                     GrpcTarget(bind_host, bind_port),
                     " (in use, or not an address of this host)"));
  }
  // A uid per incarnation of the system: a peer tells a restarted process
  // from the one before by it. Never 0 (0 is "not known").
  absl::BitGen random;
  uint64_t uid = 0;
  while (uid == 0) uid = absl::Uniform<uint64_t>(random);
  actor::Address address(
      system.name(), settings->canonical_hostname,
      settings->canonical_port == 0 ? bound_port : settings->canonical_port);
  auto core = std::make_shared<TransportCore>(
      &system, *std::move(settings), std::move(address), uid,
      setup == nullptr ? nullptr : setup->serialization,
      std::move(credentials->channel));
  service->Attach(core);
  return std::unique_ptr<GrpcTransport>(new GrpcTransport(
      std::move(core), std::move(service), std::move(server)));
}

GrpcTransport::GrpcTransport(std::shared_ptr<TransportCore> core,
                             std::unique_ptr<Service> service,
                             std::unique_ptr<grpc::Server> server)
    : core_(std::move(core)),
      service_(std::move(service)),
      server_(std::move(server)) {}

GrpcTransport::~GrpcTransport() { Shutdown(); }

absl::Status GrpcTransport::Start() {
  core_->started.store(true, std::memory_order_release);
  {
    base::MutexLock lock(&mu_);
    actor::Scheduler& scheduler = core_->system->Scheduler();
    ticks_.push_back(scheduler.ScheduleRepeatedly(
        core_->settings.heartbeat_interval, core_->settings.heartbeat_interval,
        [this] { WatcherTick(); }));
    ticks_.push_back(scheduler.ScheduleRepeatedly(
        core_->settings.system_message_resend_interval,
        core_->settings.system_message_resend_interval,
        [this] { ResendTick(); }));
  }
  core_->log.Info(base::StrCat("remoting started; listening at ",
                               core_->address.ToString()));
  return absl::OkStatus();
}

actor::ActorRef GrpcTransport::ResolveRef(const actor::ActorPath& path) {
  std::shared_ptr<Association> association =
      core_->AssociationTo(path.address());
  return core_->system->ExternalActorRef(path, [&] {
    return std::make_shared<RemoteRef>(std::move(association), path);
  });
}

void GrpcTransport::WatcherTick() {
  // Held for the whole tick: Shutdown waits for one under way.
  base::MutexLock lock(&tick_mu_);
  if (ticks_stopped_) return;
  RemoteWatcher::Tick tick = core_->watcher.OnTick();
  for (const actor::Address& address : tick.heartbeat) {
    core_->AssociationTo(address)->RequestHeartbeat();
  }
  for (const actor::Address& address : tick.unreachable) {
    core_->PeerGone(address, 0,
                    "unreachable (no heartbeat answer: the failure detector's "
                    "phi passed its threshold)");
  }
}

void GrpcTransport::ResendTick() {
  base::MutexLock lock(&tick_mu_);
  if (ticks_stopped_) return;
  for (const std::shared_ptr<Association>& a : core_->Associations()) {
    a->OnTick();
  }
  core_->RefuseSlowHandshakes();
}

void GrpcTransport::Shutdown() {
  std::vector<actor::Cancellable> ticks;
  {
    base::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    ticks = std::move(ticks_);
  }
  for (actor::Cancellable& tick : ticks) tick.Cancel();
  {
    base::MutexLock lock(&tick_mu_);
    ticks_stopped_ = true;
  }
  std::vector<std::shared_ptr<Association>> associations =
      core_->BeginShutdown();
  // Every peer at once: told, flushed, ended, then awaited.
  for (const std::shared_ptr<Association>& a : associations) {
    a->AnnounceTermination();
  }
  const absl::Time flush_deadline =
      absl::Now() + core_->settings.shutdown_flush_timeout;
  for (const std::shared_ptr<Association>& a : associations) {
    a->Flush(flush_deadline);
  }
  for (const std::shared_ptr<Association>& a : associations) a->End();
  const absl::Time end_deadline =
      std::max(flush_deadline, absl::Now() + absl::Seconds(1));
  for (const std::shared_ptr<Association>& a : associations) {
    a->AwaitEnded(end_deadline);
  }
  // The peers' streams to this system end now: every actor has stopped,
  // there is nobody left to deliver to.
  server_->Shutdown(std::chrono::system_clock::now());
  core_->AwaitNoInbound();
  // Nothing adds to it any more (no tick, no stream).
  core_->watcher.Clear();
  core_->log.Info(
      base::StrCat("remoting at ", core_->address.ToString(), " shut down"));
}

}  // namespace cairn::remote::internal
