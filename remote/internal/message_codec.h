#ifndef CAIRN_REMOTE_INTERNAL_MESSAGE_CODEC_H_
#define CAIRN_REMOTE_INTERNAL_MESSAGE_CODEC_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/any_message.h"
#include "remote/internal/wire.pb.h"
#include "remote/module_serializer.h"
#include "serialization/serialization.h"

namespace cairn::remote::internal {

// The runtime's own messages that cross (Identify, ActorIdentity,
// PoisonPill, Kill, StatusFailure), as Akka's MiscMessageSerializer; in
// cairn's reserved range (serialization/serializer.h).
inline constexpr int32_t kRuntimeMessagesSerializerId = 4;

// Messages to wire payloads and back, for one system: the runtime's own
// messages here (they hold refs, which only the system can write and
// read), modules' with their ModuleSerializer (remote/module_serializer.h),
// everything else with the application's registry.
//
// Thread safety: const methods from any thread, while the system lives
// (the transport's Shutdown ends its use).
class MessageCodec {
 public:
  // `registry` may be null: strings and protobuf messages only.
  MessageCodec(
      actor::ActorSystem* system,
      std::shared_ptr<const serialization::SerializationRegistry> registry);

  // InvalidArgument naming the type when nothing serializes it.
  absl::Status Encode(const actor::AnyMessage& message,
                      wire::Payload* out) const;
  // An empty payload (serializer id 0) is an empty message. NotFound for
  // an unknown serializer or manifest; InvalidArgument for bytes that do
  // not read.
  absl::StatusOr<actor::AnyMessage> Decode(const wire::Payload& payload) const;
  // Encode, in parts (NestedParts): what a payload holds.
  absl::Status EncodeParts(const actor::AnyMessage& message,
                           NestedParts* out) const;

  // A ref as text, with its uid ("" for NoSender), and back; a path that
  // does not parse is InvalidArgument.
  std::string RefToText(const actor::ActorRef& ref) const;
  absl::StatusOr<actor::ActorRef> TextToRef(std::string_view text) const;

 private:
  class Nested;

  // Returns false when `message` is not one of the runtime's.
  bool EncodeRuntime(const actor::AnyMessage& message, NestedParts* out,
                     absl::Status* status) const;
  // `depth`: how many runtime messages enclose this one (an Identify's id
  // may be an Identify); bounded, so hostile bytes cannot nest deep
  // enough to exhaust the stack.
  absl::StatusOr<actor::AnyMessage> DecodeAt(const wire::Payload& payload,
                                             int depth) const;
  absl::StatusOr<actor::AnyMessage> DecodeAt(int32_t serializer_id,
                                             std::string_view manifest,
                                             std::string_view bytes,
                                             int depth) const;
  absl::StatusOr<actor::AnyMessage> DecodeRuntime(std::string_view manifest,
                                                  std::string_view bytes,
                                                  int depth) const;

  actor::ActorSystem* const system_;
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
};

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_MESSAGE_CODEC_H_
