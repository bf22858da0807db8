#ifndef CAIRN_SERIALIZATION_INTERNAL_CODEC_SERIALIZER_H_
#define CAIRN_SERIALIZATION_INTERNAL_CODEC_SERIALIZER_H_

#include <functional>
#include <string>
#include <string_view>
#include <typeindex>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "serialization/payload.h"
#include "serialization/serializer.h"

namespace cairn::serialization::internal {

// The serializer behind SerializationRegistry::Register
// (kCodecSerializerId): one encode function per C++ type, one decode
// function per manifest. Add is setup-time only (see SerializationRegistry).
class CodecSerializer final : public Serializer {
 public:
  using Encode = std::function<absl::StatusOr<std::string>(const Payload&)>;
  using Decode = std::function<absl::StatusOr<Payload>(std::string_view)>;

  // AlreadyExists if the type or the manifest is taken.
  absl::Status Add(std::type_index type, const std::string& manifest,
                   Encode encode, Decode decode);
  // A manifest that is only read (an older one of a registered type).
  // AlreadyExists if the manifest is taken.
  absl::Status AddDecoder(const std::string& manifest, Decode decode);
  bool HasType(std::type_index type) const { return encoders_.contains(type); }
  bool HasManifest(const std::string& manifest) const {
    return decoders_.contains(manifest);
  }

  int32_t identifier() const override { return kCodecSerializerId; }
  absl::StatusOr<std::string> ToBinary(const Payload& payload) const override;
  absl::StatusOr<Payload> FromBinary(std::string_view bytes,
                                     std::string_view manifest) const override;

 private:
  absl::flat_hash_map<std::type_index, Encode> encoders_;
  absl::flat_hash_map<std::string, Decode> decoders_;
};

}  // namespace cairn::serialization::internal

#endif  // CAIRN_SERIALIZATION_INTERNAL_CODEC_SERIALIZER_H_
