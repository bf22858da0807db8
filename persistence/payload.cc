#include "persistence/payload.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace cairn::persistence {

std::string DemangledTypeName(std::type_index type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name != nullptr ? std::string(name.get())
                                        : std::string(type.name());
}

std::string Payload::TypeName() const { return DemangledTypeName(type_); }

}  // namespace cairn::persistence
