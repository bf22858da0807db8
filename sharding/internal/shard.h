#ifndef CAIRN_SHARDING_INTERNAL_SHARD_H_
#define CAIRN_SHARDING_INTERNAL_SHARD_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/scheduler.h"
#include "base/task_runner.h"
#include "persistence/storage/lease_store.h"
#include "sharding/entity_region.h"
#include "sharding/internal/remembered_ids.h"

namespace cairn::sharding::internal {

// Region -> shard: a message for one entity (already through the
// extractor), with the original sender; or, with `start`, a StartEntity
// (no message: the sender gets a StartEntityAck once the entity runs).
struct ShardDelivery {
  std::string entity_id;
  actor::AnyMessage message;
  bool start = false;
  // In a cluster, how it came (RoutedDelivery's), kept should the shard
  // give it back (ShardDeclined) to be routed on.
  int hops = 0;
  actor::ActorRef origin;
};
// Region -> shard: its part of the region's active-entity limit, sent when
// the shard starts (before its first delivery) and again whenever the
// number of active shards changes. A shard that got none has no limit.
struct ActiveLimit {
  std::size_t entities = 0;
};
// Region -> shard: stop every entity, then stop (the region's
// GracefulShutdown).
struct HandOff {};
// Shard -> region, in a cluster: the shard's lease is held by another
// owner, so it hosts nothing; these deliveries (with their senders, in
// the order they came) go back to the region to be routed to the holder.
// The shard stays, idle, returning whatever else it is given the same way,
// until the region tells it Rehost.
struct ShardDeclined {
  std::string shard_id;
  std::vector<std::pair<ShardDelivery, actor::ActorRef>> deliveries;
  bool drained = false;  // the answer to DrainDeclined
  // Who holds the lease, as read when it was refused ("" if unknown).
  std::string holder;
};
// Region -> a shard that declined, once, after the region stopped sending
// to it: answered with an empty ShardDeclined marked `drained`, after
// which the shard's mailbox holds nothing the region routed to it, so the
// region routes the returned messages on in the order they came.
struct DrainDeclined {};
// Region -> a shard that declined: try the lease again (the region chose
// this shard's home here once more).
struct Rehost {};
// Region -> shard -> region: the shard's entities, for GetShardRegionState
// and GetShardRegionStats.
struct GetShardState {
  uint64_t request = 0;
};
struct ShardState {
  uint64_t request = 0;
  std::string shard_id;
  std::set<std::string> entity_ids;
};

// One shard of a region: the parent of its entities. Creates an entity on
// its first message, holds the messages of an entity being passivated and
// gives them to its next incarnation, passivates idle entities and, beyond
// its part of the active-entity limit, the least recently used.
//
// With remember entities, a RememberedIds child keeps the ids of the
// started entities: the shard starts them all once it has loaded them
// (holding what comes meanwhile), starts a new entity only once its id is
// written (holding its messages), forgets an entity passivated with
// nothing held for it, and starts one that stopped by itself again after
// the restart backoff (or at its next message). Ids written and forgotten
// meanwhile wait in `pending_`, one write in flight at a time.
//
// With a lease store (docs/SHARDING.md "Leases"), the shard hosts entities
// only while it holds its lease: it acquires it first (the blocking call on
// the region's lease thread, the outcome sent back as a message), holding
// what comes meanwhile; once held, it makes its fence the write fence of
// its subtree (Persistence::SetWriteFence) and starts hosting (the
// remember-entities store included, whose writes carry the fence too); it
// renews every lease_ttl / 3. While the lease is held elsewhere it answers
// ShardUnavailable and tries again after lease_retry_interval. A failed
// renewal loses the lease: the fence is cleared, every entity stopped at
// once (what was held for them is kept), and once they have all stopped it
// acquires again. The hand-off releases the lease after the entities have
// stopped. In a cluster (`decline_held_elsewhere`), a lease held by
// another owner is not waited for: the shard gives its messages back to
// the region (ShardDeclined), which routes them to the holder; and a
// hand-off gives back what the shard holds, and what it is given after,
// for the next home.
//
// Every entity the shard knows is in `entities_`; those with an actor that
// is not passivating are also in the least-recently-used order.
class Shard final : public actor::Actor {
 public:
  // `lease_runner` runs the lease store's blocking calls; null without a
  // lease store. `lease_owner` is the region's.
  Shard(const std::string& type_name, std::string shard_id,
        EntityRegion::EntityProps entity_props, EntityRegionSettings settings,
        std::shared_ptr<base::TaskRunner> lease_runner, std::string lease_owner,
        bool decline_held_elsewhere = false);
  void PreStart() override;
  void PostStop() override;

