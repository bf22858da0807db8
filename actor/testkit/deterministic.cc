#include "actor/testkit/deterministic.h"

#include <string>

#include "actor/testkit/test_probe.h"

namespace cairn::actor::testkit::internal {

actor::internal::CallingThreadRunner* DeterministicQueue(ActorSystem& system) {
  return actor::internal::CallingThreadRunnerOf(system);
}

int DispatchAllOrFail(actor::internal::CallingThreadRunner& queue,
                      int max_turns) {
  absl::StatusOr<int> turns = queue.RunAll(max_turns);
  if (!turns.ok())
    throw TestKitAssertion(std::string(turns.status().message()));
  return *turns;
}

}  // namespace cairn::actor::testkit::internal
