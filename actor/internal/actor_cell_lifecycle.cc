// ActorCell lifecycle: create, failure, suspend/resume, restart, stop.
// Everything here runs on the cell's mailbox thread.
#include <algorithm>
#include <exception>
#include <string>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/actor_cell.h"
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
  system_->Log(Path().ToString()).Log(level, message);
}

void ActorCell::Start() {
  dispatcher_->Attach(this);
  SendSystem(new SystemMessage(SystemMessageKind::kCreate));
}

void ActorCell::Create() {
  if (life_ != Life::kNew) return;
  CreateActorInstance(nullptr);
  if (system_->settings().debug_lifecycle) Publish(LogLevel::kDebug, "started");
}

void ActorCell::CreateActorInstance(const std::exception_ptr& restart_cause) {
  strategy_.reset();
  try {
    ConstructingScope scope(constructing_cell_slot, this);
    actor_ = props_.NewActor();
  } catch (...) {
    std::exception_ptr cause = std::current_exception();
    throw ActorInitializationException(
        absl::StrCat("exception during creation of ", Path().ToString(), ": ",
                     DescribeException(cause)),
        cause);
  }
  actor_->building_ = nullptr;
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
  if (failed_) return;  // the parent is already deciding
  failed_ = true;
  failed_cause_ = cause;
  if (current_ != nullptr) {
    current_->payload().AddRef();
    failed_message_ = AnyMessage(&current_->payload());
  }
  ++suspend_count_;
  for (ChildEntry* c : ChildEntries()) {
    if (c->cell == escalating_child) continue;
    c->ref.impl()->SendSystem(new SystemMessage(SystemMessageKind::kSuspend));
  }
  if (parent_ == nullptr) {
    // The root has no supervisor: the system cannot go on.
    Publish(LogLevel::kError,
            absl::StrCat("root guardian failed, terminating the system: ",
                         DescribeException(cause)));
    system_->Terminate();
    Terminate();
    return;
  }
  auto* failed = new SystemMessage(SystemMessageKind::kFailed, Self(), cause);
  failed->uid = uid_;
  parent_->SendSystem(failed);
}

void ActorCell::Suspend() {
  ++suspend_count_;
  for (ChildEntry* c : ChildEntries()) {
    c->ref.impl()->SendSystem(new SystemMessage(SystemMessageKind::kSuspend));
  }
}

void ActorCell::Resume(bool ends_failure) {
  if (ends_failure && actor_ == nullptr) {
    // Creation failed: there is nothing to resume. Akka creates it again.
    Recreate(failed_cause_);
    return;
  }
  if (ends_failure) {
    failed_ = false;
    failed_cause_ = nullptr;
    failed_message_ = AnyMessage();
  }
  suspend_count_ = std::max(0, suspend_count_ - 1);
  for (ChildEntry* c : ChildEntries()) {
    c->ref.impl()->SendSystem(new SystemMessage(SystemMessageKind::kResume));
  }
}

void ActorCell::Recreate(const std::exception_ptr& cause) {
  if (life_ == Life::kTerminating || life_ == Life::kTerminated) return;
  if (actor_ != nullptr && life_ == Life::kAlive) {
    try {
      actor_->AroundPreRestart(cause, failed_message_);
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
  prepended_.PrependAll(stash_);
  prepended_.AppendAll(internal_stash_);
  if (timeout_ != nullptr) timeout_->timer.Cancel();
  timeout_.reset();
  ++receive_timeout_generation_;
  life_ = Life::kRecreating;
  recreate_cause_ = cause;
  if (!AnyChildStopping()) FinishRecreate();
}

void ActorCell::FinishRecreate() {
  std::exception_ptr cause = std::exchange(recreate_cause_, nullptr);
  std::vector<ChildEntry*> survivors = ChildEntries();
  actor_.reset();
  failed_ = false;
  failed_cause_ = nullptr;
  failed_message_ = AnyMessage();
  try {
    CreateActorInstance(cause);
  } catch (...) {
    HandleInvokeFailure(std::current_exception());
    return;
  }
  for (ChildEntry* c : survivors) {
    if (!c->stopping) RestartChild(*c, cause, /*suspend_first=*/false);
  }
  suspend_count_ = std::max(0, suspend_count_ - 1);
  if (system_->settings().debug_lifecycle) {
    Publish(LogLevel::kDebug, "restarted");
  }
}

void ActorCell::Terminate() {
  if (life_ == Life::kTerminating || life_ == Life::kTerminated) return;
  life_ = Life::kTerminating;
  if (timeout_ != nullptr) timeout_->timer.Cancel();
  StopAllChildren();
  bool no_children;
  {
    Children& children = EnsureChildren();  // StopAllChildren made it
    std::lock_guard<std::mutex> lock(children.mu);
    no_children = children.entries.empty();
  }
  if (no_children) FinishTerminate();
}

void ActorCell::FinishTerminate() {
  if (actor_ != nullptr) {
    current_ = nullptr;
    try {
      actor_->AroundPostStop();
    } catch (...) {
      Publish(LogLevel::kError,
              absl::StrCat("PostStop threw: ",
                           DescribeException(std::current_exception())));
    }
    actor_.reset();
  }
  strategy_.reset();
  timeout_.reset();  // its timer holds a reference to this cell
  life_ = Life::kTerminated;
  status_.fetch_or(kClosed, std::memory_order_seq_cst);
  DrainToDeadLetters();
  NotifyWatchersAndParent();
  dispatcher_->Detach(this);
  if (system_->settings().debug_lifecycle) Publish(LogLevel::kDebug, "stopped");
  if (parent_ == nullptr) system_->OnRootTerminated();
}

}  // namespace cairn::actor::internal
