#ifndef CAIRN_SHARDING_INTERNAL_REGION_H_
#define CAIRN_SHARDING_INTERNAL_REGION_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <typeinfo>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "actor/actor.h"
#include "actor/future.h"
#include "cluster/cluster_events.h"
#include "cluster/member.h"
#include "sharding/entity_region.h"
#include "sharding/internal/member_view.h"
#include "sharding/internal/region_route.h"
#include "sharding/internal/remembered_ids.h"
#include "sharding/internal/routing_messages.h"
#include "sharding/internal/shard.h"
#include "sharding/internal/shard_map.h"

namespace cairn::sharding::internal {

// The region's actor: the parent of its shards, each created with its
// first entity. Routes each message by the extractor to its shard, keeping
// the sender; answers the state and stats queries by asking every shard.
//
// With remember entities, a RememberedIds child keeps the ids of the
// shards: the region starts them all once it has loaded them (holding the
// messages that come meanwhile), and starts a new shard only once its id
// is written (holding its messages), so that a shard that remembers an
// entity is itself remembered.
//
// In a cluster (the system's provider is `cluster`; region_routing.cc,
// docs/design/cluster.md), a shard lives where its lease is held: the
// region hosts the shards whose leases it holds and sends the messages
// for the others to their holder's region (RoutedDelivery), found by
// reading the lease's holder and cached; a free shard goes where
// rendezvous hashing over the live members puts it. A proxy (no entity
// props) hosts nothing.
//
// In a cluster the region's Props carry its RegionRoute, which sends the
// messages of this member's actors for shards hosted elsewhere straight to
// their home; the region publishes there the shards it would forward
// (UpdateRoute).
class Region final : public actor::Actor {
 public:
  // `entity_props` empty: a proxy. `stopped`, if given, is completed when
  // the region stops (for coordinated shutdown's task). `route`: the one
  // its Props carry (WithSendRoute), or null.
  Region(std::string type_name, EntityRegion::EntityProps entity_props,
         EntityRegionSettings settings,
         std::shared_ptr<const MessageExtractor> extractor,
         std::shared_ptr<actor::Promise<actor::Done>> stopped = nullptr,
         std::shared_ptr<RegionRoute> route = nullptr);
  void PreStart() override;
  void PostStop() override;
  bool AroundReceive(const actor::MessageView& message) override;

  // Whether the region handles messages of `type` itself (its protocol,
  // the queries, cluster events) rather than routing them to an entity.
  static bool HandlesItself(const std::type_info& type);

  // What `settings` must satisfy on `system` (in a cluster: a lease
  // store, no lease owner of its own; outside: remember entities with
  // leases names the owner). InvalidArgument saying what is missing.
  static absl::Status ValidateOn(actor::ActorSystem& system,
                                 const EntityRegionSettings& settings,
                                 bool proxy);
  // Whether `system` runs with the cluster provider.
  static bool InCluster(actor::ActorSystem& system);

 private:
  using Held = std::deque<std::pair<actor::AnyMessage, actor::ActorRef>>;
  using Deliveries = std::deque<std::pair<ShardDelivery, actor::ActorRef>>;
  // A message through the extractor, on its way to its shard's home.
  struct Pending {
    ShardDelivery delivery;
    actor::ActorRef sender;
    int hops = 0;  // regions it came through
    // The region that first routed it; nobody for the region of this type
    // at the sender's member (OriginOf), which need not cross the wire.
    actor::ActorRef origin;
  };
  // The messages of a shard whose home is being found, in order.
  struct Resolving {
    std::deque<Pending> held;
    bool reading = false;  // a holder read in flight
    bool waiting = false;  // for members, or the holder's lease to run out
    bool paused = false;   // placed here after a decline: waited once
    // The shard declined here and may give back more (DrainDeclined):
    // nothing is resolved until it is drained.
    bool draining = false;
    // How many of `held` the shard gave back: they go before the others.
    std::size_t returned = 0;
    // The shard is being handed off here: its home is sought once it has
    // stopped (and released its lease).
    bool handoff = false;
    // Held because of a hand-off from here: the hand-off is done once
    // these have gone on.
    bool from_handoff = false;
    // Another region routed messages here: a free shard is hosted here
    // (the sender chose this member), not placed again.
    bool routed_here = false;
    // Remembered by a member that is gone: started wherever it is placed,
    // with nothing held, so that its remembered entities start
    // (StartRememberedOf).
    bool start = false;
  };
  // A shard's home in another member: its region there.
  struct Home {
    actor::ActorRef region;
    std::string address;  // the member's
  };
  // From the lease thread: who holds a shard's lease. Status as code and
  // text: an absl::Status shared across threads is invisible to TSan.
  struct HolderRead {
    std::string shard_id;
    absl::StatusCode code = absl::StatusCode::kOk;
    std::string message;
    std::string owner;  // "" when nobody holds it
  };
  struct ResolveAgain {
    std::string shard_id;
  };

