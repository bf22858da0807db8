#include "sharding/internal/region.h"

#include <unistd.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "base/demangle.h"
#include "cluster/cluster.h"
#include "sharding/internal/entity_name.h"
#include "sharding/internal/rendezvous.h"

namespace cairn::sharding::internal {

namespace {

// Akka turns automatic passivation off with remember entities: a
// passivated entity would be forgotten, and one kept would come back at the
// next start anyway.
EntityRegionSettings Effective(EntityRegionSettings settings) {
  if (settings.remember_entities) {
    settings.passivate_idle_entity_after = absl::ZeroDuration();
    settings.active_entity_limit = 0;
  }
  return settings;
}

// hostname-pid-random: unique to this region instance, also across
// processes and hosts.
std::string UniqueOwner() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  return absl::StrCat(host[0] == '\0' ? "host" : host, "-", getpid(), "-",
                      absl::Hex(random(), absl::kZeroPad8),
                      absl::Hex(random(), absl::kZeroPad8));
}

}  // namespace

template <typename T, typename F>
void Region::ReceiveOwn(F&& handler) {
  if (!HandlesItself(typeid(T))) {
    throw std::logic_error(absl::StrCat(
        "sharding's region handles ", base::DemangledTypeName(typeid(T)),
        " itself, but Region::HandlesItself does not say so: its send "
        "route would pass it to the extractor"));
  }
  Receive<T>(std::forward<F>(handler));
}

