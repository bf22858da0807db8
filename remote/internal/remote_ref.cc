#include "remote/internal/remote_ref.h"

#include <utility>

#include "base/string_view.h"

namespace cairn::remote::internal {

RemoteRef::RemoteRef(std::shared_ptr<Association> association,
                     const actor::ActorPath& path)
    : association_(std::move(association)),
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
  association_->Warn(base::StrCat(
      watcher.Path().ToString(), " watches ", *path_,
      ": remote DeathWatch is not there yet, no Terminated will come"));
}

void RemoteRef::Unwatch(const actor::ActorRef&) {}

void RemoteRef::DeathWatchNotification(const actor::ActorRef&, bool) {}

}  // namespace cairn::remote::internal
