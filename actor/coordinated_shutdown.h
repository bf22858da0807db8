#ifndef CAIRN_ACTOR_COORDINATED_SHUTDOWN_H_
#define CAIRN_ACTOR_COORDINATED_SHUTDOWN_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/future.h"
#include "base/mutex.h"
#include "hocon/config.h"

namespace cairn::actor {

class ActorSystem;

// The value of a finished shutdown task.
struct Done {};

// Runs shutdown tasks in phases, in an order given by the phases'
// `depends-on` in akka.coordinated-shutdown.phases (a DAG, sorted
// topologically), as Akka's CoordinatedShutdown does. The tasks of one phase
// run in parallel; the next phase starts when they are all done or the
// phase's timeout has passed. The last phase terminates the actor system
// (terminate-actor-system) and may exit the process (exit-process).
//
// One per ActorSystem: CoordinatedShutdown::Get(system).
// Thread safety: every method from any thread.
class CoordinatedShutdown {
 public:
  static constexpr char kPhaseBeforeServiceUnbind[] = "before-service-unbind";
  static constexpr char kPhaseServiceUnbind[] = "service-unbind";
  static constexpr char kPhaseServiceRequestsDone[] = "service-requests-done";
  static constexpr char kPhaseServiceStop[] = "service-stop";
  static constexpr char kPhaseBeforeClusterShutdown[] =
      "before-cluster-shutdown";
  static constexpr char kPhaseClusterShardingShutdownRegion[] =
      "cluster-sharding-shutdown-region";
  static constexpr char kPhaseClusterLeave[] = "cluster-leave";
  static constexpr char kPhaseClusterExiting[] = "cluster-exiting";
  static constexpr char kPhaseClusterExitingDone[] = "cluster-exiting-done";
  static constexpr char kPhaseClusterShutdown[] = "cluster-shutdown";
  static constexpr char kPhaseBeforeActorSystemTerminate[] =
      "before-actor-system-terminate";
  static constexpr char kPhaseActorSystemTerminate[] = "actor-system-terminate";

  using Task = std::function<Future<Done>()>;

  static CoordinatedShutdown& Get(ActorSystem& system);

  // Reads akka.coordinated-shutdown from `config` (with reference.conf).
  // Fails, naming it, on a cycle among phases or a depends-on that names no
  // phase. For the ActorSystem; users call Get().
  static absl::StatusOr<std::unique_ptr<CoordinatedShutdown>> Create(
      ActorSystem* system, const hocon::Config& config);
  ~CoordinatedShutdown();  // waits for a run in progress to finish

  // Adds a task to `phase`. `task` starts the work and returns a future of
  // its end; a task that throws, or whose future fails, has failed. Tasks
  // added after Run() began run only if their phase has not started yet.
  // Fails with InvalidArgument for an unknown phase.
  absl::Status AddTask(std::string_view phase, std::string name, Task task);
  // A task that is done when `task` returns.
  absl::Status AddTask(std::string_view phase, std::string name,
                       std::function<void()> task);

  // Starts the phases (once: every call returns the same future, which
  // completes when the last phase is done, or fails with the failure of a
  // task in a phase with recover = off, whose remaining phases are skipped).
  Future<Done> Run(std::string reason);
  // Why Run was first called, or nullopt if it was not.
  std::optional<std::string> ShutdownReason() const;

  // The phases in the order they run.
  const std::vector<std::string>& OrderedPhases() const { return ordered_; }
  absl::Duration PhaseTimeout(std::string_view phase) const;

  // Settings the ActorSystem consults.
  bool run_by_actor_system_terminate() const {
    return run_by_actor_system_terminate_;
  }

  // Orders `depends_on` (phase -> phases that must run first) so that every
  // phase comes after its dependencies; ties in name order. Fails naming a
  // cycle (`a -> b -> a`) or an unknown phase.
  static absl::StatusOr<std::vector<std::string>> TopologicalSort(
      const std::map<std::string, std::vector<std::string>>& depends_on);

 private:
  struct Phase {
    std::vector<std::string> depends_on;
    absl::Duration timeout;
    bool recover = true;
  };
  struct NamedTask {
    std::string name;
    Task task;
  };

  explicit CoordinatedShutdown(ActorSystem* system) : system_(system) {}
  void RunPhases();

  ActorSystem* const system_;
  std::map<std::string, Phase> phases_;
  std::vector<std::string> ordered_;
  bool terminate_actor_system_ = true;
  bool exit_process_ = false;
  int exit_code_ = 0;
  bool run_by_actor_system_terminate_ = true;
  bool run_by_process_exit_hook_ = true;
  int64_t hook_token_ = 0;

  mutable base::Mutex mu_;
  std::map<std::string, std::vector<NamedTask>> tasks_ ABSL_GUARDED_BY(mu_);
  std::optional<std::string> reason_ ABSL_GUARDED_BY(mu_);
  Promise<Done> done_;
  std::thread runner_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_COORDINATED_SHUTDOWN_H_
