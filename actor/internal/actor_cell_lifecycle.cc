// ActorCell lifecycle: create, failure, suspend/resume, restart, stop.
// Everything here runs on the cell's mailbox thread.
#include <algorithm>
#include <exception>
#include <string>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/actor_cell.h"
#include "actor/internal/system_access.h"
#include "actor/internal/system_settings.h"

namespace cairn::actor::internal {
namespace {

// Restores the thread's "actor under construction" on every exit path.
class ConstructingScope {
 public:
  ConstructingScope(ActorCell*& slot, ActorCell* cell)
      : slot_(slot), previous_(slot) {
    slot_ = cell;
  }
  ~ConstructingScope() { slot_ = previous_; }

 private:
  ActorCell*& slot_;
  ActorCell* previous_;
};

}  // namespace

void ActorCell::Publish(LogLevel level, const std::string& message) {
  System().Log(Path().ToString()).Log(level, message);
}

void ActorCell::Start() {
  SendSystem(new SystemMessage(SystemMessageKind::kCreate));
}

void ActorCell::Create() {
  if (life_ != Life::kNew) return;
  CreateActorInstance(nullptr);
  if (SystemAccess::Settings(System()).debug_lifecycle) {
    Publish(LogLevel::kDebug, "started");
  }
}

void ActorCell::CreateActorInstance(const std::exception_ptr& restart_cause) {
  if (Extras* x = extras()) x->strategy.reset();
  try {
    ConstructingScope scope(constructing_cell_slot, this);
    actor_ = props_.NewActor();
  } catch (...) {
    Actor::EndDeclaring(/*returned=*/false);
    std::exception_ptr cause = std::current_exception();
    throw ActorInitializationException(
        absl::StrCat("exception during creation of ", Path().ToString(), ": ",
                     DescribeException(cause)),
        cause);
  }
  Actor::EndDeclaring(/*returned=*/true);
  life_ = Life::kAlive;
  try {
    if (restart_cause != nullptr) {
      actor_->AroundPostRestart(restart_cause);
    } else {
      actor_->AroundPreStart();
    }
  } catch (...) {
    std::exception_ptr cause = std::current_exception();
    throw ActorInitializationException(
        absl::StrCat("exception in ",
                     restart_cause != nullptr ? "PostRestart" : "PreStart",
                     " of ", Path().ToString(), ": ", DescribeException(cause)),
        cause);
  }
}

void ActorCell::HandleInvokeFailure(std::exception_ptr cause,
                                    const ActorCell* escalating_child) {
  if (life_ == Life::kTerminating || life_ == Life::kTerminated) {
    Publish(LogLevel::kError,
            absl::StrCat("failure while stopping: ", DescribeException(cause)));
    return;
  }
  if (failed()) return;  // the parent is already deciding
  flags_ |= kFailed;
  Extras& x = EnsureExtras();
  x.failed_cause = cause;
  if (const Envelope* current = Current()) {
    current->payload().AddRef();
    x.failed_message = AnyMessage(&current->payload());
  }
  ++suspend_count_;
  for (ActorCell* child : ChildCells()) {
    if (child == escalating_child) continue;
    child->SendSystem(new SystemMessage(SystemMessageKind::kSuspend));
  }
  if (parent_ == nullptr) {
    // The root has no supervisor: the system cannot go on.
    Publish(LogLevel::kError,
            absl::StrCat("root guardian failed, terminating the system: ",
                         DescribeException(cause)));
    System().Terminate();
    Terminate();
    return;
  }
  auto* failed = new SystemMessage(SystemMessageKind::kFailed, Self(), cause);
  failed->uid = uid_;
  parent_->SendSystem(failed);
}

void ActorCell::Suspend() {
  ++suspend_count_;
  for (ActorCell* child : ChildCells()) {
    child->SendSystem(new SystemMessage(SystemMessageKind::kSuspend));
  }
}

void ActorCell::ClearFailure() {
  flags_ &= ~kFailed;
  if (Extras* x = extras()) {
    x->failed_cause = nullptr;
    x->failed_message = AnyMessage();
  }
}

void ActorCell::Resume(bool ends_failure) {
  if (ends_failure && actor_ == nullptr) {
    // Creation failed: there is nothing to resume. Akka creates it again.
    Extras* x = extras();
    Recreate(x != nullptr ? x->failed_cause : nullptr);
    return;
  }
  if (ends_failure) ClearFailure();
  if (suspend_count_ > 0) --suspend_count_;
  for (ActorCell* child : ChildCells()) {
    child->SendSystem(new SystemMessage(SystemMessageKind::kResume));
  }
}

void ActorCell::Recreate(const std::exception_ptr& cause) {
  if (life_ == Life::kTerminating || life_ == Life::kTerminated) return;
  Extras& x = EnsureExtras();
  // As Akka: no timer of the old instance is active in PreRestart (nor
  // can its message slip in after); cancelled again below for any timer
  // PreRestart started.
  CancelTimers();
  if (actor_ != nullptr && life_ == Life::kAlive) {
    try {
      actor_->AroundPreRestart(cause, x.failed_message);
    } catch (...) {
      Publish(LogLevel::kError,
              absl::StrCat("PreRestart threw: ",
                           DescribeException(std::current_exception())));
    }
    actor_->ReleaseRetiredBehaviors();
  }
  // Stashed messages go back to the mailbox for the new instance: the
  // user's in front, then what was already unstashed, then the protocol's
  // stash (a PersistentActor lets it out one message at a time, so what it
  // already let out is older than what it still holds).
  if (stashes_ != nullptr) {
    stashes_->prepended.PrependAll(stashes_->stash);
    stashes_->prepended.AppendAll(stashes_->internal_stash);
  }
  CancelReceiveTimeout();
  CancelTimers();
  life_ = Life::kRecreating;
  x.recreate_cause = cause;
  if (!AnyChildStopping()) FinishRecreate();
}

void ActorCell::FinishRecreate() {
  std::exception_ptr cause = std::exchange(extras()->recreate_cause, nullptr);
  std::vector<ActorCell*> survivors = ChildCells();
  actor_.reset();
  ClearFailure();
  try {
    CreateActorInstance(cause);
  } catch (...) {
    HandleInvokeFailure(std::current_exception());
    return;
  }
  for (ActorCell* child : survivors) {
    if (!IsStopping(child)) {
      RestartChild(child, cause, /*suspend_first=*/false);
    }
  }
  if (suspend_count_ > 0) --suspend_count_;
  if (SystemAccess::Settings(System()).debug_lifecycle) {
    Publish(LogLevel::kDebug, "restarted");
  }
}

void ActorCell::Terminate() {
  if (life_ == Life::kTerminating || life_ == Life::kTerminated) return;
  life_ = Life::kTerminating;
  CancelReceiveTimeout();
  CancelTimers();
  StopAllChildren();
  bool no_children = true;
  if (Family* f = family()) {
    AdaptiveMutexLock lock(&f->mu);
    no_children = f->children.empty() && f->terminated_children.empty();
  }
  if (no_children) FinishTerminate();
}

void ActorCell::FinishTerminate() {
  if (actor_ != nullptr) {
    ForgetCurrent();
    try {
      actor_->AroundPostStop();
    } catch (...) {
      Publish(LogLevel::kError,
              absl::StrCat("PostStop threw: ",
                           DescribeException(std::current_exception())));
    }
    actor_.reset();
  }
  {
    // What the props hold goes now, on this thread, as the instance did:
    // not with the last ActorRef, which may be let go on a thread that
    // what they hold owns (a store's worker finishing a task that held
    // Self()), which would then join itself ("Resource deadlock avoided").
    Props released = std::move(props_);
  }
  if (Extras* x = extras()) {
    x->strategy.reset();
    // Kept for a PreRestart that will not come. The message may hold a
    // reference to this cell (a message the actor sent itself), which would
    // keep the cell alive forever.
    x->failed_message = AnyMessage();
    x->failed_cause = nullptr;
  }
  CancelReceiveTimeout();
  CancelTimers();  // any PostStop started
  life_ = Life::kTerminated;
  status_.fetch_or(kClosed, std::memory_order_seq_cst);
  DrainToDeadLetters();
  // A watcher that hears of the end may start an actor of the same name at
  // once (as a region of the same type after a region stopped): the name is
  // free before anyone hears.
  if (parent_ != nullptr) parent_->FreeChildName(this);
  NotifyWatchersAndParent();
  dispatcher_->Detach(this);
  if (SystemAccess::Settings(System()).debug_lifecycle) {
    Publish(LogLevel::kDebug, "stopped");
  }
  if (parent_ == nullptr) SystemAccess::OnRootTerminated(System());
}

}  // namespace cairn::actor::internal
