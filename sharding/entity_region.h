#ifndef CAIRN_SHARDING_ENTITY_REGION_H_
#define CAIRN_SHARDING_ENTITY_REGION_H_

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/address.h"
#include "actor/any_message.h"
#include "actor/props.h"
#include "hocon/config.h"
#include "persistence/storage/lease_store.h"
#include "sharding/message_extractor.h"

namespace cairn::sharding {

// Sent by an entity to its parent (Context().Parent()) to be stopped
// (Akka's Shard.Passivate): the shard sends `stop_message` to the entity,
// holds the messages that arrive for it meanwhile, and when the entity has
// stopped, starts it again with them if any came, in order.
struct Passivate {
  actor::AnyMessage stop_message;
};

// Starts an entity without a message for it (Akka's
// ShardRegion.StartEntity): sent to a region, it starts `entity_id` in its
// shard if it is not active (an entity being passivated starts again once
// it has stopped), and the shard answers StartEntityAck to the sender once
// the entity runs (with remember entities, once its id is written). An
// active entity is only acknowledged. Like any message, it waits while the
// shard's lease or remembered ids load, and gets ShardUnavailable when the
// lease is held elsewhere.
struct StartEntity {
  std::string entity_id;
};
struct StartEntityAck {
  std::string entity_id;
  std::string shard_id;
};

// Stops a region gracefully (Akka's ShardRegion.GracefulShutdown): every
// entity gets the region's stop message, the messages held for entities
// being passivated and those that arrive from now on go to dead letters
// (with a log line), and the region stops once every entity and shard
// has. EntityRegion::Start registers this with coordinated shutdown, in
// its cluster-sharding-shutdown-region phase.
struct GracefulShutdown {};

// Ask a region: CurrentShardRegionState, the entities of each of its
// shards (Akka's GetShardRegionState).
struct GetShardRegionState {};
struct CurrentShardRegionState {
  std::map<std::string, std::set<std::string>> shards;  // id -> entities
};
// Ask a region in a cluster: CurrentRegions, the members whose regions of
// its type take shards, as this region knows them (Akka's
// GetCurrentRegions): where free shards may be placed. Outside a cluster,
// and from a proxy before it has heard of any, possibly empty.
struct GetCurrentRegions {};
struct CurrentRegions {
  std::vector<actor::Address> regions;
};
// Ask a region: ShardRegionStats, how many entities each shard has.
struct GetShardRegionStats {};
struct ShardRegionStats {
  std::map<std::string, std::size_t> stats;  // shard id -> entities
};

// The answer to a message for an entity whose shard cannot host it now:
// its lease (EntityRegionSettings::lease_store) is held by another owner,
// or the lease store failed. Sent to the message's sender (a message
// without one is dropped with a log line); the message is not delivered.
// The shard tries the lease again after lease_retry_interval.
struct ShardUnavailable {
  std::string type_name;
  std::string shard_id;
  std::string reason;  // the lease store's answer
};

// How a region hosts its entities (Akka's ClusterShardingSettings, the
// parts that apply in one process; FromConfig reads akka.cluster.sharding,
// whose defaults are in sharding/reference.conf).
struct EntityRegionSettings {
  // Entities are spread over this many shards (actors); Akka's default.
  int number_of_shards = 100;
  // An entity that got no message for this long is passivated (its stop
  // message, then stopped); zero: never.
  absl::Duration passivate_idle_entity_after = absl::Minutes(2);
  // At most this many active entities in the region (Akka typed's default
  // passivation strategy, whose default limit this is); beyond, the least
  // recently used is passivated. The region divides the limit among its
  // active shards (those started), each keeping its part (a part of 0: an
  // entity started there handles its messages, then is passivated), and
  // divides it again whenever a shard starts or stops. Zero: no limit.
  std::size_t active_entity_limit = 100000;
  // What an entity is sent when it is passivated by the idle timeout or
  // the limit. Default (empty): PoisonPill.
  actor::AnyMessage stop_message;
  // Messages held in a shard for entities being passivated or starting, at
  // most; more go to dead letters with a log line.
  std::size_t buffer_size = 100000;

