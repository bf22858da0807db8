#include "actor/any_message.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace cairn::actor {

std::string DemangledTypeName(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name != nullptr ? std::string(name.get())
                                        : std::string(type.name());
}

std::string AnyMessage::TypeName() const { return DemangledTypeName(type()); }
std::string MessageView::TypeName() const { return DemangledTypeName(type()); }

}  // namespace cairn::actor
