#ifndef CAIRN_ACTOR_ACTOR_SYSTEM_H_
#define CAIRN_ACTOR_ACTOR_SYSTEM_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <typeindex>

#include "absl/status/statusor.h"
#include "actor/actor.h"
#include "actor/actor_ref.h"
#include "actor/actor_selection.h"
#include "actor/actor_system_setup.h"
#include "actor/address.h"
#include "actor/clock.h"
#include "actor/coordinated_shutdown.h"
#include "actor/event_stream.h"
#include "actor/exceptions.h"
#include "actor/future.h"
#include "actor/logging.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "actor/scheduler.h"
#include "base/mutex.h"
#include "hocon/config.h"

namespace cairn::actor {

class RemoteTransport;
class ExternalRef;

namespace internal {
class ActorCell;
class Dispatcher;
class DeadLettersRef;
class ExposedRefs;
class RefIndex;
struct MailboxSettings;
struct SystemSettings;
class SystemAccess;
}  // namespace internal

// A hierarchy of actors sharing dispatchers, a scheduler, an event stream
// and a configuration: `/` (root) with `/user` (your actors), `/system`
// (the runtime's) and `/deadLetters`.
//
//   auto system = ActorSystem::Create("demo", config).value();
//   ActorRef c = system->ActorOf(Props::Create<Counter>(), "counter");
//   c.Tell(42);
//   system->Terminate().wait();
//
// Ownership: the caller owns the system; destroying it terminates it and
// waits (never destroy it from one of its own actors).
// Thread safety: every method from any thread.
// Seams for ActorSystem::Create.
struct ActorSystemOptions {
  // Time for the scheduler, receive timeouts and supervision windows;
  // tests pass a ManualClock. Must outlive the system. Default: real time.
  Clock* clock = nullptr;
  // Priority functions by name, for mailboxes configured with
  // `mailbox-type = "unbounded-priority"` and `priority-function = NAME`
  // (Akka names a mailbox class in config; C++ has no class names at run
  // time, so the function is registered here and named there). Lower
  // values are processed first; equal ones in arrival order.
  std::map<std::string, PriorityFunction> priority_functions;
  // Typed settings in code for the packages that read them (e.g. a
  // remote::RemoteSetup); see actor_system_setup.h. Default: none.
  ActorSystemSetup setup;
};

class ActorSystem {
 public:
  using Options = ActorSystemOptions;

  // `config` is the application's configuration (parsed, resolved or not);
  // the library's reference.conf fills in every key it does not set.
  // Fails with InvalidArgument on a bad name or a bad setting, naming it.
  static absl::StatusOr<std::unique_ptr<ActorSystem>> Create(
      std::string name, const hocon::Config& config = hocon::Config(),
      ActorSystemOptions options = ActorSystemOptions());

  ~ActorSystem();
  ActorSystem(const ActorSystem&) = delete;
  ActorSystem& operator=(const ActorSystem&) = delete;

  const std::string& name() const { return name_; }
  // Where this system is: `akka://name`, or with `akka.actor.provider =
  // remote` the transport's `akka://name@host:port`, the first part of
  // every path in the system.
  const Address& address() const { return address_; }
  // This system's incarnation with a transport (RemoteTransport::uid: a
  // process started again at the same address has another); 0 without.
  uint64_t Uid() const;
  // What ActorSystemOptions::setup gave.
  const ActorSystemSetup& Setup() const { return setup_; }
  // The effective configuration (application over reference.conf).
  const hocon::Config& Settings() const { return config_; }

  // Creates a top-level actor under /user. An empty name generates one.
  // Throws InvalidActorNameException for a bad or taken name, and
  // ConfigurationException for an unknown dispatcher or mailbox.
  ActorRef ActorOf(const Props& props, std::string_view name = "");
  // Creates an actor under /system, for the runtime's own services (as
  // Akka's SystemActorOf). /system restarts failed children, except on
  // ActorInitializationException and ActorKilledException. Throws as
  // ActorOf does.
  ActorRef SystemActorOf(const Props& props, std::string_view name = "");
  // Stops `ref` (children first, then its PostStop).
  void Stop(const ActorRef& ref);

  // Actors by path: absolute (`akka://name/user/a/b` or `/user/a/b`), with
  // `*` and `?` wildcards in elements.
  actor::ActorSelection ActorSelection(std::string_view path);

  // The ref a path names (Akka's resolveActorRef): a local actor (the
  // incarnation the uid names, when the path has one), a local ref that
  // ExposedPath handed out (an Ask's), or with a transport an actor of
  // another system at a host and port. When nothing is there, a ref that
  // keeps the path (Akka's EmptyLocalActorRef): its messages are dead
  // letters, a watch of it gives Terminated at once. Never blocks. With a
  // transport: not before it is started (RemoteTransport::Start).
  ActorRef ResolveActorRef(const ActorPath& path);

  // For a transport (remote_transport.h). The path under which other
  // systems reach `ref`, with the uid: its own for an actor or an
  // ExternalActorRef; for a local ref that is not an actor (an Ask's
  // temporary ref, a test probe) also its path, after which
  // ResolveActorRef finds it for as long as it lives. NoSender gives
  // `akka://nobody/`.
  ActorPath ExposedPath(const ActorRef& ref);
  // For a transport: the one ref to the actor at `path` (another system's)
  // while any ActorRef to it lives, so refs to one actor compare equal;
  // `make` (never returning null) is called outside any lock of the
  // system for a new one, whose ExternalRef is dropped if another thread
  // made one first. The uid is part of the identity: `path#0` (no uid
  // known, from a path in text) and `path#5` are two refs; a transport
  // delivering a DeathWatch notification names the ref that was watched.
  ActorRef ExternalActorRef(
      const ActorPath& path,
      const std::function<std::shared_ptr<ExternalRef>()>& make);

