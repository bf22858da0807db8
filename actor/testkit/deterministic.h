#ifndef CAIRN_ACTOR_TESTKIT_DETERMINISTIC_H_
#define CAIRN_ACTOR_TESTKIT_DETERMINISTIC_H_

#include "actor/actor_system.h"
#include "actor/internal/calling_thread_runner.h"

// What TestKit, TestProbe and EventFilter share in the deterministic mode
// (see test_kit.h).
namespace cairn::actor::testkit::internal {

// The run queue of `system` when its default dispatcher is the
// calling-thread one (the deterministic mode), else null.
actor::internal::CallingThreadRunner* DeterministicQueue(ActorSystem& system);

// Runs `queue` until nothing is runnable; returns the turns run. Throws
// TestKitAssertion when work is left after `max_turns` turns, or when
// called from inside an actor.
int DispatchAllOrFail(actor::internal::CallingThreadRunner& queue,
                      int max_turns);

}  // namespace cairn::actor::testkit::internal

#endif  // CAIRN_ACTOR_TESTKIT_DETERMINISTIC_H_
