#include "actor/props.h"

#include "actor/actor.h"

namespace cairn::actor {

Props::Props(Factory factory, const std::type_info& type)
    : data_(new Data{std::move(factory), &type, "", "", nullptr, nullptr,
                     nullptr}) {}

Props::Data* Props::CopyData() const {
  return new Data{data_->factory,    data_->type,     data_->mailbox,
                  data_->dispatcher, data_->priority, data_->deployment_check,
                  data_->send_route, data_->router,   data_->mailbox_status};
}

Props Props::Create(Factory factory) {
  return Props(std::move(factory), typeid(Actor));
}

std::unique_ptr<Actor> Props::NewActor() const { return data_->factory(); }

Props Props::WithMailbox(std::string config_path) const {
  Data* data = CopyData();
  data->mailbox = std::move(config_path);
  data->priority = nullptr;
  return Props(data);
}

Props Props::WithPriorityMailbox(PriorityFunction priority) const {
  Data* data = CopyData();
  data->priority = std::move(priority);
  data->mailbox.clear();
  return Props(data);
}

Props Props::AsRouter(DeploymentCheck check) const {
  Data* data = CopyData();
  data->router = true;
  data->deployment_check = std::move(check);
  return Props(data);
}

Props Props::WithMailboxStatus() const {
  Data* data = CopyData();
  data->mailbox_status = true;
  return Props(data);
}

Props Props::WithSendRoute(std::shared_ptr<SendRoute> route) const {
  Data* data = CopyData();
  data->send_route = std::move(route);
  return Props(data);
}

Props Props::WithDispatcher(std::string config_path) const {
  Data* data = CopyData();
  data->dispatcher = std::move(config_path);
  return Props(data);
}

}  // namespace cairn::actor
