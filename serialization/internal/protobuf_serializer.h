#ifndef CAIRN_SERIALIZATION_INTERNAL_PROTOBUF_SERIALIZER_H_
#define CAIRN_SERIALIZATION_INTERNAL_PROTOBUF_SERIALIZER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <typeindex>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "google/protobuf/message.h"
#include "serialization/payload.h"
#include "serialization/serializer.h"

namespace cairn::serialization::internal {

// Protocol Buffers messages with no per-type code (kProtobufSerializerId),
// as Akka's built-in protobuf serializer: the manifest is the message's
// descriptor full name ("my.pkg.Event"), the bytes its wire format.
// Decoding makes a message of the generated C++ type linked into this
// program under that name, so the payload's type() is that exact type
// (Payload::As<my::pkg::Event>() works); its ThrowPointer throws a
// `const google::protobuf::Message*`, so a decoded payload matches the
// base by ThrowPointer and its exact type by As.
//
// Thread safety: every method may be called from any thread at once.
class ProtobufSerializer final : public Serializer {
 public:
  // The payload's value as a protobuf message if its type derives from
  // google::protobuf::Message; null otherwise (and for an empty payload).
  // The first call for a type asks Payload::ThrowPointer; the answer, and
  // where the Message base lies in the value, is kept per type.
  const google::protobuf::Message* AsMessage(const Payload& payload) const;

  // The manifest the message is stored under: its descriptor's full name.
  static const std::string& Manifest(const google::protobuf::Message& message);

  // The message's wire format. InvalidArgument, naming the message type,
  // if required fields are missing (proto2) or the encoding would exceed
  // protobuf's 2 GiB limit.
  static absl::StatusOr<std::string> Encode(
      const google::protobuf::Message& message);

  int32_t identifier() const override { return kProtobufSerializerId; }
  // InvalidArgument if the payload is not a protobuf message; otherwise
  // Encode.
  absl::StatusOr<std::string> ToBinary(const Payload& payload) const override;
  // NotFound if no message type named `manifest` is linked into this
  // program; DataLoss (naming the manifest) if the bytes do not parse as
  // it, or lack its required fields.
  absl::StatusOr<Payload> FromBinary(std::string_view bytes,
                                     std::string_view manifest) const override;

 private:
  // Per type seen: the Message base's offset from the start of the value,
  // or nullopt if the type is not a message.
  mutable base::ReaderWriterMutex mu_;
  mutable absl::flat_hash_map<std::type_index, std::optional<std::ptrdiff_t>>
      message_offsets_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::serialization::internal

#endif  // CAIRN_SERIALIZATION_INTERNAL_PROTOBUF_SERIALIZER_H_
