#include "persistence/storage/serialization.h"

#include <utility>

#include "base/string_view.h"
#include "persistence/storage/internal/codec_serializer.h"
#include "persistence/storage/internal/string_serializer.h"

namespace cairn::persistence {

SerializationRegistry::SerializationRegistry()
    : codecs_(std::make_shared<internal::CodecSerializer>()) {
  auto strings = std::make_shared<internal::StringSerializer>();
  bindings_.emplace(typeid(std::string), Binding{strings.get(), ""});
  serializers_.emplace(kStringSerializerId, std::move(strings));
  serializers_.emplace(kCodecSerializerId, codecs_);
}

SerializationRegistry::~SerializationRegistry() = default;

absl::Status SerializationRegistry::AddSerializer(
    std::shared_ptr<const Serializer> serializer) {
  if (serializer == nullptr) {
    return absl::InvalidArgumentError("AddSerializer: null serializer");
  }
  const int32_t id = serializer->identifier();
  if (serializers_.contains(id)) {
    return absl::AlreadyExistsError(
        base::StrCat("serializer id ", id, " is already taken"));
  }
  serializers_.emplace(id, std::move(serializer));
  return absl::OkStatus();
}

absl::Status SerializationRegistry::BindType(std::type_index type,
                                             int32_t serializer_id,
                                             std::string manifest) {
  auto it = serializers_.find(serializer_id);
  if (it == serializers_.end()) {
    return absl::NotFoundError(
        base::StrCat("no serializer with id ", serializer_id));
  }
  if (bindings_.contains(type)) {
    return absl::AlreadyExistsError(base::StrCat(
        "type ", DemangledTypeName(type), " is already bound to a serializer"));
  }
  bindings_.emplace(type, Binding{it->second.get(), std::move(manifest)});
  return absl::OkStatus();
}

absl::Status SerializationRegistry::RegisterCodec(std::type_index type,
                                                  std::string manifest,
                                                  ErasedEncoder encode,
                                                  ErasedDecoder decode) {
  if (manifest.empty()) {
    return absl::InvalidArgumentError(base::StrCat(
        "Register<", DemangledTypeName(type), ">: the manifest is empty"));
  }
  if (bindings_.contains(type)) {
    return absl::AlreadyExistsError(base::StrCat(
        "type ", DemangledTypeName(type), " is already bound to a serializer"));
  }
  absl::Status added =
      codecs_->Add(type, manifest, std::move(encode), std::move(decode));
  if (!added.ok()) return added;
  bindings_.emplace(type, Binding{codecs_.get(), std::move(manifest)});
  return absl::OkStatus();
}

absl::StatusOr<SerializedPayload> SerializationRegistry::Serialize(
    const Payload& payload) const {
  if (payload.empty()) {
    return absl::InvalidArgumentError("cannot serialize an empty payload");
  }
  auto it = bindings_.find(payload.type());
  if (it == bindings_.end()) {
    return absl::InvalidArgumentError(base::StrCat(
        "no serializer bound for type ", payload.TypeName(),
        " (register it with SerializationRegistry::Register or Bind)"));
  }
  const Binding& binding = it->second;
  absl::StatusOr<std::string> bytes = binding.serializer->ToBinary(payload);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        base::StrCat("serializing ", payload.TypeName(), ": ",
                                     bytes.status().message()));
  }
  return SerializedPayload{binding.serializer->identifier(), binding.manifest,
                           *std::move(bytes)};
}

absl::StatusOr<Payload> SerializationRegistry::Deserialize(
    int32_t serializer_id, std::string_view manifest,
    std::string_view bytes) const {
  auto it = serializers_.find(serializer_id);
  if (it == serializers_.end()) {
    return absl::NotFoundError(base::StrCat("no serializer with id ",
                                            serializer_id, " (manifest '",
                                            manifest, "')"));
  }
  return it->second->FromBinary(bytes, manifest);
}

}  // namespace cairn::persistence
