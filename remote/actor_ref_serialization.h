#ifndef CAIRN_REMOTE_ACTOR_REF_SERIALIZATION_H_
#define CAIRN_REMOTE_ACTOR_REF_SERIALIZATION_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"

// Refs inside messages that cross processes (Akka's
// Serialization.serializedActorPath and resolveActorRef): a serializer
// writes a ref as SerializedActorPath and reads it back with
// ResolveSerializedActorPath. For JSON messages, include
// remote/actor_ref_json.h and an ActorRef field needs nothing more.
//
// Thread safety: any thread. The transport says which system a message is
// being written or read for (per thread, for the length of the call).

namespace cairn::remote {

// The ref's path with its uid, as other systems reach it ("" for
// NoSender). While a transport writes a message, a ref that is not an
// actor (an Ask's temporary one) is made reachable as well.
std::string SerializedActorPath(const actor::ActorRef& ref);

// The ref a SerializedActorPath names, in the system the transport is
// reading a message for; "" gives NoSender. FailedPrecondition outside a
// transport's reading; InvalidArgument for text that is not a path.
absl::StatusOr<actor::ActorRef> ResolveSerializedActorPath(
    std::string_view text);

namespace internal {

// For the transport: the system the calling thread writes or reads
// messages for, until destroyed (nests).
class SerializationScope {
 public:
  explicit SerializationScope(actor::ActorSystem* system);
  ~SerializationScope();
  SerializationScope(const SerializationScope&) = delete;
  SerializationScope& operator=(const SerializationScope&) = delete;

 private:
  actor::ActorSystem* const outer_;
};

}  // namespace internal
}  // namespace cairn::remote

#endif  // CAIRN_REMOTE_ACTOR_REF_SERIALIZATION_H_