Region::Region(std::string type_name, EntityRegion::EntityProps entity_props,
               EntityRegionSettings settings,
               std::shared_ptr<const MessageExtractor> extractor,
               std::shared_ptr<actor::Promise<actor::Done>> stopped,
               std::shared_ptr<RegionRoute> route)
    : type_name_(std::move(type_name)),
      entity_props_(std::move(entity_props)),
      settings_(Effective(std::move(settings))),
      extractor_(std::move(extractor)),
      lease_owner_(settings_.lease_owner.empty() ? UniqueOwner()
                                                 : settings_.lease_owner),
      lease_runner_(settings_.lease_store == nullptr
                        ? nullptr
                        : std::make_shared<base::TaskRunner>(1, "cairn-lease")),
      proxy_(!entity_props_),
      stopped_(std::move(stopped)),
      route_(std::move(route)),
      members_(settings_.role) {
  ReceiveOwn<GetShardRegionState>(
      [this](const GetShardRegionState&) { Ask(/*stats=*/false); });
  ReceiveOwn<GetCurrentRegions>([this](const GetCurrentRegions&) {
    CurrentRegions current;
    for (const std::string& address : members_.Candidates(std::nullopt)) {
      if (std::optional<cluster::Member> m = members_.UpAt(address)) {
        current.regions.push_back(m->address());
      }
    }
    Sender().Tell(std::move(current), Self());
  });
  ReceiveOwn<GetShardRegionStats>(
      [this](const GetShardRegionStats&) { Ask(/*stats=*/true); });
  ReceiveOwn<ShardState>([this](const ShardState& s) { Answer(s); });
  ReceiveOwn<GracefulShutdown>(
      [this](const GracefulShutdown&) { BeginShutdown(); });
  ReceiveOwn<actor::Terminated>(
      [this](const actor::Terminated& t) { Terminated(t.actor); });
  ReceiveOwn<IdsLoaded>([this](const IdsLoaded& l) {
    if (auto it = remembered_of_.find(Sender()); it != remembered_of_.end()) {
      const std::string address = it->second;
      Context().Unwatch(it->first);
      Context().Stop(it->first);
      remembered_of_.erase(it);
      StartRememberedOf(address, l.ids);
      return;
    }
    // Not a reader of an earlier incarnation of this region (restarted).
    if (Sender() == store_) Loaded(l.ids);
  });
  ReceiveOwn<IdsStored>([this](const IdsStored& s) { Stored(s.changes); });
  ReceiveOwn<RestartStore>([this](const RestartStore&) {
    if (!shutting_down_ && store_.IsNobody()) StartStore();
  });
  // In a cluster.
  ReceiveOwn<RoutedDelivery>(
      [this](const RoutedDelivery& r) { OnRouted(r, Sender()); });
  ReceiveOwn<ShardHome>([this](const ShardHome& h) { OnShardHome(h); });
  ReceiveOwn<ShardDeclined>(
      [this](const ShardDeclined& d) { OnDeclined(d, Sender()); });
  ReceiveOwn<HolderRead>([this](const HolderRead& r) { OnHolderRead(r); });
  ReceiveOwn<HostShard>(
      [this](const HostShard& h) { HostShardHere(h.shard_id); });
  ReceiveOwn<HandOffAll>([this](const HandOffAll&) {
    hand_off_askers_.push_back(Sender());
    BeginLeaving();
  });
  ReceiveOwn<HandOffTimeout>(
      [this](const HandOffTimeout& t) { HandOffTimedOut(t.shard_id); });
  ReceiveOwn<RebalanceTick>([this](const RebalanceTick&) {
    Announce(std::nullopt);  // again: a word may have been lost
    Rebalance();
  });
  ReceiveOwn<RegionStatus>(
      [this](const RegionStatus& s) { OnRegionStatus(s, Sender()); });
  ReceiveOwn<ResolveAgain>([this](const ResolveAgain& r) {
    auto it = resolving_.find(r.shard_id);
    if (it == resolving_.end() || it->second.reading) return;
    it->second.waiting = false;
    ReadHolder(r.shard_id);
  });
  ReceiveOwn<cluster::CurrentClusterState>(
      [this](const cluster::CurrentClusterState& s) {
        MembersChanged(members_.Apply(s));
        Announce(std::nullopt);
      });
  ReceiveOwn<cluster::MemberUp>([this](const cluster::MemberUp& e) {
    MembersChanged(members_.Update(e.member));
    Announce(e.member);
  });
  ReceiveOwn<cluster::MemberLeft>([this](const cluster::MemberLeft& e) {
    MembersChanged(members_.Update(e.member));
  });
  ReceiveOwn<cluster::MemberExited>([this](const cluster::MemberExited& e) {
    MembersChanged(members_.Update(e.member));
  });
  ReceiveOwn<cluster::UnreachableMember>(
      [this](const cluster::UnreachableMember& e) {
        MembersChanged(members_.SetReachable(e.member, false));
      });
  ReceiveOwn<cluster::ReachableMember>(
      [this](const cluster::ReachableMember& e) {
        MembersChanged(members_.SetReachable(e.member, true));
      });
  ReceiveOwn<cluster::MemberRemoved>([this](const cluster::MemberRemoved& e) {
    heard_.erase(e.member.unique_address.ToString());
    regions_at_.erase(e.member.address());
    MembersChanged(members_.Remove(e.member));
    ReadRememberedOf(e.member);
  });
  ReceiveOwn<GetRouteStats>([this](const GetRouteStats&) {
    Sender().Tell(route_ == nullptr ? RouteStats{} : route_->Stats(), Self());
  });
  ReceiveAny([this](const actor::AnyMessage& m) { Route(m, Sender()); });
}

bool Region::HandlesItself(const std::type_info& type) {
  static const auto* const kTypes = new std::vector<const std::type_info*>{
      &typeid(GetShardRegionState),
      &typeid(GetCurrentRegions),
      &typeid(GetShardRegionStats),
      &typeid(ShardState),
      &typeid(GracefulShutdown),
      &typeid(actor::Terminated),
      &typeid(IdsLoaded),
      &typeid(IdsStored),
      &typeid(RestartStore),
      &typeid(RoutedDelivery),
      &typeid(ShardHome),
      &typeid(ShardDeclined),
      &typeid(HolderRead),
      &typeid(HostShard),
      &typeid(HandOffAll),
      &typeid(HandOffTimeout),
      &typeid(RebalanceTick),
      &typeid(RegionStatus),
      &typeid(ResolveAgain),
      &typeid(cluster::CurrentClusterState),
      &typeid(cluster::MemberUp),
      &typeid(cluster::MemberLeft),
      &typeid(cluster::MemberExited),
      &typeid(cluster::UnreachableMember),
      &typeid(cluster::ReachableMember),
      &typeid(cluster::MemberRemoved),
      &typeid(GetRouteStats),
  };
  for (const std::type_info* t : *kTypes) {
    if (*t == type) return true;
  }
  return false;
}

