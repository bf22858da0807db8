#include "actor/actor_system.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "actor/internal/actor_cell.h"
#include "actor/internal/calling_thread_dispatcher.h"
#include "actor/internal/dead_letters.h"
#include "actor/internal/external_ref_impl.h"
#include "actor/internal/guardians.h"
#include "actor/internal/pinned_dispatcher.h"
#include "actor/internal/ref_index.h"
#include "actor/internal/system_message.h"
#include "actor/internal/system_settings.h"
#include "actor/internal/thread_pool_dispatcher.h"
#include "actor/remote_transport.h"
#include "base/mutex.h"
#include "base/usable_cpus.h"

namespace cairn::actor {
namespace {

constexpr char kDefaultDispatcher[] = "akka.actor.default-dispatcher";
constexpr char kDefaultMailbox[] = "akka.actor.default-mailbox";

absl::Status ValidateSystemName(std::string_view name) {
  bool ok = !name.empty() && absl::ascii_isalnum(name[0]);
  for (char c : name) {
    ok = ok && (absl::ascii_isalnum(c) || c == '-' || c == '_');
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "invalid actor system name '", std::string(name),
      "': use letters, digits, '-' and '_', starting with a letter or digit"));
}

// `section` over the defaults section, so a custom dispatcher or mailbox
// names only what differs.
absl::StatusOr<hocon::Config> SectionWithDefaults(const hocon::Config& config,
                                                  const std::string& path,
                                                  const char* defaults,
                                                  const char* what) {
  if (!config.HasPath(path)) {
    return absl::NotFoundError(
        absl::StrCat(what, " '", path, "' is not configured"));
  }
  absl::StatusOr<hocon::Config> section = config.GetConfig(path);
  if (!section.ok()) return section.status();
  absl::StatusOr<hocon::Config> fallback = config.GetConfig(defaults);
  if (!fallback.ok()) return fallback.status();
  return section->WithFallback(*fallback);
}

// An ActorRef taking over the reference `impl` (may be null) came with.
ActorRef Adopt(internal::ActorRefImpl* impl) {
  ActorRef ref(impl);
  if (impl != nullptr) impl->Release();
  return ref;
}

absl::Status InPath(const absl::Status& s, const std::string& path) {
  return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ActorSystem>> ActorSystem::Create(
    std::string name, const hocon::Config& config, ActorSystemOptions options) {
  if (absl::Status s = ValidateSystemName(name); !s.ok()) return s;
  absl::StatusOr<hocon::Config> loaded = hocon::Config::Load(config);
  if (!loaded.ok()) return loaded.status();
  absl::StatusOr<internal::SystemSettings> settings =
      internal::SystemSettings::From(*loaded);
  if (!settings.ok()) return settings.status();
  Clock* clock =
      options.clock != nullptr ? options.clock : SystemClock::Default();
  std::unique_ptr<ActorSystem> system(new ActorSystem(
      std::move(name), *std::move(loaded), clock,
      std::move(options.priority_functions), std::move(options.setup)));
  system->settings_ =
      std::make_unique<internal::SystemSettings>(*std::move(settings));
  if (absl::Status s = system->Start(); !s.ok()) return s;
  return system;
}

ActorSystem::ActorSystem(
    std::string name, hocon::Config config, Clock* clock,
    std::map<std::string, PriorityFunction> priority_functions,
    ActorSystemSetup setup)
    : name_(name),
      address_(std::move(name)),
      setup_(std::move(setup)),
      config_(std::move(config)),
      clock_(clock),
      priority_functions_(std::move(priority_functions)),
      external_refs_(std::make_shared<internal::RefIndex>()),
      exposed_refs_(std::make_unique<internal::ExposedRefs>()) {}

absl::Status ActorSystem::MakeTransport() {
  absl::StatusOr<std::string> provider =
      config_.GetString("akka.actor.provider");
  if (!provider.ok()) return InPath(provider.status(), "akka.actor.provider");
  if (*provider == "local") return absl::OkStatus();
  const RemoteTransportFactory* factory = RemoteTransports::Find(*provider);
  if (factory == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "akka.actor.provider = ", *provider,
        ": no transport of that name is linked into the program (for "
        "remote, depend on //remote:registration)"));
  }
  absl::StatusOr<std::unique_ptr<RemoteTransport>> transport =
      (*factory)(*this);
  if (!transport.ok()) return transport.status();
  transport_ = *std::move(transport);
  const Address& address = transport_->address();
  if (address.system() != name_ || !address.HasGlobalScope()) {
    return absl::InternalError(
        absl::StrCat("akka.actor.provider = ", *provider,
                     ": the transport gave address ", address.ToString(),
                     ", not one of system '", name_, "' with a host and port"));
  }
  address_ = address;
  return absl::OkStatus();
}