 private:
  struct IdleCheck {};
  // To itself: start a remembered entity that stopped by itself.
  struct RestartEntity {
    std::string id;
  };
  // To itself: a new remember-entities store after one failed.
  struct RestartStore {};
  // Lease calls' outcomes, from the lease thread; `attempt` tells a
  // current one from a stale one. Status as code and text: an absl::Status
  // shared across threads is invisible to TSan.
  struct LeaseOutcome {
    enum class Call { kAcquire, kRenew, kRelease } call;
    uint64_t attempt = 0;
    absl::StatusCode code = absl::StatusCode::kOk;
    std::string message;
    persistence::WriteFence fence;  // kAcquire's, when OK
    // In a cluster, a kAcquire refused because another owner holds the
    // lease: that owner, read right after ("" if the read failed).
    std::string holder;
  };
  struct RenewLease {};
  struct RetryLease {};
  enum class LeaseTimer { kRenew, kRetry };
  // The store's restart timer. Entities' restart timers are keyed by their
  // ids (strings), so the store's has a key of another type: no entity id
  // can match it.
  enum class StoreTimer { kRestart };
  enum class LeaseState {
    kNone,       // no lease store: hosting always
    kAcquiring,  // an Acquire in flight; messages wait
    kHeld,       // hosting
    kElsewhere,  // held by another (or failed): ShardUnavailable, retry
    kDeclined,   // held by another, in a cluster: messages to the region
    kLosing,     // lost: waiting for the entities to stop; messages wait
    kReleasing,  // handed off: a Release in flight, then the shard stops
  };
  // A vector, not a deque: most entities hold nothing, and an empty
  // std::deque allocates 576 bytes.
  using Held = std::vector<std::pair<actor::AnyMessage, actor::ActorRef>>;
  struct Entity {
    actor::ActorRef ref;       // nobody while storing or waiting_restart
    bool passivating = false;  // stop message sent, not yet terminated
    bool storing = false;      // its id is being remembered
    bool waiting_restart = false;
    bool handed_off = false;  // stopped by the hand-off: still remembered
    // Messages (with their senders) that came while it stopped or started.
    Held held;
    // Who sent a StartEntity meanwhile: acknowledged once it runs.
    std::vector<actor::ActorRef> start_acks;
    absl::Time last_message;
    // Its neighbours in the least-recently-used order while it is active
    // (an intrusive list: no allocation per entity).
    Entity* newer = nullptr;
    Entity* older = nullptr;
  };

  void Deliver(const ShardDelivery& delivery, const actor::ActorRef& sender);
  // False (the message to dead letters, with a log line) when the buffer
  // is full.
  bool Hold(const std::string& id, Held& held, const actor::AnyMessage& message,
            const actor::ActorRef& sender);
  // Makes the entity's actor, delivers what was held for it, acknowledges
  // the StartEntity requests that waited, then keeps the limit.
  void Spawn(const std::string& id, Entity& e);
  void StartPassivation(Entity& e, const actor::AnyMessage& stop_message);
  void EntityTerminated(const actor::ActorRef& ref);
  void PassivateIdle();
  void BeginHandOff();
  // On a hand-off: the messages held in `waiting` (which `why`, e.g.
  // "waited for the shard's lease") go to dead letters, with a log line.
  void DropWaiting(
      std::deque<std::pair<ShardDelivery, actor::ActorRef>>& waiting,
      const char* why);
  // Stops the shard once its entities have stopped and its remembered ids
  // are written.
  void StopWhenHandedOff();
  // Sends what is held for an entity to dead letters, with a log line.
  void DropHeld(const std::string& id, Held& held);
  void EnforceLimit();
  // The active entities' least-recently-used order.
  void LruAdd(Entity& e);  // as the most recently used
  void LruRemove(Entity& e);
  void LruTouch(Entity& e);
  // What the shard does once allowed to host (at once without leases).
  void StartHosting();

