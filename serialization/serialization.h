#ifndef CAIRN_SERIALIZATION_SERIALIZATION_H_
#define CAIRN_SERIALIZATION_SERIALIZATION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/bytes.h"
#include "serialization/payload.h"
#include "serialization/serializer.h"

namespace cairn::serialization {

namespace internal {
class CodecSerializer;
class ProtobufSerializer;
}  // namespace internal

// The bytes a decoder reads (base/bytes.h).
using Bytes = base::Bytes;

// Maps C++ types to (serializer id, manifest) and encodes and decodes
// payloads with the serializer so chosen. A new registry already serializes
// std::string (kStringSerializerId) and every Protocol Buffers message
// (kProtobufSerializerId), as Akka's built-in protobuf serializer: a type
// deriving from google::protobuf::Message that nothing is bound to needs
// no registration. Its manifest is the descriptor's full name
// ("my.pkg.Event"), and Deserialize makes a message of the generated C++
// type linked into the reading program under that name (Payload::As of
// that type works). A Register or Bind of a message type wins over it.
// Lite messages (google::protobuf::MessageLite only) have no descriptor:
// Register them.
//
// Life cycle and thread safety: set the registry up (AddSerializer, Bind,
// Register, from one thread) before anything reads it; then share it as a
// `std::shared_ptr<const SerializationRegistry>`. The const methods are safe
// from any number of threads at once; the setup methods are not safe to call
// while anything else uses the registry.
class SerializationRegistry {
 public:
  template <typename T>
  using Encoder = std::function<absl::StatusOr<std::string>(const T&)>;
  // A decoder may declare its parameter as Bytes (base/bytes.h: Abseil's
  // helpers such as absl::StrSplit and absl::SimpleAtoi take it as it is,
  // where Debian's absl::string_view is not std::string_view),
  // std::string_view or absl::string_view. The bytes live for the call.
  template <typename T>
  using Decoder = std::function<absl::StatusOr<T>(Bytes)>;
  // A manifest T was once stored under, with the function that reads the
  // bytes written then (upcasting: they may be another layout, or another
  // type's, converted to today's T).
  template <typename T>
  struct OlderManifest {
    std::string manifest;
    Decoder<T> decode;
  };

  SerializationRegistry();
  ~SerializationRegistry();
  SerializationRegistry(const SerializationRegistry&) = delete;
  SerializationRegistry& operator=(const SerializationRegistry&) = delete;

  // Makes `serializer` available to Bind. AlreadyExists if its identifier is
  // taken; InvalidArgument if it is null.
  [[nodiscard]] absl::Status AddSerializer(
      std::shared_ptr<const Serializer> serializer);

  // Serializes T with the serializer `serializer_id`, storing `manifest`
  // with the bytes. NotFound if no such serializer; AlreadyExists if T is
  // already bound; InvalidArgument for kProtobufSerializerId (protobuf
  // messages need no Bind, and their manifest must be their full name).
  template <typename T>
  [[nodiscard]] absl::Status Bind(int32_t serializer_id, std::string manifest) {
    return BindType(typeid(T), serializer_id, std::move(manifest));
  }