bool Region::AroundReceive(const actor::MessageView& message) {
  bool handled;
  try {
    handled = RunBehavior(message);
  } catch (...) {
    // The actor restarts with nothing held: nothing goes straight on
    // meanwhile.
    CloseRoute();
    throw;
  }
  // Before the runtime tells the route this message is handled.
  UpdateRoute();
  return handled;
}

bool Region::Forwards(const std::string& shard_id) const {
  return homes_.contains(shard_id) && !shards_.contains(shard_id) &&
         !resolving_.contains(shard_id) && !waiting_shard_.contains(shard_id);
}

void Region::UpdateRoute() {
  // As RouteInCluster: the messages of a shard go to its shard when it is
  // hosted here, and to its home elsewhere when it is not hosted, resolved
  // or waiting for its id to be written here.
  const bool open =
      route_ != nullptr && in_cluster_ && !shutting_down_ && !loading_;
  if (!open) {
    if (route_open_) CloseRoute();
    noted_.clear();
    return;
  }
  if (!route_open_) {
    route_open_ = true;
    for (const auto& [shard_id, home] : homes_) noted_.insert(shard_id);
    for (const auto& [shard_id, shard] : shards_) noted_.insert(shard_id);
  }
  if (noted_.empty()) return;
  std::vector<std::pair<std::string, RegionRoute::Target>> changes;
  changes.reserve(noted_.size());
  for (const std::string& shard_id : noted_) {
    RegionRoute::Target target;
    if (Forwards(shard_id)) {
      target.ref = homes_.find(shard_id)->second.region;
    } else if (auto shard = shards_.find(shard_id);
               shard != shards_.end() && !leaving_) {
      // A leaving region answers what it is routed (OnRouted); it
      // withdraws every shard as it begins to leave (BeginLeaving).
      target.ref = shard->second;
      target.hosted = true;
    }
    changes.emplace_back(shard_id, std::move(target));
  }
  noted_.clear();
  route_->Update(changes);
}

bool Region::InCluster(actor::ActorSystem& system) {
  absl::StatusOr<std::string> provider =
      system.Settings().GetString("akka.actor.provider");
  return provider.ok() && *provider == "cluster";
}

absl::Status Region::ValidateOn(actor::ActorSystem& system,
                                const EntityRegionSettings& settings,
                                bool proxy) {
  constexpr char kBlock[] = "akka.cluster.sharding: ";
  if (InCluster(system)) {
    if (settings.lease_store == nullptr && !proxy) {
      return absl::InvalidArgumentError(absl::StrCat(
          kBlock,
          "a region in a cluster needs a lease store "
          "(EntityRegionSettings::lease_store): a shard lives where its "
          "lease is held"));
    }
    if (!settings.lease_owner.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          kBlock,
          "in a cluster the member holds the leases: leave lease-owner "
          "empty"));
    }
    return absl::OkStatus();
  }
  if (proxy) {
    return absl::InvalidArgumentError(
        "a region proxy needs a cluster (akka.actor.provider = cluster)");
  }
  // With leases, the region remembers its shards under its owner's name:
  // the default owner is new at every start, so nothing would come back.
  if (settings.remember_entities && settings.lease_store != nullptr &&
      settings.lease_owner.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        kBlock,
        "remember-entities with leases needs a lease-owner that stays the "
        "same when the process starts again"));
  }
  return absl::OkStatus();
}