  // Remember entities (Akka's remember-entities with the event-sourced
  // store): each shard keeps the ids of its started entities in a
  // persistent actor of its own (persistence id
  // "/sharding/<type>Shard/<shard>"), and the region the ids of its shards
  // ("/sharding/<type>Coordinator"; with a lease store, per owner:
  // "/sharding/<type>Coordinator/<lease_owner>", and lease_owner must be
  // set); when the region starts, every shard
  // and entity it remembers is started again. An entity is forgotten when
  // it is passivated; one that stops by itself is started again after
  // `entity_restart_backoff`. As in Akka, idle passivation and the active
  // limit are off while this is on (the entities would come back at the
  // next start anyway).
  bool remember_entities = false;
  // The plugins of those stores; empty: the default ones.
  std::string journal_plugin_id;
  std::string snapshot_plugin_id;
  absl::Duration entity_restart_backoff = absl::Seconds(10);
  // The stores snapshot their set every this many writes and keep this
  // many snapshots (the events before them are deleted).
  int snapshot_after = 1000;
  int keep_nr_of_batches = 2;
  // Started and stopped ids written in one event at most.
  std::size_t max_updates_per_write = 100;

  // Leases (Akka's use-lease; docs/SHARDING.md "Leases"): with a store,
  // each shard holds the lease "<type name>-<shard id>" while it hosts
  // entities, renews it every lease_ttl / 3, and its entities' writes,
  // deletes and snapshot operations carry its fence
  // (persistence/persistence.h, SetWriteFence), so that across
  // processes sharing the store one shard at a time hosts them. Null: no
  // leases.
  std::shared_ptr<persistence::LeaseStore> lease_store;
  // How long a holding lasts without renewal: after a crash, how long the
  // shard's entities are unavailable elsewhere at most.
  absl::Duration lease_ttl = absl::Seconds(10);
  // Who holds the leases; empty: an id unique to the region instance
  // (hostname-pid-random).
  std::string lease_owner;
  // A shard whose lease is held elsewhere tries again after this.
  absl::Duration lease_retry_interval = absl::Seconds(1);

  // In a cluster: only members with this role host the region's shards
  // (Akka's akka.cluster.sharding.role); empty: every member does.
  std::string role;
  // In a cluster, every this often a region hands off the shards it holds
  // whose rendezvous home is now another member (one that joined), when
  // there are at least `rebalance_threshold` of them, at most
  // `max_simultaneous_rebalance` at a time. Zero interval: never.
  absl::Duration rebalance_interval = absl::Seconds(10);
  int rebalance_threshold = 1;
  int max_simultaneous_rebalance = 3;
  // A shard handed off whose entities have not all stopped after this is
  // stopped at once (Akka's handoff-timeout): an entity that ignores the
  // stop message does not keep the shard's messages waiting.
  absl::Duration handoff_timeout = absl::Seconds(60);

