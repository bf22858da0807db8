#ifndef CAIRN_REMOTE_MODULE_SERIALIZER_H_
#define CAIRN_REMOTE_MODULE_SERIALIZER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>

#include "absl/status/statusor.h"
#include "actor/any_message.h"

// How a module built on remoting (sharding, the cluster) sends its own
// messages (Akka's serializers that a module binds in its reference.conf,
// as ClusterShardingMessageSerializer): the transport writes them with the
// module's serializer, which needs no registration by the application, and
// the messages they carry (a ShardingEnvelope's payload) as it writes any
// message, the application's with its registry.
//
//   [[maybe_unused]] const bool kRegistered =
//       remote::ModuleSerializers::Add(std::make_shared<MySerializer>());
//
// in a static initializer of an `alwayslink` library, as transports and
// persistence plugins register.

namespace cairn::remote {

// A nested message in the three parts the transport writes any message
// as: its serializer, manifest and bytes. A module that keeps the three in
// fields of its own message (WriteParts, ReadParts) has the nested message
// encoded once; Write's bytes are the three encoded again, as a payload.
struct NestedParts {
  int32_t serializer_id = 0;  // 0: the empty message
  std::string manifest;
  std::string bytes;
};

// The messages inside a module's message, written and read as the
// transport writes and reads any message (the runtime's, a module's, the
// application's), with refs as SerializedActorPath writes them. Given to
// a ModuleSerializer for the length of one call.
class NestedMessages {
 public:
  virtual ~NestedMessages() = default;
  // An empty message writes as empty bytes. InvalidArgument naming the
  // type when nothing serializes it.
  virtual absl::StatusOr<std::string> Write(
      const actor::AnyMessage& message) const = 0;
  // Empty bytes read as an empty message. InvalidArgument for bytes that
  // do not read (also for messages nested too deep: hostile bytes must
  // not exhaust the stack), NotFound for an unknown serializer or
  // manifest.
  virtual absl::StatusOr<actor::AnyMessage> Read(
      std::string_view bytes) const = 0;
  // The same in parts: an empty message is serializer 0 (and reads back
  // empty); the errors are Write's and Read's. ReadParts reads `manifest`
  // and `bytes` during the call only.
  virtual absl::StatusOr<NestedParts> WriteParts(
      const actor::AnyMessage& message) const = 0;
  virtual absl::StatusOr<actor::AnyMessage> ReadParts(
      int32_t serializer_id, std::string_view manifest,
      std::string_view bytes) const = 0;
};

// Writes and reads some types of messages. Thread safety: every method
// const, called from any thread at once; none may throw.
class ModuleSerializer {
 public:
  virtual ~ModuleSerializer() = default;
  // Its identifier, in cairn's reserved range above the built-in ones
  // (5 to 40: serialization/serializer.h), unique among modules, never changed
  // (the other side reads with it).
  virtual int32_t Identifier() const = 0;
  // The manifest `type` is written under, or nullopt if this serializer
  // does not write it.
  virtual std::optional<std::string> ManifestOf(
      const std::type_info& type) const = 0;
  // `message` is of a type ManifestOf names. InvalidArgument when it
  // cannot be written (a nested message nothing serializes).
  virtual absl::StatusOr<std::string> Write(
      const actor::AnyMessage& message, const NestedMessages& nested) const = 0;
  // NotFound for a manifest it does not know; InvalidArgument for bytes
  // that do not read. Never an empty message.
  virtual absl::StatusOr<actor::AnyMessage> Read(
      std::string_view manifest, std::string_view bytes,
      const NestedMessages& nested) const = 0;
};

// The module serializers linked into this program. Add from static
// initializers only (before main); the Find functions from any thread
// after.
class ModuleSerializers {
 public:
  // True once added. False, with a line on stderr, for a null serializer
  // or an identifier outside 5 to 40 or taken (two modules
  // would read each other's bytes): that serializer is not used.
  static bool Add(std::shared_ptr<const ModuleSerializer> serializer);
  // The serializer that writes `type`, with its manifest; nullptr if none.
  static const ModuleSerializer* ForType(const std::type_info& type,
                                         std::string* manifest);
  // The serializer with `identifier`; nullptr if none.
  static const ModuleSerializer* ById(int32_t identifier);
};

}  // namespace cairn::remote

#endif  // CAIRN_REMOTE_MODULE_SERIALIZER_H_