absl::Status ActorSystem::Start() {
  event_stream_ = std::make_unique<actor::EventStream>();
  scheduler_ = std::make_unique<actor::Scheduler>(clock_);
  const LogLevel level = settings_->loglevel;
  logger_token_ =
      event_stream_->SubscribeFunction<LogEvent>([level](const LogEvent& e) {
        if (level == LogLevel::kOff || e.level < level) return;
        std::fprintf(stderr, "[%s] [%s] %s\n", LogLevelName(e.level),
                     e.source.c_str(), e.message.c_str());
      });
  dead_letters_ = new internal::DeadLettersRef(this);
  dead_letters_->AddRef();
  if (absl::Status s = MakeTransport(); !s.ok()) return s;

  absl::StatusOr<internal::Dispatcher*> dispatcher = LookupDispatcher("");
  if (!dispatcher.ok()) return dispatcher.status();
  absl::StatusOr<MailboxSpec> mailbox_spec = LookupMailboxSpec(kDefaultMailbox);
  if (!mailbox_spec.ok()) return mailbox_spec.status();
  default_dispatcher_ = *dispatcher;
  default_mailbox_ = *mailbox_spec;
  Props root_props = Props::Create<internal::RootGuardian>();
  absl::StatusOr<internal::MailboxSettings> mailbox = MakeMailbox(root_props);
  if (!mailbox.ok()) return mailbox.status();
  root_ = new internal::ActorCell(nullptr, "", NewUid(), root_props,
                                  *dispatcher, *std::move(mailbox));
  root_->AddRef();
  ActorRef user = root_->ActorOf(
      Props::Create<internal::Guardian>(settings_->guardian_stopping), "user");
  ActorRef system =
      root_->ActorOf(Props::Create<internal::Guardian>(false), "system");
  user_guardian_ = user.impl()->AsCell();
  user_guardian_->AddRef();
  system_guardian_ = system.impl()->AsCell();
  system_guardian_->AddRef();
  root_->Start();
  absl::StatusOr<std::unique_ptr<CoordinatedShutdown>> cs =
      CoordinatedShutdown::Create(this, config_);
  if (!cs.ok()) {
    TerminateNow().wait();
    return cs.status();
  }
  coordinated_shutdown_ = *std::move(cs);
  if (transport_ != nullptr) {
    if (absl::Status s = transport_->Start(); !s.ok()) {
      // No phase runs: the transport's own tasks would find it stopped,
      // and exit-process must not end the program inside Create.
      coordinated_shutdown_.reset();
      TerminateNow().wait();
      return s;
    }
  }
  return absl::OkStatus();
}

ActorSystem::~ActorSystem() {
  if (root_ == nullptr) {
    // Start() failed before the guardians existed (a bad default mailbox,
    // say): no actor ever ran; stop the threads it made.
    if (transport_ != nullptr) transport_->Shutdown();
    StopThreads();
    dispatchers_.clear();
    if (dead_letters_ != nullptr) dead_letters_->Release();
    scheduler_.reset();
    return;
  }
  Terminate();
  WhenTerminated().wait();
  {
    base::MutexLock lock(&finish_mu_);
    if (finisher_.joinable()) finisher_.join();
  }
  transport_.reset();  // shut down by the finisher; refs to it stay safe
  while (!extensions_.empty()) extensions_.pop_back();
  coordinated_shutdown_.reset();  // joins its thread
  user_guardian_->Release();
  system_guardian_->Release();
  root_->Release();
  dead_letters_->Release();
  dispatchers_.clear();
  scheduler_.reset();
}

