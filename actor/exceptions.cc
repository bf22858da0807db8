#include "actor/exceptions.h"

#include <typeinfo>

#include "absl/strings/str_cat.h"
#include "actor/any_message.h"

namespace cairn::actor {

std::string DescribeException(const std::exception_ptr& e) {
  if (e == nullptr) return "no exception";
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return absl::StrCat(DemangledTypeName(typeid(ex)), ": ", ex.what());
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace cairn::actor
