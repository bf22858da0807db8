#include "actor/ask.h"

#include <memory>
#include <utility>

#include "actor/internal/system_access.h"
#include "actor/internal/system_message.h"

namespace cairn::actor::internal {
namespace {

// Receives the DeathWatchNotification for GracefulStop.
class StopWatcherRef final : public ActorRefImpl {
 public:
  StopWatcherRef(ActorSystem* system, ActorPath path)
      : system_(system), path_(std::move(path)) {}
  // As ~AskRef: the target was not seen to stop.
  ~StopWatcherRef() override { promise_.TrySetValue(false); }
  void Deliver(Envelope* envelope) override { envelope->Dispose(); }
  void SendSystem(SystemMessage* message) override {
    std::unique_ptr<SystemMessage> m(message);
    if (m->kind == SystemMessageKind::kDeathWatchNotification) {
      promise_.TrySetValue(true);
    }
  }
  ActorPath Path() const override { return path_; }
  bool IsTerminated() const override { return promise_.GetFuture().is_ready(); }
  ActorSystem* GetSystem() const override { return system_; }
  Promise<bool>& promise() { return promise_; }

 private:
  ActorSystem* const system_;
  const ActorPath path_;
  Promise<bool> promise_;
};

}  // namespace

ActorPath NewTempPath(ActorSystem& system) {
  return SystemAccess::NewTempPath(system);
}

Future<bool> WatchForStop(const ActorRef& target, absl::Duration timeout) {
  ActorSystem* system = target.impl()->GetSystem();
  auto* watcher = new StopWatcherRef(system, NewTempPath(*system));
  ActorRef watcher_ref(watcher);
  Future<bool> future = watcher->promise().GetFuture();
  target.impl()->SendSystem(
      new SystemMessage(SystemMessageKind::kWatch, watcher_ref));
  Cancellable timer =
      system->Scheduler().ScheduleOnce(timeout, [watcher_ref, target] {
        auto* w = static_cast<StopWatcherRef*>(watcher_ref.impl());
        if (w->promise().TrySetValue(false)) {
          target.impl()->SendSystem(
              new SystemMessage(SystemMessageKind::kUnwatch, watcher_ref));
        }
      });
  future.OnComplete([timer](const Future<bool>&) mutable { timer.Cancel(); });
  return future;
}

}  // namespace cairn::actor::internal
