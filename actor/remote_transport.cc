#include "actor/remote_transport.h"

#include <map>
#include <utility>

#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/system_message.h"

namespace cairn::actor {
namespace {

using Registry = std::map<std::string, RemoteTransportFactory, std::less<>>;

Registry& Factories() {
  static Registry* registry = new Registry();
  return *registry;
}

void Send(const ActorRef& to, internal::SystemMessage* message) {
  if (to.IsNobody()) {
    delete message;
    return;
  }
  to.impl()->SendSystem(message);
}

}  // namespace

bool RemoteTransports::Add(std::string name, RemoteTransportFactory factory) {
  Factories().emplace(std::move(name), std::move(factory));
  return true;
}

const RemoteTransportFactory* RemoteTransports::Find(std::string_view name) {
  const Registry& registry = Factories();
  auto it = registry.find(name);
  return it == registry.end() ? nullptr : &it->second;
}

void DeliverWatch(const ActorRef& watchee, const ActorRef& watcher) {
  Send(watchee, new internal::SystemMessage(internal::SystemMessageKind::kWatch,
                                            watcher));
}

void DeliverUnwatch(const ActorRef& watchee, const ActorRef& watcher) {
  Send(watchee, new internal::SystemMessage(
                    internal::SystemMessageKind::kUnwatch, watcher));
}

void DeliverDeathWatchNotification(const ActorRef& watcher,
                                   const ActorRef& subject,
                                   bool existence_confirmed,
                                   bool address_terminated) {
  auto* message = new internal::SystemMessage(
      internal::SystemMessageKind::kDeathWatchNotification, subject);
  message->existence_confirmed = existence_confirmed;
  message->address_terminated = address_terminated;
  Send(watcher, message);
}

}  // namespace cairn::actor