  // A state or stats query waiting for its shards' answers.
  struct Query {
    actor::ActorRef asker;
    bool stats = false;
    std::size_t waiting = 0;
    CurrentShardRegionState state;
  };

  // A handler of the region's own: Receive, for a type HandlesItself
  // knows (it throws std::logic_error for one it does not, so that the two
  // lists cannot drift apart unnoticed).
  template <typename T, typename F>
  void ReceiveOwn(F&& handler);
  // Publishes to route_ the noted shards whose messages RouteInCluster
  // would pass on at once (to the shard here or the home elsewhere), and
  // withdraws the other noted ones.
  void UpdateRoute();
  // Withdraws everything from route_.
  void CloseRoute();
  bool Forwards(const std::string& shard_id) const;

  void Route(const actor::AnyMessage& message, const actor::ActorRef& sender);
  // Hosts `shard_id` here (starting it, or once its id is remembered).
  void HostLocally(const std::string& shard_id, ShardDelivery delivery,
                   const actor::ActorRef& sender);

  // In a cluster (region_routing.cc).
  void JoinRouting();
  void RouteInCluster(const std::string& shard_id, Pending pending);
  void OnRouted(const RoutedDelivery& routed, const actor::ActorRef& sender);
  void Hold(const std::string& shard_id, Pending pending, bool front);
  void ReadHolder(const std::string& shard_id);
  void OnHolderRead(const HolderRead& read);
  // Places a shard nobody holds: rendezvous over the candidates.
  void Place(const std::string& shard_id);
  void HostHere(const std::string& shard_id);
  void SendHome(const std::string& shard_id, const cluster::Member& member);
  void Forward(const std::string& shard_id, const Home& home, Pending pending);
  // The region that first routed `origin`/`sender`'s message: `origin`, or
  // when that is nobody the region of this type at the sender's member
  // (nobody when there is no sender either).
  actor::ActorRef OriginOf(const actor::ActorRef& origin,
                           const actor::ActorRef& sender);
  // The region of this type at `address` (/user/<type>).
  actor::ActorRef RegionAt(const actor::Address& address);
  void OnDeclined(const ShardDeclined& declined, const actor::ActorRef& shard);
  void OnShardHome(const ShardHome& home);
  // Hand-off and rebalancing (region_handoff.cc).
  void HandOffShard(const std::string& shard_id);
  void BeginLeaving();
  void HandedOffShard(const std::string& shard_id);
  void HandOffTimedOut(const std::string& shard_id);
  // Leaving: answers HandOffAll (and stops, for a GracefulShutdown) once
  // nothing is handed off or waits for a home any more.
  void MaybeHandedOff();
  // Reads the holder again for every shard whose messages wait (for a
  // member to take it, or for its lease to run out).
  void ResolveWaiting();
  // Tells `to` (every live member: nullopt) whether this region takes
  // shards (RegionStatus).
  void Announce(const std::optional<cluster::Member>& to);
  void OnRegionStatus(const RegionStatus& status, const actor::ActorRef& from);
  void HostShardHere(const std::string& shard_id);
  // With remember entities: reads the shards remembered by the member at
  // `address`, which is gone (its row removed) without handing them off,
  // and starts those that rendezvous hashing places here once their lease
  // is free (Akka's coordinator starts a dead region's remembered shards
  // the same way, without waiting for a message).
  void ReadRememberedOf(const cluster::Member& gone);
  void StartRememberedOf(const std::string& address,
                         const std::set<std::string>& shard_ids);
  void Rebalance();
  // Whether this region takes shards: not a proxy, not leaving.
  bool Hosting() const { return !proxy_ && !leaving_; }
  // Forgets the homes in members that stopped being live, and resolves
  // again the shards that waited for members.
  void MembersChanged(const std::vector<cluster::Member>& gone);
  // The entity a message is for: a StartEntity's, else the extractor's.
  std::optional<std::string> EntityIdOf(const actor::AnyMessage& message) const;
  // What the shard of `entity_id` gets for `message`.
  ShardDelivery DeliveryOf(std::string entity_id,
                           const actor::AnyMessage& message) const;
  actor::ActorRef StartShard(const std::string& shard_id);
  // The shard's actor to deliver to: the one hosting it, one that declined
  // it (told to try again), or a new one.
  actor::ActorRef ShardForHosting(const std::string& shard_id);
  // Tells every shard its part of the active-entity limit (ActiveLimit):
  // the limit divided among the active shards, the remainder one each to
  // the first shards by id, so that the parts add up to the limit.
  void ShareLimit();
  void BeginShutdown();
  void Terminated(const actor::ActorRef& ref);
  // Messages to dead letters, with a log line saying why. held_ is the
  // caller's to keep: these may never have been counted.
  void Drop(Held& held, const std::string& why);
  void Drop(Deliveries& held, const std::string& why);
  void Drop(std::deque<Pending>& held, const std::string& why);

