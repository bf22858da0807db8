#include "actor/any_message.h"

#include "actor/messages.h"
#include "base/demangle.h"

namespace cairn::actor {

std::string DemangledTypeName(const std::type_info& type) {
  return base::DemangledTypeName(type);
}

std::string AnyMessage::TypeName() const { return DemangledTypeName(type()); }
std::string MessageView::TypeName() const { return DemangledTypeName(type()); }

std::shared_ptr<const void> AnyMessage::SharedValue() const {
  if (payload_ == nullptr) return nullptr;
  if (const auto* shared =
          dynamic_cast<const internal::SharedPayload*>(payload_)) {
    return shared->shared();
  }
  // Aliases the payload: the deleter drops the reference taken here.
  payload_->AddRef();
  return std::shared_ptr<const void>(
      payload_->raw(),
      [payload = payload_](const void*) { payload->Release(); });
}

AnyMessage AnyMessage::Adopt(std::shared_ptr<const void> value,
                             const std::type_info& type,
                             PointerThrower thrower) {
  // The runtime messages that can come from outside the process; the
  // others (Terminated, timers, selections) are the runtime's own and made
  // with Of.
  const bool runtime_message = type == typeid(PoisonPill) ||
                               type == typeid(Kill) || type == typeid(Identify);
  return AnyMessage(new internal::SharedPayload(std::move(value), type, thrower,
                                                runtime_message));
}

}  // namespace cairn::actor
