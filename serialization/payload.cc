#include "serialization/payload.h"

namespace cairn::serialization {

std::string Payload::TypeName() const {
  return base::DemangledTypeName(*type_);
}

}  // namespace cairn::serialization
