// ActorCell as a supervisor: deciding what happens to a failed child.
// Runs on the supervisor's mailbox thread.
#include <exception>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/actor_cell.h"

namespace cairn::actor::internal {

actor::SupervisorStrategy& ActorCell::Strategy() {
  if (strategy_ == nullptr && actor_ != nullptr) {
    strategy_ = actor_->SupervisorStrategy();
  }
  if (strategy_ == nullptr) {
    strategy_ = actor::SupervisorStrategy::DefaultStrategy();
  }
  return *strategy_;
}

void ActorCell::RestartChild(ChildEntry& child, const std::exception_ptr& cause,
                             bool suspend_first) {
  if (suspend_first) {
    child.ref.impl()->SendSystem(
        new SystemMessage(SystemMessageKind::kSuspend));
  }
  child.ref.impl()->SendSystem(
      new SystemMessage(SystemMessageKind::kRecreate, ActorRef(), cause));
}

void ActorCell::StopChild(ChildEntry& child) {
  child.stopping = true;
  child.ref.impl()->SendSystem(
      new SystemMessage(SystemMessageKind::kTerminate));
}

void ActorCell::HandleFailed(SystemMessage& m) {
  ChildEntry* child = FindChild(m.ref.impl()->AsCell());
  // A failure of a child that is gone or being stopped needs no decision.
  if (child == nullptr || child->stopping || child->cell->uid() != m.uid) {
    return;
  }
  actor::SupervisorStrategy& strategy = Strategy();
  const Directive directive = strategy.Decide(m.cause);
  if (directive != Directive::kEscalate && strategy.logging_enabled()) {
    Publish(
        directive == Directive::kResume ? LogLevel::kWarning : LogLevel::kError,
        absl::StrCat(child->cell->Path().ToString(), " failed (",
                     DirectiveName(directive),
                     "): ", DescribeException(m.cause)));
  }
  const absl::Time now = system_->GetClock().Now();
  switch (directive) {
    case Directive::kResume:
      child->ref.impl()->SendSystem(
          new SystemMessage(SystemMessageKind::kResume, ActorRef(), m.cause));
      return;
    case Directive::kRestart: {
      const bool permitted = child->stats.RequestRestartPermission(
          strategy.max_nr_of_retries(), strategy.within_time_range(), now);
      if (!strategy.all_for_one()) {
        if (permitted) {
          RestartChild(*child, m.cause, /*suspend_first=*/false);
        } else {
          StopChild(*child);
        }
        return;
      }
      for (ChildEntry* c : ChildEntries()) {
        if (c->stopping) continue;
        if (permitted) {
          RestartChild(*c, m.cause, /*suspend_first=*/c != child);
        } else {
          StopChild(*c);
        }
      }
      return;
    }
    case Directive::kStop:
      if (!strategy.all_for_one()) {
        StopChild(*child);
        return;
      }
      for (ChildEntry* c : ChildEntries()) {
        if (!c->stopping) StopChild(*c);
      }
      return;
    case Directive::kEscalate:
      // Fails this actor with the child's exception; our parent decides.
      // The child is suspended already and stays so until then.
      HandleInvokeFailure(m.cause, child->cell);
      return;
  }
}

}  // namespace cairn::actor::internal
