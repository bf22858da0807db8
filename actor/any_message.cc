#include "actor/any_message.h"

#include "base/demangle.h"

namespace cairn::actor {

std::string DemangledTypeName(const std::type_info& type) {
  return base::DemangledTypeName(type);
}

std::string AnyMessage::TypeName() const { return DemangledTypeName(type()); }
std::string MessageView::TypeName() const { return DemangledTypeName(type()); }

}  // namespace cairn::actor
