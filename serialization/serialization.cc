#include "serialization/serialization.h"

#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "base/demangle.h"
#include "base/string_view.h"
#include "serialization/internal/codec_serializer.h"
#include "serialization/internal/protobuf_serializer.h"
#include "serialization/internal/string_serializer.h"

namespace cairn::serialization {

SerializationRegistry::SerializationRegistry()
    : codecs_(std::make_shared<internal::CodecSerializer>()),
      protobuf_(std::make_shared<internal::ProtobufSerializer>()) {
  auto strings = std::make_shared<internal::StringSerializer>();
  bindings_.emplace(typeid(std::string), Binding{strings.get(), ""});
  serializers_.emplace(kStringSerializerId, std::move(strings));
  serializers_.emplace(kCodecSerializerId, codecs_);
  serializers_.emplace(kProtobufSerializerId, protobuf_);
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
  if (serializer_id == kProtobufSerializerId) {
    // Its manifest is the message's full name, which decoding looks up;
    // any other would be written and never read.
    return absl::InvalidArgumentError(base::StrCat(
        "Bind<", base::DemangledTypeName(type),
        ">: protobuf messages are serialized with no Bind (serializer id ",
        kProtobufSerializerId, ", manifest the descriptor's full name)"));
  }
  auto it = serializers_.find(serializer_id);
  if (it == serializers_.end()) {
    return absl::NotFoundError(
        base::StrCat("no serializer with id ", serializer_id));
  }
  if (bindings_.contains(type)) {
    return absl::AlreadyExistsError(
        base::StrCat("type ", base::DemangledTypeName(type),
                     " is already bound to a serializer"));
  }
  bindings_.emplace(type, Binding{it->second.get(), std::move(manifest)});
  return absl::OkStatus();
}

absl::Status SerializationRegistry::RegisterCodec(
    std::type_index type, std::string manifest, ErasedEncoder encode,
    ErasedDecoder decode,
    std::vector<std::pair<std::string, ErasedDecoder>> older) {
  const std::string name = base::DemangledTypeName(type);
  if (manifest.empty()) {
    return absl::InvalidArgumentError(
        base::StrCat("Register<", name, ">: the manifest is empty"));
  }
  if (bindings_.contains(type)) {
    return absl::AlreadyExistsError(
        base::StrCat("type ", name, " is already bound to a serializer"));
  }
  // Every manifest is checked before any is added, so a failed Register
  // leaves the registry as it was.
  absl::flat_hash_set<std::string> seen;
  auto check = [&](const std::string& m) -> absl::Status {
    if (m.empty()) {
      return absl::InvalidArgumentError(
          base::StrCat("Register<", name, ">: an older manifest is empty"));
    }
    if (codecs_->HasManifest(m) || !seen.insert(m).second) {
      return absl::AlreadyExistsError(base::StrCat(
          "Register<", name, ">: manifest '", m, "' is already registered"));
    }
    return absl::OkStatus();
  };
  if (codecs_->HasManifest(manifest)) return check(manifest);
  seen.insert(manifest);
  for (const auto& entry : older) {
    if (absl::Status s = check(entry.first); !s.ok()) return s;
  }
  absl::Status added =
      codecs_->Add(type, manifest, std::move(encode), std::move(decode));
  if (!added.ok()) return added;
  for (auto& [older_manifest, older_decode] : older) {
    added = codecs_->AddDecoder(older_manifest, std::move(older_decode));
    if (!added.ok()) return added;  // not reached: checked above
  }
  bindings_.emplace(type, Binding{codecs_.get(), std::move(manifest)});
  return absl::OkStatus();
}

absl::StatusOr<std::type_index> SerializationRegistry::TypeWithManifest(
    std::string_view manifest) const {
  std::optional<std::type_index> found;
  for (const auto& [type, binding] : bindings_) {
    if (binding.manifest != manifest) continue;
    if (found.has_value()) {
      return absl::InvalidArgumentError(
          base::StrCat("manifest '", manifest, "' names several types (",
                       base::DemangledTypeName(*found), ", ",
                       base::DemangledTypeName(type), ")"));
    }
    found = type;
  }
  if (!found.has_value()) {
    return absl::NotFoundError(
        base::StrCat("no type is registered with manifest '", manifest, "'"));
  }
  return *found;
}

absl::StatusOr<SerializedPayload> SerializationRegistry::Serialize(
    const Payload& payload) const {
  if (payload.empty()) {
    return absl::InvalidArgumentError("cannot serialize an empty payload");
  }
  const Serializer* serializer = nullptr;
  std::string manifest;
  absl::StatusOr<std::string> bytes;
  if (auto it = bindings_.find(payload.type()); it != bindings_.end()) {
    serializer = it->second.serializer;
    manifest = it->second.manifest;
    bytes = serializer->ToBinary(payload);
  } else if (const google::protobuf::Message* message =
                 protobuf_->AsMessage(payload)) {
    serializer = protobuf_.get();
    manifest = internal::ProtobufSerializer::Manifest(*message);
    bytes = internal::ProtobufSerializer::Encode(*message);
  } else {
    const std::string name = payload.TypeName();
    return absl::InvalidArgumentError(base::StrCat(
        "no serializer bound for type ", name,
        ": register it with SerializationRegistry::Register<", name,
        "> (or Bind<", name,
        "> to an added serializer), or make it a protobuf message, which "
        "needs no registration"));
  }
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        base::StrCat("serializing ", payload.TypeName(), ": ",
                                     bytes.status().message()));
  }
  return SerializedPayload{serializer->identifier(), std::move(manifest),
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

}  // namespace cairn::serialization
