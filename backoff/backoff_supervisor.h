#ifndef CAIRN_BACKOFF_BACKOFF_SUPERVISOR_H_
#define CAIRN_BACKOFF_BACKOFF_SUPERVISOR_H_

#include <cstdint>
#include <memory>

#include "actor/actor.h"
#include "actor/props.h"
#include "actor/scheduler.h"
#include "backoff/backoff_options.h"

namespace cairn::backoff {

// Akka's BackoffSupervisor: runs one child and, when it stops
// (Backoff::OnStop) or fails with a Restart decision (Backoff::OnFailure),
// starts it again after min_backoff, then twice that, and so on up to
// max_backoff, each delay stretched by up to random_factor so that many
// supervisors restarting at once spread out.
//
//   system.ActorOf(BackoffSupervisor::Props(
//       Backoff::OnStop(Props::Create<Echo>(), "myEcho", absl::Seconds(3),
//                       absl::Seconds(30), 0.2)), "echoSupervisor");
//
// Messages to the supervisor go to the child with their sender; while no
// child runs they go to dead letters (or get WithReplyWhileStopped's
// reply). Time comes from the system's scheduler clock.
class BackoffSupervisor final : public actor::Actor {
 public:
  // Sent by the child to its parent (with WithManualReset) to reset the
  // back-off after it has done useful work.
  struct Reset {};
  // Ask the supervisor; it answers CurrentChild (NoSender while none runs).
  struct GetCurrentChild {};
  struct CurrentChild {
    actor::ActorRef ref;
  };
  // Ask the supervisor; it answers RestartCount.
  struct GetRestartCount {};
  struct RestartCount {
    int count;
  };

  // The supervisor's Props. Throws std::invalid_argument saying which
  // option is wrong (see BackoffOptions::Validate).
  static actor::Props Props(const BackoffOptions& options);

  explicit BackoffSupervisor(BackoffOptions options);
  void PreStart() override;
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override;

 private:
  struct StartChild {};
  struct ResetRestartCount {
    uint64_t generation;
  };

  void Start();
  void ChildTerminated();

  const BackoffOptions options_;
  actor::ActorRef child_;
  int restart_count_ = 0;
  uint64_t generation_ = 0;         // which start of the child a reset is for
  bool restart_requested_ = false;  // OnFailure: Restart became a stop
  bool final_stop_received_ = false;
  actor::Cancellable reset_timer_;
};

}  // namespace cairn::backoff

#endif  // CAIRN_BACKOFF_BACKOFF_SUPERVISOR_H_
