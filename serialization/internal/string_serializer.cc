#include "serialization/internal/string_serializer.h"

#include "absl/status/status.h"
#include "base/string_view.h"

namespace cairn::serialization::internal {

absl::StatusOr<std::string> StringSerializer::ToBinary(
    const Payload& payload) const {
  const std::string* text = payload.As<std::string>();
  if (text == nullptr) {
    return absl::InvalidArgumentError(base::StrCat(
        "the string serializer cannot serialize a ", payload.TypeName()));
  }
  return *text;
}

absl::StatusOr<Payload> StringSerializer::FromBinary(
    std::string_view bytes, std::string_view /*manifest*/) const {
  return Payload::Of(std::string(bytes));
}

}  // namespace cairn::serialization::internal
