#include "bench/cluster/node.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "actor/props.h"
#include "bench/cluster/entity.h"
#include "bench/support/child_process.h"
#include "sharding/entity_region.h"

namespace cairn::bench::cluster {

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
  Greet(system->address().ToString());  // the driver reads one line only
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
