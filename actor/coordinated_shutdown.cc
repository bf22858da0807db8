#include "actor/coordinated_shutdown.h"

#include <algorithm>
#include <cstdlib>
#include <queue>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/process_exit_hook.h"
#include "actor/internal/system_access.h"
#include "base/mutex.h"

namespace cairn::actor {
namespace {

constexpr char kSection[] = "akka.coordinated-shutdown";

absl::Status InKey(const absl::Status& s, const std::string& key) {
  return absl::Status(s.code(), absl::StrCat(key, ": ", s.message()));
}

// A failed future, for a task that threw instead of returning one.
Future<Done> Failed(std::exception_ptr e) {
  Promise<Done> p;
  p.TrySetException(std::move(e));
  return p.GetFuture();
}

}  // namespace

CoordinatedShutdown& CoordinatedShutdown::Get(ActorSystem& system) {
  return system.GetCoordinatedShutdown();
}

absl::StatusOr<std::vector<std::string>> CoordinatedShutdown::TopologicalSort(
    const std::map<std::string, std::vector<std::string>>& depends_on) {
  std::map<std::string, int> waiting;  // phase -> unmet dependencies
  std::map<std::string, std::vector<std::string>> dependents;
  for (const auto& [phase, deps] : depends_on) {
    waiting[phase] += 0;
    for (const std::string& d : deps) {
      if (!depends_on.contains(d)) {
        return absl::InvalidArgumentError(
            absl::StrCat(kSection, ".phases.", phase,
                         ".depends-on: unknown phase '", d, "'"));
      }
      ++waiting[phase];
      dependents[d].push_back(phase);
    }
  }
  // Kahn's algorithm; a min-heap keeps independent phases in name order.
  std::priority_queue<std::string, std::vector<std::string>,
                      std::greater<std::string>>
      ready;
  for (const auto& [phase, n] : waiting) {
    if (n == 0) ready.push(phase);
  }
  std::vector<std::string> order;
  while (!ready.empty()) {
    std::string phase = ready.top();
    ready.pop();
    order.push_back(phase);
    for (const std::string& next : dependents[phase]) {
      if (--waiting[next] == 0) ready.push(next);
    }
  }
  if (order.size() == depends_on.size()) return order;

  // Name one cycle: walk unmet dependencies until a phase repeats.
  std::string start;
  for (const auto& [phase, n] : waiting) {
    if (n > 0) {
      start = phase;
      break;
    }
  }
  std::vector<std::string> path;
  std::set<std::string> seen;
  std::string at = start;
  while (!seen.contains(at)) {
    seen.insert(at);
    path.push_back(at);
    for (const std::string& d : depends_on.at(at)) {
      if (waiting[d] > 0) {
        at = d;
        break;
      }
    }
  }
  auto first = std::find(path.begin(), path.end(), at);
  std::vector<std::string> cycle(first, path.end());
  cycle.push_back(at);
  return absl::InvalidArgumentError(absl::StrCat(
      kSection,
      ".phases: cycle in depends-on: ", absl::StrJoin(cycle, " -> ")));
}

absl::StatusOr<std::unique_ptr<CoordinatedShutdown>>
CoordinatedShutdown::Create(ActorSystem* system, const hocon::Config& config) {
  std::unique_ptr<CoordinatedShutdown> cs(new CoordinatedShutdown(system));
  auto get_bool = [&](const char* key, bool* out) -> absl::Status {
    absl::StatusOr<bool> v = config.GetBool(absl::StrCat(kSection, ".", key));
    if (!v.ok()) return v.status();
    *out = *v;
    return absl::OkStatus();
  };
  for (auto [key, out] :
       {std::pair{"terminate-actor-system", &cs->terminate_actor_system_},
        std::pair{"exit-process", &cs->exit_process_},
        std::pair{"run-by-actor-system-terminate",
                  &cs->run_by_actor_system_terminate_},
        std::pair{"run-by-process-exit-hook",
                  &cs->run_by_process_exit_hook_}}) {
    if (absl::Status s = get_bool(key, out); !s.ok()) return s;
  }
  absl::StatusOr<int> exit_code =
      config.GetInt(absl::StrCat(kSection, ".exit-code"));
  if (!exit_code.ok()) return exit_code.status();
  cs->exit_code_ = *exit_code;
  absl::StatusOr<absl::Duration> default_timeout =
      config.GetDuration(absl::StrCat(kSection, ".default-phase-timeout"));
  if (!default_timeout.ok()) return default_timeout.status();

  const std::string phases_key = absl::StrCat(kSection, ".phases");
  absl::StatusOr<hocon::Config> phases = config.GetConfig(phases_key);
  if (!phases.ok()) return phases.status();
  std::map<std::string, std::vector<std::string>> depends_on;
  for (const std::string& name : phases->Keys()) {
    const std::string key = absl::StrCat(phases_key, ".", name);
    absl::StatusOr<hocon::Config> section = phases->GetConfig(name);
    if (!section.ok()) return InKey(section.status(), key);
    Phase phase;
    phase.timeout = *default_timeout;
    if (section->HasPath("depends-on")) {
      absl::StatusOr<std::vector<std::string>> deps =
          section->GetStringList("depends-on");
      if (!deps.ok()) return InKey(deps.status(), key + ".depends-on");
      phase.depends_on = *std::move(deps);
    }
    if (section->HasPath("timeout")) {
      absl::StatusOr<absl::Duration> t = section->GetDuration("timeout");
      if (!t.ok()) return InKey(t.status(), key + ".timeout");
      phase.timeout = *t;
    }
    if (section->HasPath("recover")) {
      absl::StatusOr<bool> r = section->GetBool("recover");
      if (!r.ok()) return InKey(r.status(), key + ".recover");
      phase.recover = *r;
    }
    depends_on[name] = phase.depends_on;
    cs->phases_[name] = std::move(phase);
  }
  absl::StatusOr<std::vector<std::string>> ordered =
      TopologicalSort(depends_on);
  if (!ordered.ok()) return ordered.status();
  cs->ordered_ = *std::move(ordered);

  if (cs->terminate_actor_system_) {
    if (!cs->phases_.contains(kPhaseActorSystemTerminate)) {
      return absl::InvalidArgumentError(
          absl::StrCat(phases_key,
                       ": terminate-actor-system is on but there "
                       "is no phase ",
                       kPhaseActorSystemTerminate));
    }
    CoordinatedShutdown* self = cs.get();
    base::MutexLock lock(&cs->mu_);  // not shared yet: uncontended
    cs->tasks_[kPhaseActorSystemTerminate].push_back(
        NamedTask{"terminate-actor-system", [self] {
                    Promise<Done> done;
                    internal::SystemAccess::TerminateNow(*self->system_)
                        .OnComplete([done](const Future<void>&) mutable {
                          done.TrySetValue();
                        });
                    return done.GetFuture();
                  }});
  }
  if (cs->run_by_process_exit_hook_) {
    CoordinatedShutdown* self = cs.get();
    cs->hook_token_ = internal::ProcessExitHook::Get().Register(
        [self](int signal) { self->Run(absl::StrCat("signal ", signal)); });
  }
  return cs;
}

CoordinatedShutdown::~CoordinatedShutdown() {
  if (hook_token_ != 0)
    internal::ProcessExitHook::Get().Unregister(hook_token_);
  std::thread runner;
  {
    base::MutexLock lock(&mu_);
    runner = std::move(runner_);
  }
  if (runner.joinable()) runner.join();
}

absl::Status CoordinatedShutdown::AddTask(std::string_view phase,
                                          std::string name, Task task) {
  std::string key(phase);
  if (!phases_.contains(key)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown coordinated-shutdown phase '", key,
                     "'; known phases: ", absl::StrJoin(ordered_, ", ")));
  }
  base::MutexLock lock(&mu_);
  tasks_[key].push_back(NamedTask{std::move(name), std::move(task)});
  return absl::OkStatus();
}

