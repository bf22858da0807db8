#include "remote/actor_ref_serialization.h"

#include "actor/actor_path.h"

namespace cairn::remote {
namespace {

thread_local actor::ActorSystem* current_system = nullptr;

}  // namespace

std::string SerializedActorPath(const actor::ActorRef& ref) {
  if (ref.IsNobody()) return "";
  if (current_system != nullptr) {
    return current_system->ExposedPath(ref).ToStringWithUid();
  }
  return ref.Path().ToStringWithUid();
}

absl::StatusOr<actor::ActorRef> ResolveSerializedActorPath(
    std::string_view text) {
  if (text.empty()) return actor::ActorRef::NoSender();
  if (current_system == nullptr) {
    return absl::FailedPreconditionError(
        "ResolveSerializedActorPath: only while a transport reads a message "
        "(no actor system to resolve in)");
  }
  absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(text);
  if (!path.ok()) return path.status();
  return current_system->ResolveActorRef(*path);
}

namespace internal {

SerializationScope::SerializationScope(actor::ActorSystem* system)
    : outer_(current_system) {
  current_system = system;
}

SerializationScope::~SerializationScope() { current_system = outer_; }

}  // namespace internal
}  // namespace cairn::remote