  // Serializes T with the given functions under kCodecSerializerId; the
  // manifest (non-empty, unique in this registry) names the type in the
  // store, so keep it stable when the C++ type is renamed. `older` lists
  // the manifests T was stored under before (schema evolution, see
  // docs/SCHEMA_EVOLUTION.md): events and snapshots stored under one of
  // them are read with its decoder, into a T; new ones are written under
  // `manifest`. InvalidArgument for an empty manifest or a missing
  // function; AlreadyExists if T is bound, or any of the manifests is
  // taken by a Register of this registry (then nothing is registered). The
  // functions must be safe to call from any thread and must not throw; a non-OK
  // result is a rejection (encode) or a failed read (decode).
  template <typename T>
  [[nodiscard]] absl::Status Register(
      std::string manifest, Encoder<T> encode, Decoder<T> decode,
      std::vector<OlderManifest<T>> older = {}) {
    if (!encode || !decode) {
      return absl::InvalidArgumentError(
          "Register needs both an encode and a decode function");
    }
    std::vector<std::pair<std::string, ErasedDecoder>> older_decoders;
    older_decoders.reserve(older.size());
    for (OlderManifest<T>& o : older) {
      if (!o.decode) {
        return absl::InvalidArgumentError("Register: older manifest '" +
                                          o.manifest + "' has no decoder");
      }
      older_decoders.emplace_back(std::move(o.manifest),
                                  Erase<T>(std::move(o.decode)));
    }
    return RegisterCodec(
        typeid(T), std::move(manifest),
        [encode = std::move(encode)](const Payload& payload)
            -> absl::StatusOr<std::string> { return encode(*payload.As<T>()); },
        Erase<T>(std::move(decode)), std::move(older_decoders));
  }

  // The type registered (or bound) under `manifest`, its current one, e.g.
  // to bind an event adapter named in config. NotFound if no type has it;
  // InvalidArgument if several types were bound with it (Bind does not
  // require distinct manifests). Protobuf messages serialized with no
  // registration are not known here (NotFound for their full names).
  [[nodiscard]] absl::StatusOr<std::type_index> TypeWithManifest(
      std::string_view manifest) const;

  // InvalidArgument (which a journal turns into a rejection) for an empty
  // payload, a type nobody bound that is not a protobuf message (the text
  // names the type and how to bind it), or a protobuf message missing
  // required fields or over 2 GiB; otherwise what the serializer returns.
  // Whether an unbound type is a protobuf message is found out once per
  // type (Payload::ThrowPointer) and remembered.
  [[nodiscard]] absl::StatusOr<SerializedPayload> Serialize(
      const Payload& payload) const;

  // NotFound for an unknown serializer id (or, for kCodecSerializerId, an
  // unknown manifest; for kProtobufSerializerId, a message type not linked
  // into this program); otherwise what the serializer returns (DataLoss
  // for bytes that do not parse as the protobuf message named).
  [[nodiscard]] absl::StatusOr<Payload> Deserialize(
      int32_t serializer_id, std::string_view manifest,
      std::string_view bytes) const;

 private:
  struct Binding {
    const Serializer* serializer;
    std::string manifest;
  };
  using ErasedEncoder =
      std::function<absl::StatusOr<std::string>(const Payload&)>;
  using ErasedDecoder =
      std::function<absl::StatusOr<Payload>(std::string_view)>;

  absl::Status BindType(std::type_index type, int32_t serializer_id,
                        std::string manifest);
  absl::Status RegisterCodec(
      std::type_index type, std::string manifest, ErasedEncoder encode,
      ErasedDecoder decode,
      std::vector<std::pair<std::string, ErasedDecoder>> older);

  template <typename T>
  static ErasedDecoder Erase(Decoder<T> decode) {
    return [decode = std::move(decode)](
               std::string_view bytes) -> absl::StatusOr<Payload> {
      absl::StatusOr<T> value = decode(Bytes(bytes));
      if (!value.ok()) return value.status();
      return Payload::Of<T>(*std::move(value));
    };
  }

  absl::flat_hash_map<int32_t, std::shared_ptr<const Serializer>> serializers_;
  absl::flat_hash_map<std::type_index, Binding> bindings_;
  // Also in serializers_; kept typed so Register can add to it.
  std::shared_ptr<internal::CodecSerializer> codecs_;
  // Also in serializers_; kept typed for Serialize's fallback. It keeps,
  // behind its own lock, which types are messages.
  std::shared_ptr<const internal::ProtobufSerializer> protobuf_;
};

}  // namespace cairn::serialization

#endif  // CAIRN_SERIALIZATION_SERIALIZATION_H_
