#include "serialization/internal/codec_serializer.h"

#include <utility>

#include "base/demangle.h"
#include "base/string_view.h"

namespace cairn::serialization::internal {

absl::Status CodecSerializer::Add(std::type_index type,
                                  const std::string& manifest, Encode encode,
                                  Decode decode) {
  if (encoders_.contains(type)) {
    return absl::AlreadyExistsError(base::StrCat(
        "type ", base::DemangledTypeName(type), " already has a codec"));
  }
  if (decoders_.contains(manifest)) {
    return absl::AlreadyExistsError(
        base::StrCat("manifest '", manifest, "' is already registered"));
  }
  encoders_.emplace(type, std::move(encode));
  decoders_.emplace(manifest, std::move(decode));
  return absl::OkStatus();
}

absl::Status CodecSerializer::AddDecoder(const std::string& manifest,
                                         Decode decode) {
  if (decoders_.contains(manifest)) {
    return absl::AlreadyExistsError(
        base::StrCat("manifest '", manifest, "' is already registered"));
  }
  decoders_.emplace(manifest, std::move(decode));
  return absl::OkStatus();
}

absl::StatusOr<std::string> CodecSerializer::ToBinary(
    const Payload& payload) const {
  auto it = encoders_.find(payload.type());
  if (it == encoders_.end()) {
    return absl::InvalidArgumentError(
        base::StrCat("no codec for type ", payload.TypeName()));
  }
  return it->second(payload);
}

absl::StatusOr<Payload> CodecSerializer::FromBinary(
    std::string_view bytes, std::string_view manifest) const {
  auto it = decoders_.find(base::Av(manifest));
  if (it == decoders_.end()) {
    return absl::NotFoundError(
        base::StrCat("no codec registered for manifest '", manifest, "'"));
  }
  return it->second(bytes);
}

}  // namespace cairn::serialization::internal