  // Remember entities.
  void StartStore();
  void Loaded(const std::set<std::string>& shard_ids);
  void Stored(const IdChanges& changes);
  void Ask(bool stats);
  void Answer(const ShardState& state);

  const std::string type_name_;
  const EntityRegion::EntityProps entity_props_;
  const EntityRegionSettings settings_;
  const std::shared_ptr<const MessageExtractor> extractor_;
  // With a lease store: who holds the leases, and the thread their blocking
  // calls run on (shared with the shards, which may outlive this object's
  // incarnation).
  std::string lease_owner_;  // set in PreStart in a cluster
  const std::shared_ptr<base::TaskRunner> lease_runner_;
  const bool proxy_;
  const std::shared_ptr<actor::Promise<actor::Done>> stopped_;
  const std::shared_ptr<RegionRoute> route_;
  // Shards whose place may have changed since UpdateRoute last ran (the
  // ShardMaps note them).
  absl::flat_hash_set<std::string> noted_;
  // Whether route_ may have shards published (UpdateRoute's last look).
  bool route_open_ = false;
  ShardMap<actor::ActorRef> shards_{&noted_};
  std::map<uint64_t, Query> queries_;
  uint64_t next_query_ = 1;
  bool shutting_down_ = false;

  // To itself: a new remember-entities store after one failed.
  struct RestartStore {};

  actor::ActorRef store_;  // RememberedIds; nobody without remember
  // Reading the shards remembered by members that are gone, by address.
  std::map<actor::ActorRef, std::string> remembered_of_;
  int readers_started_ = 0;
  int stores_started_ = 0;
  bool store_ready_ = false;  // it has loaded and takes writes
  bool loading_ = false;      // waiting for the first store's IdsLoaded
  Held waiting_load_;         // messages as sent, in order
  // Messages for shards whose id is being written, by shard.
  ShardMap<Deliveries> waiting_shard_{&noted_};
  std::size_t held_ = 0;  // in waiting_load_, waiting_shard_, resolving_

  // In a cluster.
  bool in_cluster_ = false;
  cluster::UniqueAddress self_;
  std::string self_address_;  // self_.address as text
  MemberView members_{""};
  ShardMap<Home> homes_{&noted_};  // shard -> home
  // RegionAt's: the region of this type at each member's address, so that
  // finding a message's origin resolves no path (forgotten with the
  // member).
  absl::flat_hash_map<actor::Address, actor::ActorRef> regions_at_;
  ShardMap<Resolving> resolving_{&noted_};
  // Shards that declined (their lease held elsewhere): idle, kept for
  // when the shard is placed here again.
  absl::flat_hash_map<std::string, actor::ActorRef> declined_;
  // Shards being handed off (rebalanced, or the member leaves).
  absl::flat_hash_map<std::string, actor::ActorRef> handing_off_;
  // Shards this region handed off to rebalance: when free, placed by the
  // ranking, not hosted again because a stale sender routed them here.
  std::set<std::string> moved_away_;
  // The members whose regions' word (RegionStatus) has come.
  std::set<std::string> heard_;
  // Of those, the ones that had declined (nothing to hand over).
  std::set<std::string> stopping_declined_;
  // Handing everything off (the member leaves): hosts nothing more.
  bool leaving_ = false;
  bool stop_when_handed_off_ = false;  // a GracefulShutdown's
  std::vector<actor::ActorRef> hand_off_askers_;
  struct RebalanceTick {};
  struct HandOffTimeout {
    std::string shard_id;
  };
};

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_REGION_H_