void Region::PreStart() {
  if (absl::Status v = ValidateOn(Context().System(), settings_, proxy_);
      !v.ok()) {
    throw std::invalid_argument(std::string(v.message()));
  }
  if (InCluster(Context().System())) JoinRouting();
  if (settings_.remember_entities && !proxy_) {
    StartStore();
    loading_ = true;
  }
}

void Region::CloseRoute() {
  if (route_ != nullptr) route_->UnpublishAll();
  route_open_ = false;
}

void Region::PostStop() {
  // Also before a restart (the default PreRestart): the next incarnation
  // publishes from nothing.
  CloseRoute();
  if (in_cluster_) {
    cluster::Cluster::Get(Context().System()).Unsubscribe(Self());
  }
  // What still waits here is lost with the region: said, not silent.
  const std::string why = "the region stopped while they waited";
  Drop(waiting_load_, why);
  for (auto& [id, held] : waiting_shard_) Drop(held, why);
  for (auto& [id, r] : resolving_) Drop(r.held, why);
  held_ = 0;
  if (stopped_ != nullptr) stopped_->TrySetValue(actor::Done{});
}

void Region::Route(const actor::AnyMessage& message,
                   const actor::ActorRef& sender) {
  if (shutting_down_) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat(
            "a message of type ", base::DemangledTypeName(message.type()),
            " came while '", type_name_, "' stops: to dead letters"));
    Context().System().DeadLetters().TellAny(message, sender);
    return;
  }
  std::optional<std::string> id = EntityIdOf(message);
  if (!id.has_value()) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat(
            "a message of type ", base::DemangledTypeName(message.type()),
            " names no entity of '", type_name_, "': to dead letters"));
    Context().System().DeadLetters().TellAny(message, sender);
    return;
  }
  if (loading_) {
    if (held_ >= settings_.buffer_size) {
      Held overflow{{message, sender}};
      Drop(overflow, "the region's buffer is full");
      return;
    }
    waiting_load_.emplace_back(message, sender);
    ++held_;
    return;
  }
  const std::string shard_id =
      extractor_->ShardId(*id, settings_.number_of_shards);
  ShardDelivery delivery = DeliveryOf(*std::move(id), message);
  if (in_cluster_) {
    RouteInCluster(shard_id, Pending{std::move(delivery), sender, 0, Self()});
    return;
  }
  HostLocally(shard_id, std::move(delivery), sender);
}

void Region::HostLocally(const std::string& shard_id, ShardDelivery delivery,
                         const actor::ActorRef& sender) {
  auto shard = shards_.find(shard_id);
  if (shard != shards_.end()) {
    shard->second.Tell(std::move(delivery), sender);
    return;
  }
  if (!settings_.remember_entities || declined_.contains(shard_id)) {
    ShardForHosting(shard_id).Tell(std::move(delivery), sender);
    return;
  }
  // Started once its id is written, so that it is remembered.
  auto [waiting, first] = waiting_shard_.try_emplace(shard_id);
  if (held_ >= settings_.buffer_size) {
    Deliveries overflow{{std::move(delivery), sender}};
    Drop(overflow, "the region's buffer is full");
    if (first) waiting_shard_.erase(shard_id);
    return;
  }
  waiting->second.emplace_back(std::move(delivery), sender);
  ++held_;
  if (first && store_ready_) {
    store_.Tell(StoreIds{{{shard_id, true}}}, Self());
  }
}

std::optional<std::string> Region::EntityIdOf(
    const actor::AnyMessage& message) const {
  if (const StartEntity* start = message.As<StartEntity>()) {
    return start->entity_id;
  }
  return extractor_->EntityId(message);
}

ShardDelivery Region::DeliveryOf(std::string entity_id,
                                 const actor::AnyMessage& message) const {
  if (message.Is<StartEntity>()) {
    return ShardDelivery{std::move(entity_id), {}, /*start=*/true, 0, {}};
  }
  return ShardDelivery{
      std::move(entity_id), extractor_->EntityMessage(message), false, 0, {}};
}