ActorRef ActorSystem::ActorOf(const Props& props, std::string_view name) {
  return user_guardian_->ActorOf(props, name);
}

uint64_t ActorSystem::Uid() const {
  return transport_ == nullptr ? 0 : transport_->uid();
}

ActorRef ActorSystem::SystemActorOf(const Props& props, std::string_view name) {
  return system_guardian_->ActorOf(props, name);
}

void ActorSystem::Stop(const ActorRef& ref) {
  if (ref.IsNobody()) return;
  ref.impl()->SendSystem(
      new internal::SystemMessage(internal::SystemMessageKind::kTerminate));
}

actor::ActorSelection ActorSystem::ActorSelection(std::string_view path) {
  return actor::ActorSelection::Parse(this, ActorRef(root_), path);
}

ActorRef ActorSystem::DeadLetters() const { return ActorRef(dead_letters_); }

LoggingAdapter ActorSystem::Log(std::string source) const {
  return LoggingAdapter(event_stream_.get(), std::move(source),
                        settings_->loglevel);
}

Future<void> ActorSystem::Terminate() {
  if (coordinated_shutdown_ != nullptr &&
      coordinated_shutdown_->run_by_actor_system_terminate()) {
    coordinated_shutdown_->Run("ActorSystem::Terminate")
        .OnComplete([this](const Future<Done>&) { TerminateNow(); });
    return terminated_.GetFuture();
  }
  return TerminateNow();
}

Future<void> ActorSystem::TerminateNow() {
  if (!terminating_.exchange(true)) {
    user_guardian_->SendSystem(
        new internal::SystemMessage(internal::SystemMessageKind::kTerminate));
  }
  return terminated_.GetFuture();
}

void ActorSystem::OnRootTerminated() {
  terminating_ = true;
  // Runs on a dispatcher thread, which cannot join its own pool: a thread
  // of its own stops the timer and the pools, then completes the future.
  base::MutexLock lock(&finish_mu_);
  finisher_ = std::thread([this] {
    // Every actor has stopped: nothing more goes out, and what comes in
    // would only find dead letters.
    if (transport_ != nullptr) transport_->Shutdown();
    StopThreads();
    terminated_.TrySetValue();
  });
}

void ActorSystem::StopThreads() {
  if (scheduler_ != nullptr) scheduler_->Shutdown();
  std::vector<internal::Dispatcher*> dispatchers;
  {
    base::MutexLock lock(&dispatchers_mu_);
    for (auto& [id, d] : dispatchers_) dispatchers.push_back(d.get());
  }
  for (internal::Dispatcher* d : dispatchers) d->Shutdown();
  if (event_stream_ != nullptr) {
    event_stream_->UnsubscribeFunction(logger_token_);
  }
}

int64_t ActorSystem::NewUid() {
  // From a random start: a process started again with the same actors
  // gives them other uids, so a path#uid another system kept from the
  // process before names no actor of this one (Akka's uids are random).
  static std::atomic<int64_t> next{[] {
    std::random_device random;
    const uint64_t bits = (uint64_t{random()} << 32) ^ random();
    return static_cast<int64_t>(bits >> 2) + 1;  // positive, far from wrap
  }()};
  return next.fetch_add(1, std::memory_order_relaxed);
}

ActorPath ActorSystem::NewTempPath() {
  return ActorPath(address_, {"temp", absl::StrCat("$", ++next_temp_)});
}

ActorRef ActorSystem::ResolveActorRef(const ActorPath& path) {
  const Address& address = path.address();
  if (address == address_ ||
      (!address.HasGlobalScope() && address.system() == name_)) {
    return ResolveLocal(path);
  }
  // Another system: reachable only through a transport, and only at a
  // host and port.
  if (transport_ == nullptr || !address.HasGlobalScope()) {
    return ActorRef(new internal::EmptyLocalRef(this, path));
  }
  return transport_->ResolveRef(path);
}

