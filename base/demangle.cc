#include "base/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace cairn::base {
namespace {

std::string Demangled(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && name != nullptr ? std::string(name.get())
                                        : std::string(mangled);
}

}  // namespace

std::string DemangledTypeName(const std::type_info& type) {
  return Demangled(type.name());
}

std::string DemangledTypeName(std::type_index type) {
  return Demangled(type.name());
}

}  // namespace cairn::base
