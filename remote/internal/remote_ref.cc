#include "remote/internal/remote_ref.h"

#include <utility>

namespace cairn::remote::internal {

RemoteRef::RemoteRef(std::shared_ptr<Association> association,
                     const actor::ActorPath& path)
    : association_(std::move(association)),
      actor_path_(path),
      path_(std::make_shared<const std::string>(path.ToStringWithUid())) {}

void RemoteRef::Send(const actor::AnyMessage& message,
                     const actor::ActorRef& sender) {
  association_->Send(Outbound{path_, message, sender, nullptr});
}

void RemoteRef::SendSelection(std::vector<std::string> elements,
                              const actor::AnyMessage& message,
                              const actor::ActorRef& sender) {
  association_->Send(Outbound{
      path_, message, sender,
      std::make_shared<const std::vector<std::string>>(std::move(elements))});
}

void RemoteRef::Watch(const actor::ActorRef& watcher) {
  association_->SendWatch(path_, actor_path_, watcher, /*watch=*/true);
}

void RemoteRef::Unwatch(const actor::ActorRef& watcher) {
  association_->SendWatch(path_, actor_path_, watcher, /*watch=*/false);
}

void RemoteRef::DeathWatchNotification(const actor::ActorRef& subject,
                                       bool existence_confirmed) {
  association_->SendDeathWatchNotification(path_, actor_path_, subject,
                                           existence_confirmed);
}

}  // namespace cairn::remote::internal
