#ifndef CAIRN_REMOTE_ACTOR_REF_JSON_H_
#define CAIRN_REMOTE_ACTOR_REF_JSON_H_

// An ActorRef field in a JSON message (serialization/json_serialization.h)
// crosses processes as its path (remote/actor_ref_serialization.h):
//
//   struct Greet { std::string text; actor::ActorRef reply_to; };
//   NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Greet, text, reply_to)
//
// Reading one outside a transport's reading is a decode error. A
// TypedRef<M> (a ReplyTo<R>) crosses the same way.

#include <string>
#include <utility>

#include "actor/actor_ref.h"
#include "actor/typed_ref.h"
#include "nlohmann/json.hpp"
#include "remote/actor_ref_serialization.h"

namespace nlohmann {

template <>
struct adl_serializer<cairn::actor::ActorRef> {
  static void to_json(json& j, const cairn::actor::ActorRef& ref) {
    j = cairn::remote::SerializedActorPath(ref);
  }
  static void from_json(const json& j, cairn::actor::ActorRef& ref) {
    absl::StatusOr<cairn::actor::ActorRef> resolved =
        cairn::remote::ResolveSerializedActorPath(j.get<std::string>());
    if (!resolved.ok()) {
      throw json::other_error::create(
          501, std::string(resolved.status().message()), &j);
    }
    ref = *std::move(resolved);
  }
};

template <typename M>
struct adl_serializer<cairn::actor::TypedRef<M>> {
  static void to_json(json& j, const cairn::actor::TypedRef<M>& ref) {
    adl_serializer<cairn::actor::ActorRef>::to_json(j, ref.ref());
  }
  static void from_json(const json& j, cairn::actor::TypedRef<M>& ref) {
    cairn::actor::ActorRef untyped;
    adl_serializer<cairn::actor::ActorRef>::from_json(j, untyped);
    ref = cairn::actor::TypedRef<M>(std::move(untyped));
  }
};

}  // namespace nlohmann

#endif  // CAIRN_REMOTE_ACTOR_REF_JSON_H_