ActorRef ActorSystem::ResolveLocal(const ActorPath& path) {
  const std::vector<std::string>& elements = path.elements();
  if (elements.empty()) return ActorRef(root_);
  if (elements.size() == 1 && elements[0] == "deadLetters") {
    return DeadLetters();
  }
  ActorRef current(root_);
  for (const std::string& element : elements) {
    internal::ActorCell* cell = current.impl()->AsCell();
    ActorRef child = cell == nullptr ? ActorRef() : cell->Child(element);
    if (child.IsNobody()) {
      // Not an actor: a ref handed out by ExposedPath (an Ask's, a test
      // probe's) while it lives, else nothing.
      ActorRef exposed = exposed_refs_->Find(absl::StrJoin(elements, "/"));
      if (!exposed.IsNobody()) return exposed;
      return ActorRef(new internal::EmptyLocalRef(this, path));
    }
    current = std::move(child);
  }
  // Another incarnation under the same name is not the actor the path
  // names (Akka: a ref to a stopped actor stays dead).
  if (path.uid() != 0 && current.impl()->AsCell()->uid() != path.uid()) {
    return ActorRef(new internal::EmptyLocalRef(this, path));
  }
  return current;
}

ActorPath ActorSystem::ExposedPath(const ActorRef& ref) {
  ActorPath path = ref.Path();
  internal::ActorRefImpl* impl = ref.impl();
  if (impl != nullptr && impl->AsCell() == nullptr && impl != dead_letters_ &&
      !impl->IsTerminated() && path.address() == address_ &&
      !path.elements().empty()) {
    // Not an actor, but local (an Ask's temp ref, a test probe): entered
    // so that ResolveActorRef finds it while it lives.
    exposed_refs_->Insert(absl::StrJoin(path.elements(), "/"), ref);
  }
  return path;
}

ActorRef ActorSystem::ExternalActorRef(
    const ActorPath& path,
    const std::function<std::shared_ptr<ExternalRef>()>& make) {
  return Adopt(external_refs_->FindOrInsert(path.ToStringWithUid(), [&] {
    return new internal::ExternalRefImpl(this, path, make(), external_refs_);
  }));
}

absl::StatusOr<internal::Dispatcher*> ActorSystem::LookupDispatcher(
    const std::string& id) {
  if (id.empty() && default_dispatcher_ != nullptr) return default_dispatcher_;
  const std::string path = id.empty() ? kDefaultDispatcher : id;
  base::MutexLock lock(&dispatchers_mu_);
  if (auto it = dispatchers_.find(path); it != dispatchers_.end()) {
    return it->second.get();
  }
  absl::StatusOr<hocon::Config> section =
      SectionWithDefaults(config_, path, kDefaultDispatcher, "dispatcher");
  if (!section.ok()) return section.status();
  absl::StatusOr<std::string> type = section->GetString("type");
  if (!type.ok()) return InPath(type.status(), path);
  absl::StatusOr<int> throughput = section->GetInt("throughput");
  if (!throughput.ok()) return InPath(throughput.status(), path);

  std::unique_ptr<internal::Dispatcher> dispatcher;
  if (*type == "CallingThreadDispatcher") {
    dispatcher =
        std::make_unique<internal::CallingThreadDispatcher>(this, path);
  } else if (*type == "PinnedDispatcher") {
    dispatcher =
        std::make_unique<internal::PinnedDispatcher>(this, path, *throughput);
  } else if (*type == "Dispatcher" || *type == "ForkJoinDispatcher") {
    absl::StatusOr<int> min =
        section->GetInt("fork-join-executor.parallelism-min");
    absl::StatusOr<double> factor =
        section->GetDouble("fork-join-executor.parallelism-factor");
    absl::StatusOr<int> max =
        section->GetInt("fork-join-executor.parallelism-max");
    if (!min.ok()) return InPath(min.status(), path);
    if (!factor.ok()) return InPath(factor.status(), path);
    if (!max.ok()) return InPath(max.status(), path);
    // The process's CPUs, as the JVM counts them for Akka: under taskset,
    // only those it may run on.
    const int cpus = base::UsableCpus();
    int threads = static_cast<int>(std::ceil(cpus * *factor));
    threads = std::max(1, std::max(*min, std::min(*max, threads)));
    absl::StatusOr<internal::IdlePolicy> idle =
        internal::IdlePolicyFromConfig(*section, path, threads, cpus);
    if (!idle.ok()) return idle.status();
    dispatcher = std::make_unique<internal::ThreadPoolDispatcher>(
        this, path, *throughput, threads, *idle);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ".type: unknown dispatcher type '", *type,
                     "' (expected Dispatcher, PinnedDispatcher or "
                     "CallingThreadDispatcher)"));
  }
  internal::Dispatcher* raw = dispatcher.get();
  dispatchers_.emplace(path, std::move(dispatcher));
  return raw;
}