  // Leases.
  void AcquireLease();
  void LeaseCall(LeaseOutcome::Call call);
  void OnLeaseOutcome(const LeaseOutcome& outcome);
  void OnAcquired(const LeaseOutcome& outcome);
  void LoseLease(const std::string& reason);
  // Answers ShardUnavailable (or logs the drop of a message with no
  // sender).
  void Unavailable(const actor::AnyMessage& message,
                   const actor::ActorRef& sender);
  // Gives `waiting_lease_` back to the region (ShardDeclined).
  void Decline();
  // On a hand-off in a cluster: everything held (waiting for the lease or
  // the remembered ids, or for an entity to stop or start) goes back to
  // the region (ShardDeclined), for the shard's next home.
  void GiveBackHeld();

  // Remember entities.
  void StartStore();
  void Loaded(const std::set<std::string>& ids);
  void Stored(const IdChanges& changes);
  void Remember(const std::string& id, bool started);
  void WriteRemembered();
  void StoreStopped();

  const std::string type_name_;
  const std::string shard_id_;
  const EntityRegion::EntityProps entity_props_;
  const EntityRegionSettings settings_;
  // This shard's part of the active-entity limit (ActiveLimit); none: no
  // limit.
  std::optional<std::size_t> active_limit_;
  const std::string store_id_;  // remember entities' persistence id
  // Node-based: references to an Entity stay valid while others come and
  // go.
  absl::node_hash_map<std::string, Entity> entities_;
  absl::flat_hash_map<actor::ActorRef, std::string> ids_;  // ref -> id
  // The active entities, from the most recently used (newest_) to the
  // least (oldest_): those passivated first.
  Entity* newest_ = nullptr;
  Entity* oldest_ = nullptr;
  std::size_t active_ = 0;
  std::size_t held_ = 0;  // messages held, over all entities and loading_
  actor::Cancellable idle_check_;
  bool handing_off_ = false;

  actor::ActorRef store_;  // RememberedIds; nobody without remember
  int stores_started_ = 0;
  bool store_ready_ = false;  // it has loaded and takes writes
  bool loading_ = false;      // waiting for the first store's IdsLoaded
  // What came while loading, in order.
  std::deque<std::pair<ShardDelivery, actor::ActorRef>> waiting_load_;
  absl::flat_hash_map<std::string, bool> pending_;  // id -> started
  IdChanges in_flight_;  // being written; empty: no write in flight

  // Leases.
  const std::shared_ptr<base::TaskRunner> lease_runner_;
  const std::string lease_name_;  // "<type>-<shard>"
  const std::string lease_owner_;
  const bool decline_held_elsewhere_;
  std::string declined_to_;  // the holder, when it declined
  LeaseState lease_state_ = LeaseState::kNone;
  std::optional<persistence::WriteFence> fence_;  // while held
  uint64_t lease_attempt_ = 0;  // of the Acquire or Renew in flight
  bool renewing_ = false;
  std::string unavailable_reason_;
  // What came while acquiring or losing, in order (counted in held_).
  std::deque<std::pair<ShardDelivery, actor::ActorRef>> waiting_lease_;
  // Actors stopped by a lost lease, not yet terminated.
  std::set<actor::ActorRef> stopping_;
};

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_SHARD_H_
