#ifndef CAIRN_ACTOR_INTERNAL_CALLING_THREAD_RUNNER_H_
#define CAIRN_ACTOR_INTERNAL_CALLING_THREAD_RUNNER_H_

#include "absl/status/statusor.h"

namespace cairn::actor {
class ActorSystem;
}  // namespace cairn::actor

namespace cairn::actor::internal {

// What the testkit's deterministic mode drives: the run queue of a system
// whose default dispatcher is the calling-thread one
// (calling_thread_dispatcher.h, which implements it inside //actor). Apart
// from it so that the testkit needs no header private to //actor:actor.
//
// Thread safety: the test's thread, never from inside an actor.
class CallingThreadRunner {
 public:
  // Fires due timers, then runs one turn of the first runnable mailbox.
  // False if nothing was runnable. FailedPrecondition from inside an actor.
  virtual absl::StatusOr<bool> RunOne() = 0;
  // Runs turns until nothing is runnable; returns how many ran.
  // ResourceExhausted when work is still there after `max_turns` turns.
  virtual absl::StatusOr<int> RunAll(int max_turns) = 0;

 protected:
  ~CallingThreadRunner() = default;
};

// The runner of `system` if its default dispatcher is a calling-thread one
// (the deterministic test mode), else null. Valid while the system lives.
CallingThreadRunner* CallingThreadRunnerOf(ActorSystem& system);

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_CALLING_THREAD_RUNNER_H_
