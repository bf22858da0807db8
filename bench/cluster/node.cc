#include "bench/cluster/node.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "actor/props.h"
#include "bench/cluster/entity.h"
#include "sharding/entity_region.h"

namespace cairn::bench::cluster {
namespace {

// Returns when stdin ends: the driver closed it, or died.
void AwaitEndOfInput() {
  char chunk[256];
  while (true) {
    const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n == 0 || (n < 0 && errno != EINTR)) return;
  }
}

}  // namespace

int ServeNode(const ClusterOptions& options, const std::string& type) {
  std::unique_ptr<actor::ActorSystem> system = StartMember(options);
  sharding::EntityRegion::Start(
      *system, type,
      [](const std::string& id) { return actor::Props::Create<Entity>(id); },
      RegionSettings(options), Extractor());
  for (int i = 0; i < kTargets; ++i) {
    const std::string name = absl::StrCat("echo-", i);
    system->ActorOf(actor::Props::Create<Entity>(name), name);
  }
  std::printf("%s\n", system->address().ToString().c_str());
  std::fflush(stdout);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);  // the driver reads one line only
  actor::ActorSystem* leaving = system.get();
  std::thread([leaving] {
    AwaitEndOfInput();
    leaving->GetCoordinatedShutdown().Run("the benchmark is done");
  }).detach();
  system->WhenTerminated().wait();
  // Not destroyed: the thread above may still read stdin, and use the
  // system once it ends. Nothing is left to flush but stdio.
  std::fflush(nullptr);
  std::_Exit(0);
}

}  // namespace cairn::bench::cluster
