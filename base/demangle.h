#ifndef CAIRN_BASE_DEMANGLE_H_
#define CAIRN_BASE_DEMANGLE_H_

#include <string>
#include <typeindex>
#include <typeinfo>

namespace cairn::base {

// The demangled name of a type ("std::vector<int>"), for error messages;
// the mangled name if it cannot be demangled. Thread-safe.
std::string DemangledTypeName(const std::type_info& type);
std::string DemangledTypeName(std::type_index type);

}  // namespace cairn::base

#endif  // CAIRN_BASE_DEMANGLE_H_
