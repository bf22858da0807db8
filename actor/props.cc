#include "actor/props.h"

#include "actor/actor.h"

namespace cairn::actor {

Props::Props(Factory factory, const std::type_info& type)
    : data_(new Data{std::move(factory), &type, nullptr}) {}

const Props::Deployment& Props::deployed() const {
  static const Deployment* const kDefaults = new Deployment();
  return data_->deployment != nullptr ? *data_->deployment : *kDefaults;
}

template <typename F>
Props Props::WithDeployment(F change) const {
  auto deployment = std::make_shared<Deployment>(deployed());
  change(*deployment);
  return Props(new Data{data_->factory, data_->type, std::move(deployment)});
}

Props Props::Create(Factory factory) {
  return Props(std::move(factory), typeid(Actor));
}

std::unique_ptr<Actor> Props::NewActor() const { return data_->factory(); }

Props Props::WithMailbox(std::string config_path) const {
  return WithDeployment([&](Deployment& d) {
    d.mailbox = std::move(config_path);
    d.priority = nullptr;
  });
}

Props Props::WithPriorityMailbox(PriorityFunction priority) const {
  return WithDeployment([&](Deployment& d) {
    d.priority = std::move(priority);
    d.mailbox.clear();
  });
}

Props Props::AsRouter(DeploymentCheck check) const {
  return WithDeployment([&](Deployment& d) {
    d.router = true;
    d.deployment_check = std::move(check);
  });
}

Props Props::WithMailboxStatus() const {
  return WithDeployment([](Deployment& d) { d.mailbox_status = true; });
}

Props Props::WithSendRoute(std::shared_ptr<SendRoute> route) const {
  return WithDeployment(
      [&](Deployment& d) { d.send_route = std::move(route); });
}

Props Props::WithDispatcher(std::string config_path) const {
  return WithDeployment(
      [&](Deployment& d) { d.dispatcher = std::move(config_path); });
}

}  // namespace cairn::actor
