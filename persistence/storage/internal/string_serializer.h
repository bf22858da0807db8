#ifndef CAIRN_PERSISTENCE_STORAGE_INTERNAL_STRING_SERIALIZER_H_
#define CAIRN_PERSISTENCE_STORAGE_INTERNAL_STRING_SERIALIZER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "persistence/storage/payload.h"
#include "persistence/storage/serializer.h"

namespace cairn::persistence::storage_internal {

// std::string payloads as their own bytes (kStringSerializerId). Stateless.
class StringSerializer final : public Serializer {
 public:
  int32_t identifier() const override { return kStringSerializerId; }
  absl::StatusOr<std::string> ToBinary(const Payload& payload) const override;
  absl::StatusOr<Payload> FromBinary(std::string_view bytes,
                                     std::string_view manifest) const override;
};

}  // namespace cairn::persistence::storage_internal

#endif  // CAIRN_PERSISTENCE_STORAGE_INTERNAL_STRING_SERIALIZER_H_
