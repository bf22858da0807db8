#include "actor/testkit/deterministic.h"

#include <string>

#include "actor/testkit/test_probe.h"

namespace cairn::actor::testkit::internal {

actor::internal::CallingThreadQueue* DeterministicQueue(ActorSystem& system) {
  return actor::internal::CallingThreadQueue::OfDefaultDispatcher(system);
}

int DispatchAllOrFail(actor::internal::CallingThreadQueue& queue,
                      int max_turns) {
  absl::StatusOr<int> turns = queue.RunAll(max_turns);
  if (!turns.ok())
    throw TestKitAssertion(std::string(turns.status().message()));
  return *turns;
}

}  // namespace cairn::actor::testkit::internal