  actor::EventStream& EventStream() { return *event_stream_; }
  actor::Scheduler& Scheduler() { return *scheduler_; }
  Clock& GetClock() const { return *clock_; }
  ActorRef DeadLetters() const;
  // A logger publishing LogEvents with `source` (e.g. a path).
  LoggingAdapter Log(std::string source) const;

  // Stops all actors (/user first, then /system), then the threads. With
  // akka.coordinated-shutdown.run-by-actor-system-terminate = on (the
  // default) the coordinated-shutdown phases run first; the system is
  // terminated when they end, whether they succeed or not. Every call
  // returns the same future.
  Future<void> Terminate();
  CoordinatedShutdown& GetCoordinatedShutdown() {
    return *coordinated_shutdown_;
  }
  Future<void> WhenTerminated() const { return terminated_.GetFuture(); }

  // Extensions, as in Akka: one T per system, made with `T(ActorSystem&)` by
  // the first call (from any thread; concurrent first calls make one),
  // destroyed in reverse order of creation when the system is destroyed,
  // after every actor has stopped, so an extension may serve actors until
  // their end. T's constructor must not call GetExtension.
  template <typename T>
  T& GetExtension() {
    base::MutexLock lock(&extensions_mu_);
    for (const auto& [type, extension] : extensions_) {
      if (type == typeid(T)) return *static_cast<T*>(extension.get());
    }
    auto extension = std::make_shared<T>(*this);
    extensions_.emplace_back(typeid(T), extension);
    return *extension;
  }

 private:
  // The runtime's own calls, reached through internal::SystemAccess.
  friend class internal::SystemAccess;
  const internal::SystemSettings& settings() const { return *settings_; }
  int64_t NewUid();
  // The dispatcher configured at `id` ("" = default), made on first use.
  absl::StatusOr<internal::Dispatcher*> LookupDispatcher(const std::string& id);
  absl::StatusOr<internal::MailboxSettings> MakeMailbox(const Props& props);
  internal::ActorCell* root() const { return root_; }
  internal::DeadLettersRef* dead_letters() const { return dead_letters_; }
  bool terminating() const { return terminating_.load(); }
  // Terminates without running coordinated shutdown (its last phase).
  Future<void> TerminateNow();
  // Called by the root cell when it has stopped.
  void OnRootTerminated();
  // Paths of short-lived actors (ask): /temp/$n.
  ActorPath NewTempPath();

  // A mailbox section of the config, read once.
  struct MailboxSpec {
    bool bounded = false;
    int capacity = 0;
    absl::Duration push_timeout;
    int stash_capacity = -1;
    PriorityFunction priority;  // set: an unbounded priority mailbox
  };

  ActorSystem(std::string name, hocon::Config config, Clock* clock,
              std::map<std::string, PriorityFunction> priority_functions,
              ActorSystemSetup setup);
  // Makes the transport `akka.actor.provider` names, if not "local".
  absl::Status MakeTransport();
  ActorRef ResolveLocal(const ActorPath& path);
  absl::StatusOr<MailboxSpec> LookupMailboxSpec(const std::string& path);
  absl::Status Start();
  // Stops the timer and the dispatchers' threads and the stderr logger:
  // the end of a termination, or of a Start() that failed.
  void StopThreads();

  const std::string name_;
  Address address_;  // set before any actor exists, then constant
  const ActorSystemSetup setup_;
  const hocon::Config config_;
  Clock* const clock_;
  const std::map<std::string, PriorityFunction> priority_functions_;
  std::unique_ptr<internal::SystemSettings> settings_;
  std::unique_ptr<actor::EventStream> event_stream_;
  std::unique_ptr<actor::Scheduler> scheduler_;
  std::unique_ptr<CoordinatedShutdown> coordinated_shutdown_;
  int64_t logger_token_ = 0;

  base::Mutex dispatchers_mu_;
  std::map<std::string, std::unique_ptr<internal::Dispatcher>> dispatchers_
      ABSL_GUARDED_BY(dispatchers_mu_);
  std::map<std::string, MailboxSpec> mailbox_specs_
      ABSL_GUARDED_BY(dispatchers_mu_);
  // What most actors use, set in Start() and read-only after: spawning one
  // takes neither the lock nor a string.
  internal::Dispatcher* default_dispatcher_ = nullptr;
  MailboxSpec default_mailbox_;

  internal::DeadLettersRef* dead_letters_ = nullptr;  // holds a reference
  // Null without a transport. Destroyed after the actors have stopped.
  std::unique_ptr<RemoteTransport> transport_;
  // Held weakly: shared with the refs entered, which may outlive the system.
  const std::shared_ptr<internal::RefIndex> external_refs_;
  // Local refs that are not actors, by their path's elements, once
  // ExposedPath handed them out.
  const std::unique_ptr<internal::ExposedRefs> exposed_refs_;
  internal::ActorCell* root_ = nullptr;             // holds a reference
  internal::ActorCell* user_guardian_ = nullptr;    // borrowed
  internal::ActorCell* system_guardian_ = nullptr;  // borrowed

  std::atomic<bool> terminating_{false};
  std::atomic<uint64_t> next_temp_{0};
  Promise<void> terminated_;
  base::Mutex extensions_mu_;
  std::vector<std::pair<std::type_index, std::shared_ptr<void>>> extensions_
      ABSL_GUARDED_BY(extensions_mu_);
  base::Mutex finish_mu_;
  // Stops the threads once the root has stopped.
  std::thread finisher_ ABSL_GUARDED_BY(finish_mu_);
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_ACTOR_SYSTEM_H_
