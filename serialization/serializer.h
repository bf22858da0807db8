#ifndef CAIRN_SERIALIZATION_SERIALIZER_H_
#define CAIRN_SERIALIZATION_SERIALIZER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "serialization/payload.h"

namespace cairn::serialization {

// Serializer identifiers 0 to 40 are reserved for cairn (as Akka reserves
// them for itself); user serializers take any other value. The identifier is
// stored with every event and snapshot, so it must never change.
inline constexpr int32_t kMaxReservedSerializerId = 40;
// std::string payloads, stored as their bytes with an empty manifest.
inline constexpr int32_t kStringSerializerId = 1;
// Types registered with SerializationRegistry::Register (encode/decode
// functions, including the FlatBuffers helpers); the manifest names the type.
inline constexpr int32_t kCodecSerializerId = 2;
// Protocol Buffers messages (any type deriving from google::protobuf::Message
// that nothing is bound to), with their descriptor's full name as manifest.
// Akka's protobuf serializer is 2, but cairn's 2 was taken by the codecs
// before, and ids are stored forever.
inline constexpr int32_t kProtobufSerializerId = 3;
// 4: the runtime's own messages across processes (Identify, ActorIdentity,
// PoisonPill, Kill, StatusFailure), written by remote/ itself, not through
// a registry (remote/internal/message_codec.h).
// 5 to 40: the messages of modules built on remoting
// (remote/module_serializer.h); 13: sharding's (as Akka's
// ClusterShardingMessageSerializer).

// Turns payloads into bytes and back. One serializer may serve many types;
// the manifest it is given on the way back is the one its type was bound
// with (SerializationRegistry::Bind).
//
// Thread safety: implementations must be safe to call from any thread
// concurrently (every method is const). They must not throw.
class Serializer {
 public:
  virtual ~Serializer() = default;

  // Stored with the bytes; see the ranges above.
  virtual int32_t identifier() const = 0;

  // `payload` holds a type this serializer was bound to. A non-OK status
  // makes the write that carried the payload a rejection.
  [[nodiscard]] virtual absl::StatusOr<std::string> ToBinary(
      const Payload& payload) const = 0;

  // A non-OK status makes the replay or snapshot load that read the bytes
  // fail.
  [[nodiscard]] virtual absl::StatusOr<Payload> FromBinary(
      std::string_view bytes, std::string_view manifest) const = 0;
};

// A payload in stored form.
struct SerializedPayload {
  int32_t serializer_id = 0;
  std::string manifest;
  std::string bytes;
};

}  // namespace cairn::serialization

#endif  // CAIRN_SERIALIZATION_SERIALIZER_H_