absl::Status CoordinatedShutdown::AddTask(std::string_view phase,
                                          std::string name,
                                          std::function<void()> task) {
  return AddTask(phase, std::move(name), Task([task = std::move(task)] {
                   task();
                   Promise<Done> done;
                   done.TrySetValue();
                   return done.GetFuture();
                 }));
}

Future<Done> CoordinatedShutdown::Run(std::string reason) {
  base::MutexLock lock(&mu_);
  if (!reason_.has_value()) {
    reason_ = std::move(reason);
    runner_ = std::thread([this] { RunPhases(); });
  }
  return done_.GetFuture();
}

std::optional<std::string> CoordinatedShutdown::ShutdownReason() const {
  base::MutexLock lock(&mu_);
  return reason_;
}

absl::Duration CoordinatedShutdown::PhaseTimeout(std::string_view phase) const {
  auto it = phases_.find(std::string(phase));
  return it == phases_.end() ? absl::ZeroDuration() : it->second.timeout;
}

void CoordinatedShutdown::RunPhases() {
  LoggingAdapter log = system_->Log("CoordinatedShutdown");
  log.Info(absl::StrCat("running coordinated shutdown, reason: ",
                        ShutdownReason().value_or("")));
  for (const std::string& name : ordered_) {
    const Phase& phase = phases_.at(name);
    std::vector<NamedTask> tasks;
    {
      base::MutexLock lock(&mu_);
      if (auto it = tasks_.find(name); it != tasks_.end()) tasks = it->second;
    }
    if (tasks.empty()) continue;
    log.Debug(absl::StrCat("phase [", name, "] with ", tasks.size(), " tasks"));
    // Start every task before waiting for any: they run in parallel.
    std::vector<Future<Done>> running;
    running.reserve(tasks.size());
    for (NamedTask& t : tasks) {
      try {
        running.push_back(t.task());
      } catch (...) {
        running.push_back(Failed(std::current_exception()));
      }
    }
    const absl::Time deadline = absl::Now() + phase.timeout;
    for (size_t i = 0; i < running.size(); ++i) {
      if (!running[i].wait_for(deadline - absl::Now())) {
        log.Warning(absl::StrCat("phase [", name, "] timed out after ",
                                 absl::FormatDuration(phase.timeout),
                                 "; task [", tasks[i].name,
                                 "] had not finished; going on"));
        break;
      }
      if (std::exception_ptr e = running[i].error()) {
        log.Error(absl::StrCat("task [", tasks[i].name, "] of phase [", name,
                               "] failed: ", DescribeException(e)));
        if (!phase.recover) {
          log.Error(absl::StrCat("phase [", name,
                                 "] has recover = off: skipping the rest"));
          done_.TrySetException(e);
          return;
        }
      }
    }
  }
  done_.TrySetValue();
  if (exit_process_) std::exit(exit_code_);
}

}  // namespace cairn::actor
