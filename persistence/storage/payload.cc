#include "persistence/storage/payload.h"

namespace cairn::persistence {

std::string Payload::TypeName() const { return DemangledTypeName(type_); }

}  // namespace cairn::persistence
