#ifndef CAIRN_REMOTE_INTERNAL_REMOTE_REF_H_
#define CAIRN_REMOTE_INTERNAL_REMOTE_REF_H_

#include <memory>
#include <string>
#include <vector>

#include "actor/actor_path.h"
#include "actor/remote_transport.h"
#include "remote/internal/association.h"

namespace cairn::remote::internal {

// An actor of a peer (actor::ExternalRef): its messages go through the
// peer's association. Thread safety: as ExternalRef, any thread.
class RemoteRef final : public actor::ExternalRef {
 public:
  RemoteRef(std::shared_ptr<Association> association,
            const actor::ActorPath& path);

  void Send(const actor::AnyMessage& message,
            const actor::ActorRef& sender) override;
  void SendSelection(std::vector<std::string> elements,
                     const actor::AnyMessage& message,
                     const actor::ActorRef& sender) override;
  // Remote DeathWatch: system messages through the association.
  void Watch(const actor::ActorRef& watcher) override;
  void Unwatch(const actor::ActorRef& watcher) override;
  void DeathWatchNotification(const actor::ActorRef& subject,
                              bool existence_confirmed) override;
  // Always false: a ref does not know which incarnation of its system
  // its actor belongs to. Messages to a quarantined one are dead letters,
  // and its watchers get Terminated.
  bool IsTerminated() const override { return false; }

 private:
  const std::shared_ptr<Association> association_;
  const actor::ActorPath actor_path_;
  const std::shared_ptr<const std::string> path_;  // its text, with the uid
};

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_REMOTE_REF_H_