actor::ActorRef Region::StartShard(const std::string& shard_id) {
  actor::ActorRef shard = Context().ActorOf(
      actor::Props::Create<Shard>(type_name_, shard_id, entity_props_,
                                  settings_, lease_runner_, lease_owner_,
                                  /*decline_held_elsewhere=*/in_cluster_),
      EntityName(shard_id));
  Context().Watch(shard);
  shards_[shard_id] = shard;
  // Before its first delivery, which this tells it after.
  ShareLimit();
  return shard;
}

actor::ActorRef Region::ShardForHosting(const std::string& shard_id) {
  if (auto it = shards_.find(shard_id); it != shards_.end()) return it->second;
  homes_.erase(shard_id);  // hosted here now
  moved_away_.erase(shard_id);
  auto declined = declined_.find(shard_id);
  if (declined == declined_.end()) return StartShard(shard_id);
  // Placed here again: it tries the lease again, then hosts or declines.
  actor::ActorRef shard = declined->second;
  declined_.erase(declined);
  shards_[shard_id] = shard;
  ShareLimit();
  shard.Tell(Rehost{}, Self());
  return shard;
}

void Region::ShareLimit() {
  const std::size_t limit = settings_.active_entity_limit;
  if (limit == 0 || shards_.empty()) return;
  // Akka's least-recently-used strategy divides the region's limit among
  // its active shards too; its part is rounded down, so the region may keep
  // fewer than the limit. Here the remainder goes, one each, to the first
  // shards by id: the parts add up to the limit exactly.
  std::vector<const std::string*> ids;
  ids.reserve(shards_.size());
  for (const auto& [id, shard] : shards_) ids.push_back(&id);
  std::sort(ids.begin(), ids.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });
  const std::size_t each = limit / ids.size();
  const std::size_t remainder = limit % ids.size();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    shards_.at(*ids[i]).Tell(ActiveLimit{each + (i < remainder ? 1 : 0)},
                             Self());
  }
}

void Region::BeginShutdown() {
  if (in_cluster_) {
    // The shards move to other members; what comes meanwhile goes on to
    // their next homes. The region stops once they are handed off.
    stop_when_handed_off_ = true;
    BeginLeaving();
    return;
  }
  if (shutting_down_) return;
  shutting_down_ = true;
  Drop(waiting_load_, "the region stops");
  for (auto& [id, held] : waiting_shard_) Drop(held, "the region stops");
  waiting_shard_.clear();
  for (auto& [id, r] : resolving_) Drop(r.held, "the region stops");
  resolving_.clear();
  held_ = 0;  // all of it dropped
  loading_ = false;
  if (shards_.empty() && declined_.empty()) {
    Context().Stop(Self());
    return;
  }
  for (const auto& [id, shard] : shards_) shard.Tell(HandOff{}, Self());
  for (const auto& [id, shard] : declined_) shard.Tell(HandOff{}, Self());
}

void Region::Drop(Held& held, const std::string& why) {
  if (held.empty()) return;
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Warning(absl::StrCat(why, ": ", held.size(),
                            " message(s) for entities of '", type_name_,
                            "' go to dead letters"));
  for (auto& [message, sender] : held) {
    Context().System().DeadLetters().TellAny(message, sender);
  }
  held.clear();
}

void Region::Drop(Deliveries& held, const std::string& why) {
  Held messages;
  for (auto& [delivery, sender] : held) {
    if (!delivery.start) messages.emplace_back(delivery.message, sender);
  }
  held.clear();
  Drop(messages, why);
}

void Region::Drop(std::deque<Pending>& held, const std::string& why) {
  Deliveries deliveries;
  for (Pending& p : held) {
    deliveries.emplace_back(std::move(p.delivery), std::move(p.sender));
  }
  held.clear();
  Drop(deliveries, why);
}