absl::StatusOr<internal::MailboxSettings> ActorSystem::MakeMailbox(
    const Props& props) {
  absl::StatusOr<MailboxSpec> spec = props.mailbox().empty()
                                         ? default_mailbox_
                                         : LookupMailboxSpec(props.mailbox());
  if (!spec.ok()) return spec.status();
  internal::MailboxSettings settings;
  settings.stash_capacity = spec->stash_capacity;
  if (props.priority()) {
    settings.custom_queue =
        std::make_unique<internal::PriorityMessageQueue>(props.priority());
  } else if (spec->priority) {
    settings.custom_queue =
        std::make_unique<internal::PriorityMessageQueue>(spec->priority);
  } else if (spec->bounded) {
    settings.custom_queue = std::make_unique<internal::BoundedMessageQueue>(
        spec->capacity, spec->push_timeout);
  }
  return settings;
}

absl::StatusOr<ActorSystem::MailboxSpec> ActorSystem::LookupMailboxSpec(
    const std::string& path) {
  // Read once per mailbox path: spawning must not re-read the config.
  base::MutexLock lock(&dispatchers_mu_);
  if (auto it = mailbox_specs_.find(path); it != mailbox_specs_.end()) {
    return it->second;
  }
  absl::StatusOr<hocon::Config> section =
      SectionWithDefaults(config_, path, kDefaultMailbox, "mailbox");
  if (!section.ok()) return section.status();
  MailboxSpec spec;
  absl::StatusOr<int> stash = section->GetInt("stash-capacity");
  if (!stash.ok()) return InPath(stash.status(), path);
  spec.stash_capacity = *stash;
  absl::StatusOr<std::string> type = section->GetString("mailbox-type");
  if (!type.ok()) return InPath(type.status(), path);
  if (*type == "bounded" || *type == "Akka.Dispatch.BoundedMailbox") {
    absl::StatusOr<int> capacity = section->GetInt("mailbox-capacity");
    if (!capacity.ok()) return InPath(capacity.status(), path);
    absl::StatusOr<absl::Duration> timeout =
        section->GetDuration("mailbox-push-timeout-time");
    if (!timeout.ok()) return InPath(timeout.status(), path);
    if (*capacity < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ".mailbox-capacity: must be at least 1, is ", *capacity));
    }
    spec.bounded = true;
    spec.capacity = *capacity;
    spec.push_timeout = *timeout;
  } else if (*type == "unbounded-priority" ||
             *type == "unbounded-stable-priority") {
    absl::StatusOr<std::string> name = section->GetString("priority-function");
    if (!name.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ".priority-function: a mailbox of type ", *type,
                       " needs the name of a priority function registered in "
                       "ActorSystemOptions::priority_functions"));
    }
    auto it = priority_functions_.find(*name);
    if (it == priority_functions_.end()) {
      std::string known;
      for (const auto& [registered, function] : priority_functions_) {
        absl::StrAppend(&known, known.empty() ? "" : ", ", registered);
      }
      return absl::InvalidArgumentError(absl::StrCat(
          path, ".priority-function: no priority function '", *name,
          "' is registered in ActorSystemOptions::priority_functions (",
          known.empty() ? "none is" : absl::StrCat("registered: ", known),
          ")"));
    }
    spec.priority = it->second;
  } else if (*type != "unbounded" &&
             *type != "Akka.Dispatch.UnboundedMailbox") {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ".mailbox-type: unknown mailbox type '", *type,
                     "' (expected unbounded, bounded or unbounded-priority)"));
  }
  mailbox_specs_.emplace(path, spec);
  return spec;
}

}  // namespace cairn::actor
