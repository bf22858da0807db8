#include "actor/props.h"

#include "actor/actor.h"

namespace cairn::actor {

Props::Props(Factory factory, const std::type_info& type)
    : data_(std::make_shared<const Data>(
          Data{std::move(factory), &type, "", "", nullptr})) {}

Props Props::Create(Factory factory) {
  return Props(std::move(factory), typeid(Actor));
}

std::unique_ptr<Actor> Props::NewActor() const { return data_->factory(); }

Props Props::WithMailbox(std::string config_path) const {
  auto data = std::make_shared<Data>(*data_);
  data->mailbox = std::move(config_path);
  data->priority = nullptr;
  return Props(std::move(data));
}

Props Props::WithPriorityMailbox(PriorityFunction priority) const {
  auto data = std::make_shared<Data>(*data_);
  data->priority = std::move(priority);
  data->mailbox.clear();
  return Props(std::move(data));
}

Props Props::WithDispatcher(std::string config_path) const {
  auto data = std::make_shared<Data>(*data_);
  data->dispatcher = std::move(config_path);
  return Props(std::move(data));
}

}  // namespace cairn::actor