void Region::Terminated(const actor::ActorRef& ref) {
  if (auto it = remembered_of_.find(ref); it != remembered_of_.end()) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat(
            "the shards remembered by ", it->second,
            ", which is gone, could not be read (the failure is logged "
            "above): they start at the first message for one of their "
            "entities"));
    remembered_of_.erase(it);
    return;
  }
  if (ref == store_) {
    store_ = actor::ActorRef();
    store_ready_ = false;
    if (shutting_down_) return;
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Error(absl::StrCat(
            "the remember-entities store of the region stopped (its failure "
            "is logged above); a new one starts in ",
            absl::FormatDuration(settings_.entity_restart_backoff),
            ". Meanwhile messages for shards not yet started wait for it"));
    Timers().StartSingleTimer(std::string("~store"), RestartStore{},
                              settings_.entity_restart_backoff);
    return;
  }
  for (auto it = shards_.begin(); it != shards_.end(); ++it) {
    if (it->second == ref) {
      shards_.erase(it);
      break;
    }
  }
  for (auto it = declined_.begin(); it != declined_.end(); ++it) {
    if (it->second == ref) {
      declined_.erase(it);
      break;
    }
  }
  for (auto it = handing_off_.begin(); it != handing_off_.end(); ++it) {
    if (it->second == ref) {
      const std::string shard_id = it->first;
      handing_off_.erase(it);
      HandedOffShard(shard_id);
      return;
    }
  }
  if (shutting_down_) {
    if (shards_.empty() && declined_.empty()) Context().Stop(Self());
    return;
  }
  ShareLimit();  // the others take its part
}

// --- Remember entities -------------------------------------------------------

void Region::StartStore() {
  // "~r" is no shard's name: EntityName escapes '~' as "~7E". A new store
  // after a failure gets a new name: the old one may not be free yet.
  // With leases, regions of the type in several processes share the
  // journal: each remembers the shards it hosted in a stream of its own
  // owner's (Validate makes sure the owner is named, so the same process
  // finds it again), which no other region writes.
  // In a cluster, the member's address (without its incarnation, which is
  // new at every start) names the stream: a process started again at the
  // same address finds it.
  std::string store_id = absl::StrCat("/sharding/", type_name_, "Coordinator");
  if (in_cluster_) {
    absl::StrAppend(&store_id, "/", self_address_);
  } else if (settings_.lease_store != nullptr) {
    absl::StrAppend(&store_id, "/", lease_owner_);
  }
  store_ = Context().ActorOf(
      actor::Props::Create<RememberedIds>(
          std::move(store_id),
          RememberedIdsSettings{
              settings_.journal_plugin_id, settings_.snapshot_plugin_id,
              settings_.snapshot_after, settings_.keep_nr_of_batches}),
      stores_started_ == 0 ? std::string("~remember")
                           : absl::StrCat("~remember-", stores_started_));
  ++stores_started_;
  Context().Watch(store_);
  store_ready_ = false;
}

void Region::ReadRememberedOf(const cluster::Member& gone) {
  if (!settings_.remember_entities || !in_cluster_ || !Hosting() ||
      shutting_down_) {
    return;
  }
  if (gone.unique_address == self_) return;
  const std::string address = gone.address().ToString();
  // Started again at the same address: that process starts its own.
  if (members_.LiveAt(address)) return;
  // Read only (it writes nothing unless told to): the stream stays the
  // gone member's, for a process started again at its address.
  actor::ActorRef reader = Context().ActorOf(
      actor::Props::Create<RememberedIds>(
          absl::StrCat("/sharding/", type_name_, "Coordinator/", address),
          RememberedIdsSettings{
              settings_.journal_plugin_id, settings_.snapshot_plugin_id,
              settings_.snapshot_after, settings_.keep_nr_of_batches}),
      absl::StrCat("~remembered-of-", readers_started_++));
  Context().Watch(reader);
  remembered_of_[reader] = address;
}

