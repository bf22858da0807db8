#ifndef CAIRN_SERIALIZATION_INTERNAL_STRING_SERIALIZER_H_
#define CAIRN_SERIALIZATION_INTERNAL_STRING_SERIALIZER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "serialization/payload.h"
#include "serialization/serializer.h"

namespace cairn::serialization::internal {

// std::string payloads as their own bytes (kStringSerializerId). Stateless.
class StringSerializer final : public Serializer {
 public:
  int32_t identifier() const override { return kStringSerializerId; }
  absl::StatusOr<std::string> ToBinary(const Payload& payload) const override;
  absl::StatusOr<Payload> FromBinary(std::string_view bytes,
                                     std::string_view manifest) const override;
};

}  // namespace cairn::serialization::internal

#endif  // CAIRN_SERIALIZATION_INTERNAL_STRING_SERIALIZER_H_
