#ifndef CAIRN_SHARDING_ENTITY_REF_H_
#define CAIRN_SHARDING_ENTITY_REF_H_

#include <concepts>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/any_message.h"
#include "actor/ask.h"
#include "actor/future.h"
#include "actor/typed_ref.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

namespace cairn::sharding {

// The name of a kind of entity and the commands it takes (Akka typed's
// EntityTypeKey[M]): Command is one type or a std::variant of them.
template <typename Command>
struct EntityTypeKey {
  std::string name;
};

// A reference to one entity of a region, by its id, that takes only the
// entity's commands (Akka typed's EntityRef[M]): each goes to the region
// in a ShardingEnvelope, as the type it is (a variant as its alternative,
// as TypedRef sends it), and the region starts the entity if it is not
// running, in this process or in the member that holds its shard.
//
// Cheap to copy; thread safety: every method from any thread.
template <typename Command>
class EntityRef {
 public:
  EntityRef(actor::ActorRef region, std::string entity_id)
      : region_(std::move(region)), entity_id_(std::move(entity_id)) {}

  // Sends `command` with the calling actor as its sender (outside an
  // actor: NoSender).
  template <typename T>
  requires actor::AcceptedBy<T, Command>
  void Tell(T&& command) const {
    actor::SendAs<Command>(std::forward<T>(command), [this](auto&& c) {
      region_.Tell(Envelope(std::forward<decltype(c)>(c)));
    });
  }
  template <typename T>
  requires actor::AcceptedBy<T, Command>
  void Tell(T&& command, const actor::ActorRef& sender) const {
    actor::SendAs<Command>(std::forward<T>(command), [&](auto&& c) {
      region_.Tell(Envelope(std::forward<decltype(c)>(c)), sender);
    });
  }

  const std::string& entity_id() const { return entity_id_; }
  const actor::ActorRef& region() const { return region_; }

 private:
  template <typename C>
  ShardingEnvelope Envelope(C&& command) const {
    return ShardingEnvelope{entity_id_,
                            actor::AnyMessage::Of(std::forward<C>(command))};
  }

  actor::ActorRef region_;
  std::string entity_id_;
};

// Asks an entity (Akka typed's EntityRef.ask): `make_command(reply_to)`
// builds the command around the ReplyTo<R> of the ask's temporary actor;
// the future gets the reply, or fails as actor::Ask's does.
template <typename R, typename Command, typename F>
requires std::invocable<F&, actor::ReplyTo<R>> &&
    actor::AcceptedBy<std::invoke_result_t<F&, actor::ReplyTo<R>>, Command>
        actor::Future<R> Ask(const EntityRef<Command>& entity, F make_command,
                             absl::Duration timeout) {
  return actor::AskWithReplyTo<R>(
      entity.region(),
      [&](const actor::ActorRef& reply_to) {
        ShardingEnvelope envelope{entity.entity_id(), actor::AnyMessage()};
        actor::SendAs<Command>(
            make_command(actor::ReplyTo<R>(reply_to)), [&](auto&& c) {
              envelope.message =
                  actor::AnyMessage::Of(std::forward<decltype(c)>(c));
            });
        return envelope;
      },
      timeout);
}

// A region started for an EntityTypeKey (Akka typed's ClusterSharding.init
// with an Entity): its references are typed by the key's commands.
//
//   EntityTypeKey<AccountCommand> kAccounts{"account"};
//   TypedRegion<AccountCommand> accounts = TypedRegion<AccountCommand>::Start(
//       system, kAccounts,
//       [](const std::string& id) { return MakeAccount(id).ToProps(); },
//       settings);
//   accounts.EntityRefFor("42").Tell(Deposit{100, reply_to});
//
// Copyable; thread safety: every method from any thread.
template <typename Command>
class TypedRegion {
 public:
  // Starts the region as EntityRegion::Start does (the key's name is its
  // type name), with the ShardingEnvelope extractor; throws as it does.
  static TypedRegion Start(actor::ActorSystem& system,
                           const EntityTypeKey<Command>& key,
                           EntityRegion::EntityProps entity_props,
                           EntityRegionSettings settings) {
    return TypedRegion(EntityRegion::Start(
        system, key.name, std::move(entity_props), std::move(settings),
        std::make_shared<EnvelopeExtractor>()));
  }
  // A region or proxy already started with the ShardingEnvelope extractor
  // for entities that take Command (nothing checks it).
  explicit TypedRegion(actor::ActorRef region) : region_(std::move(region)) {}

  EntityRef<Command> EntityRefFor(std::string entity_id) const {
    return EntityRef<Command>(region_, std::move(entity_id));
  }
  const actor::ActorRef& ref() const { return region_; }

 private:
  actor::ActorRef region_;
};

}  // namespace cairn::sharding

#endif  // CAIRN_SHARDING_ENTITY_REF_H_
