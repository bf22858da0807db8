// ActorCell as a supervisor: deciding what happens to a failed child.
// Runs on the supervisor's mailbox thread.
#include <exception>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/actor_cell.h"

namespace cairn::actor::internal {

actor::SupervisorStrategy& ActorCell::Strategy() {
  Extras& x = EnsureExtras();
  if (x.strategy == nullptr && actor_ != nullptr) {
    x.strategy = actor_->SupervisorStrategy();
  }
  if (x.strategy == nullptr) {
    x.strategy = actor::SupervisorStrategy::DefaultStrategy();
  }
  return *x.strategy;
}

void ActorCell::RestartChild(ActorCell* child, const std::exception_ptr& cause,
                             bool suspend_first) {
  if (suspend_first) {
    child->SendSystem(new SystemMessage(SystemMessageKind::kSuspend));
  }
  child->SendSystem(
      new SystemMessage(SystemMessageKind::kRecreate, ActorRef(), cause));
}

void ActorCell::StopChild(ActorCell* child) {
  family()->stopping_children.insert(child);  // it has a child
  child->SendSystem(new SystemMessage(SystemMessageKind::kTerminate));
}

void ActorCell::HandleFailed(SystemMessage& m) {
  ActorCell* child = FindChild(m.ref.impl()->AsCell());
  // A failure of a child that is gone or being stopped needs no decision.
  if (child == nullptr || IsStopping(child) || child->uid() != m.uid) {
    return;
  }
  actor::SupervisorStrategy& strategy = Strategy();
  const Directive directive = strategy.Decide(m.cause);
  if (directive != Directive::kEscalate && strategy.logging_enabled()) {
    Publish(
        directive == Directive::kResume ? LogLevel::kWarning : LogLevel::kError,
        absl::StrCat(child->Path().ToString(), " failed (",
                     DirectiveName(directive),
                     "): ", DescribeException(m.cause)));
  }
  const absl::Time now = System().GetClock().Now();
  switch (directive) {
    case Directive::kResume:
      child->SendSystem(
          new SystemMessage(SystemMessageKind::kResume, ActorRef(), m.cause));
      return;
    case Directive::kRestart: {
      const bool permitted =
          family()->restart_stats[child].RequestRestartPermission(
              strategy.max_nr_of_retries(), strategy.within_time_range(), now);
      if (!strategy.all_for_one()) {
        if (permitted) {
          RestartChild(child, m.cause, /*suspend_first=*/false);
        } else {
          StopChild(child);
        }
        return;
      }
      for (ActorCell* c : ChildCells()) {
        if (IsStopping(c)) continue;
        if (permitted) {
          RestartChild(c, m.cause, /*suspend_first=*/c != child);
        } else {
          StopChild(c);
        }
      }
      return;
    }
    case Directive::kStop:
      if (!strategy.all_for_one()) {
        StopChild(child);
        return;
      }
      for (ActorCell* c : ChildCells()) {
        if (!IsStopping(c)) StopChild(c);
      }
      return;
    case Directive::kEscalate:
      // Fails this actor with the child's exception; our parent decides.
      // The child is suspended already and stays so until then.
      HandleInvokeFailure(m.cause, child);
      return;
  }
}

}  // namespace cairn::actor::internal