void Region::StartRememberedOf(const std::string& address,
                               const std::set<std::string>& shard_ids) {
  if (!Hosting() || shutting_down_ || members_.LiveAt(address)) {
    return;
  }
  const std::vector<std::string> candidates = members_.Candidates(std::nullopt);
  for (const std::string& shard_id : shard_ids) {
    if (shards_.contains(shard_id) || handing_off_.contains(shard_id) ||
        resolving_.contains(shard_id) || waiting_shard_.contains(shard_id)) {
      continue;  // here already, or on its way to its home
    }
    // Every region that reads it ranks the same members: the first starts
    // it. Its lease decides if two see the members differently for a while.
    if (RendezvousHome(shard_id, candidates) != self_address_) continue;
    // The gone member may still hold its lease until it runs out: the
    // holder is read first, as for a message (OnHolderRead), and the shard
    // starts once the lease is free (HostHere).
    resolving_[shard_id].start = true;
    ReadHolder(shard_id);
  }
}

void Region::Loaded(const std::set<std::string>& shard_ids) {
  store_ready_ = true;
  if (shutting_down_) return;
  // A region that leaves (or a proxy) starts nothing: the shards go to
  // their next homes when a message comes for them.
  if (!in_cluster_ || Hosting()) {
    for (const std::string& id : shard_ids) ShardForHosting(id);
  }
  // Shards whose write a failed store did not make.
  IdChanges unwritten;
  for (const auto& [id, held] : waiting_shard_) {
    if (!shard_ids.contains(id)) unwritten.emplace_back(id, true);
  }
  if (!unwritten.empty()) store_.Tell(StoreIds{std::move(unwritten)}, Self());
  IdChanges written;
  for (const auto& [id, held] : waiting_shard_) {
    if (shard_ids.contains(id)) written.emplace_back(id, true);
  }
  Stored(written);
  if (loading_) {
    loading_ = false;
    Held waiting = std::move(waiting_load_);
    waiting_load_.clear();
    held_ -= waiting.size();
    for (auto& [message, sender] : waiting) {
      if (const auto* routed = message.As<RoutedDelivery>()) {
        OnRouted(*routed, sender);
      } else {
        Route(message, sender);
      }
    }
    MaybeHandedOff();
  }
}

void Region::Stored(const IdChanges& changes) {
  for (const auto& [shard_id, started] : changes) {
    auto waiting = waiting_shard_.find(shard_id);
    if (waiting == waiting_shard_.end()) continue;
    Deliveries held = std::move(waiting->second);
    waiting_shard_.erase(waiting);
    held_ -= held.size();
    actor::ActorRef shard = ShardForHosting(shard_id);
    for (auto& [delivery, sender] : held)
      shard.Tell(std::move(delivery), sender);
  }
}

void Region::Ask(bool stats) {
  if (shards_.empty()) {
    if (stats) {
      Sender().Tell(ShardRegionStats{});
    } else {
      Sender().Tell(CurrentShardRegionState{});
    }
    return;
  }
  const uint64_t request = next_query_++;
  queries_[request] = Query{Sender(), stats, shards_.size(), {}};
  for (const auto& [id, shard] : shards_) {
    shard.Tell(GetShardState{request}, Self());
  }
}

void Region::Answer(const ShardState& s) {
  auto it = queries_.find(s.request);
  if (it == queries_.end()) return;
  Query& q = it->second;
  q.state.shards[s.shard_id] = s.entity_ids;
  if (--q.waiting > 0) return;
  if (q.stats) {
    ShardRegionStats stats;
    for (const auto& [shard, ids] : q.state.shards) {
      stats.stats[shard] = ids.size();
    }
    q.asker.Tell(std::move(stats), Self());
  } else {
    q.asker.Tell(std::move(q.state), Self());
  }
  queries_.erase(it);
}

}  // namespace cairn::sharding::internal
