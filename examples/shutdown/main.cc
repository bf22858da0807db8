// Coordinated shutdown on SIGTERM: registers a task in three phases, prints
// "ready", and waits. Send it SIGTERM (or press Ctrl-C): the phases run in
// order, the actor system terminates and the process exits with
// akka.coordinated-shutdown.exit-code (7 here).
//
//   bazel run //examples/shutdown
#include <cstdio>
#include <string>

#include "actor/actor_system.h"
#include "actor/coordinated_shutdown.h"

namespace actor = cairn::actor;

int main() {
  auto config = cairn::hocon::Config::ParseString(R"(
    akka.loglevel = WARNING
    akka.coordinated-shutdown.exit-process = on
    akka.coordinated-shutdown.exit-code = 7
  )");
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    return 1;
  }
  auto system = actor::ActorSystem::Create("shutdown-demo", *config);
  if (!system.ok()) {
    std::fprintf(stderr, "%s\n", system.status().ToString().c_str());
    return 1;
  }
  auto& cs = actor::CoordinatedShutdown::Get(**system);
  for (const char* phase :
       {actor::CoordinatedShutdown::kPhaseServiceUnbind,
        actor::CoordinatedShutdown::kPhaseServiceStop,
        actor::CoordinatedShutdown::kPhaseBeforeActorSystemTerminate}) {
    absl::Status added =
        cs.AddTask(phase, std::string("print-") + phase, [phase] {
          std::printf("phase %s\n", phase);
          std::fflush(stdout);
        });
    if (!added.ok()) {
      std::fprintf(stderr, "%s\n", added.ToString().c_str());
      return 1;
    }
  }
  std::printf("ready\n");
  std::fflush(stdout);
  (*system)->WhenTerminated().wait();
  // Reached only with exit-process = off.
  return 0;
}
