#include "remote/module_serializer.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "serialization/serializer.h"

namespace cairn::remote {
namespace {

// Filled by static initializers before main, read-only after: no lock.
std::vector<std::shared_ptr<const ModuleSerializer>>& Serializers() {
  static auto* serializers =
      new std::vector<std::shared_ptr<const ModuleSerializer>>();
  return *serializers;
}

}  // namespace

bool ModuleSerializers::Add(
    std::shared_ptr<const ModuleSerializer> serializer) {
  if (serializer == nullptr) {
    std::fprintf(stderr,
                 "cairn: ModuleSerializers::Add of a null serializer\n");
    return false;
  }
  const int32_t id = serializer->Identifier();
  // 1 to 4 are the built-in ones (serialization/serializer.h).
  if (id <= 4 || id > serialization::kMaxReservedSerializerId) {
    std::fprintf(stderr,
                 "cairn: module serializer %d is outside cairn's reserved "
                 "range 5..%d: not used\n",
                 id, serialization::kMaxReservedSerializerId);
    return false;
  }
  if (ById(id) != nullptr) {
    std::fprintf(stderr,
                 "cairn: two module serializers have the identifier %d: "
                 "the second is not used\n",
                 id);
    return false;
  }
  Serializers().push_back(std::move(serializer));
  return true;
}

const ModuleSerializer* ModuleSerializers::ForType(const std::type_info& type,
                                                   std::string* manifest) {
  for (const auto& serializer : Serializers()) {
    if (std::optional<std::string> m = serializer->ManifestOf(type)) {
      *manifest = *std::move(m);
      return serializer.get();
    }
  }
  return nullptr;
}

const ModuleSerializer* ModuleSerializers::ById(int32_t identifier) {
  for (const auto& serializer : Serializers()) {
    if (serializer->Identifier() == identifier) return serializer.get();
  }
  return nullptr;
}

}  // namespace cairn::remote