  // akka.cluster.sharding.{number-of-shards, passivate-idle-entity-after
  // (or "off"), passivation.strategy (default-strategy, or none: no
  // automatic passivation, idle timeout and limit both off),
  // passivation.active-entity-limit (or "off"), buffer-size,
  // remember-entities, remember-entities-store (eventsourced only: ddata
  // needs a cluster), journal-plugin-id, snapshot-plugin-id,
  // entity-restart-backoff, snapshot-after, keep-nr-of-batches,
  // event-sourced-remember-entities-store.max-updates-per-write,
  // lease-ttl, lease-owner, lease-retry-interval, role,
  // rebalance-interval, least-shard-allocation-strategy.{rebalance-threshold,
  // max-simultaneous-rebalance}, handoff-timeout} (the store comes from
  // code).
  // InvalidArgument naming a key out of range.
  static absl::StatusOr<EntityRegionSettings> FromConfig(
      const hocon::Config& config);
};

// Hosts one entity per id, in one process (Akka's ClusterSharding.Start
// and its ShardRegion): messages sent to the region go, by the extractor,
// to the entity of their id, which is created on its first message from
// `entity_props(id)` as a child of its shard, and passivated (stopped)
// when it asks to be, when idle, or when the region has more active
// entities than its limit. Messages keep their sender; the messages of one
// sender to one entity arrive in the order sent, also across a
// passivation (they are held while the entity stops and delivered to the
// next incarnation).
//
// clang-format off
//   absl::StatusOr<EntityRegionSettings> settings =
//       EntityRegionSettings::FromConfig(system.Settings());  // akka.cluster.sharding
//   if (!settings.ok()) return settings.status();
//   actor::ActorRef accounts = EntityRegion::Start(
//       system, "account",
//       [](const std::string& id) { return actor::Props::Create<Account>(id); },
//       *std::move(settings), std::make_shared<EnvelopeExtractor>());
//   accounts.Tell(ShardingEnvelope{"42", actor::AnyMessage::Of(Deposit{100})});
// clang-format on
//
// Shards supervise their entities with the default strategy (restart on
// an exception); an entity that stops by itself is started again by its
// next message.
//
// In a cluster (akka.actor.provider = cluster; docs/SHARDING.md, "Across
// processes"), start the region under the same type name in every member
// that hosts it (with `role`, if set), each with a lease store on the
// database they share: a shard lives in the member that holds its lease,
// and a region sends the messages for a shard it does not hold to that
// member's region (the holder read from the lease store, then cached). A
// shard nobody holds goes where rendezvous hashing over the live members
// with the role puts it, so every member agrees with no coordinator. The
// messages of one sender to one entity keep their order while the shard
// stays where it is; when it moves, ordering is best effort, as in Akka.
// Processes that only send start a proxy (StartProxy). The messages for
// entities cross processes, so the application's serialization must write
// them (remote/remote_setup.h); sharding's own (ShardingEnvelope,
// StartEntity, ...) need nothing.
class EntityRegion {
 public:
  using EntityProps = std::function<actor::Props(const std::string& id)>;

  // The region's Props (its actor is the region). Throws
  // std::invalid_argument for settings out of range.
  static actor::Props Props(std::string type_name, EntityProps entity_props,
                            EntityRegionSettings settings,
                            std::shared_ptr<const MessageExtractor> extractor);

  // Starts the region as /user/<type_name> (Akka's ClusterSharding.Start;
  // in a cluster, where the other members' regions find it) and adds its
  // graceful stop to coordinated shutdown
  // (cluster-sharding-shutdown-region). Throws as ActorOf for a name in
  // use (a stopped region's name is free once its Terminated has come),
  // and std::invalid_argument for settings the system cannot run: in a
  // cluster, no lease store or a lease owner of its own (the member holds
  // the leases); outside one, remember entities with leases and no named
  // owner.
  static actor::ActorRef Start(
      actor::ActorSystem& system, const std::string& type_name,
      EntityProps entity_props, EntityRegionSettings settings,
      std::shared_ptr<const MessageExtractor> extractor);

  // Starts a region that hosts nothing and sends every message to the
  // region of its shard's home (Akka's ClusterSharding.StartProxy), as
  // /user/<type_name> (a process runs a region or a proxy of a type, not
  // both), stopped by coordinated shutdown as Start's. Shards are placed
  // only on members whose regions take shards, never on a proxy's.
  // `settings` must give the regions' number_of_shards and role; of the
  // rest it uses buffer_size, and a lease store if given (to read where a
  // shard lives; without one it sends a shard's first messages to where
  // rendezvous hashing places it, and that region tells it the home).
  // Throws std::invalid_argument outside a cluster.
  static actor::ActorRef StartProxy(
      actor::ActorSystem& system, const std::string& type_name,
      EntityRegionSettings settings,
      std::shared_ptr<const MessageExtractor> extractor);
};

}  // namespace cairn::sharding

#endif  // CAIRN_SHARDING_ENTITY_REGION_H_
