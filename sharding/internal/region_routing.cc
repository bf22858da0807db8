// The region in a cluster: where its shards live, and how their messages
// get there (docs/design/cluster.md, "Sharding over the members").
#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor_path.h"
#include "actor/actor_system.h"
#include "base/demangle.h"
#include "cluster/cluster.h"
#include "sharding/internal/region.h"
#include "sharding/internal/rendezvous.h"

namespace cairn::sharding::internal {
namespace {

// A message routed through more regions than this goes to dead letters:
// routing that went round in circles (members seeing each other
// differently for a while) ends.
constexpr int kMaxHops = 8;

std::string ResolveTimer(const std::string& shard_id) {
  return absl::StrCat("~resolve-", shard_id);
}

}  // namespace

void Region::JoinRouting() {
  cluster::Cluster& cluster = cluster::Cluster::Get(Context().System());
  in_cluster_ = true;
  self_ = cluster.SelfUniqueAddress();
  self_address_ = self_.address.ToString();
  // The member holds the leases: its incarnation's address names it, so a
  // process started again at the same address is another owner.
  lease_owner_ = self_.ToString();
  if (Self().Path().elements() !=
      std::vector<std::string>{"user", type_name_}) {
    throw std::invalid_argument(
        absl::StrCat("in a cluster, the region of '", type_name_,
                     "' must run as /user/", type_name_,
                     " (where the other members find it): start it with "
                     "EntityRegion::Start or StartProxy"));
  }
  if (!proxy_) members_.SetHosting(self_.ToString(), true);
  cluster.Subscribe(Self(), cluster::InitialStateMode::kAsSnapshot);
  if (!proxy_ && settings_.rebalance_interval > absl::ZeroDuration()) {
    Timers().StartTimerAtFixedRate(std::string("~rebalance"), RebalanceTick{},
                                   settings_.rebalance_interval);
  }
}

void Region::RouteInCluster(const std::string& shard_id, Pending pending) {
  if (auto shard = shards_.find(shard_id); shard != shards_.end()) {
    pending.delivery.hops = pending.hops;
    pending.delivery.origin = pending.origin;
    shard->second.Tell(std::move(pending.delivery), pending.sender);
    return;
  }
  if (waiting_shard_.contains(shard_id)) {
    // Being remembered, to be hosted here: in order behind the rest.
    pending.delivery.hops = pending.hops;
    pending.delivery.origin = pending.origin;
    HostLocally(shard_id, std::move(pending.delivery), pending.sender);
    return;
  }
  // Behind the messages already waiting for the shard's home, in order.
  if (resolving_.contains(shard_id)) {
    Hold(shard_id, std::move(pending), /*front=*/false);
    return;
  }
  if (auto home = homes_.find(shard_id); home != homes_.end()) {
    Forward(shard_id, home->second, std::move(pending));
    return;
  }
  Hold(shard_id, std::move(pending), /*front=*/false);
  ReadHolder(shard_id);
}

void Region::OnRouted(const RoutedDelivery& routed,
                      const actor::ActorRef& sender) {
  if (!in_cluster_) {  // from a member with other settings, say
    if (!routed.start) {
      Context().System().DeadLetters().TellAny(routed.message, sender);
    }
    return;
  }
  const std::string& shard_id = routed.shard_id;
  if (extractor_->ShardId(routed.entity_id, settings_.number_of_shards) !=
      shard_id) {
    // Another number of shards, or another extractor, in the sender's
    // region: hosting it here would put the entity in two shards.
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat(
            "a message for entity '", routed.entity_id, "' of '", type_name_,
            "' came routed to shard '", shard_id,
            "', which is not the entity's shard here: do all members run "
            "the region with the same number of shards and extractor? To "
            "dead letters"));
    if (!routed.start) {
      Context().System().DeadLetters().TellAny(routed.message, sender);
    }
    return;
  }
  if (loading_) {
    if (held_ >= settings_.buffer_size) {
      Held overflow{{actor::AnyMessage::Of(routed), sender}};
      Drop(overflow, "the region's buffer is full");
      return;
    }
    waiting_load_.emplace_back(actor::AnyMessage::Of(routed), sender);
    ++held_;
    return;
  }
  Pending pending{ShardDelivery{routed.entity_id, routed.message, routed.start,
                                routed.hops, routed.origin},
                  sender, routed.hops, routed.origin};
  if (!shards_.contains(shard_id) && !resolving_.contains(shard_id) &&
      !leaving_) {
    // The sender believed the shard is here, and this region's own belief
    // may name the sender (a shard handed off from here, cached there):
    // the lease's holder is read again, which ends such a circle. A
    // leaving region keeps its belief (where it sent the shard's messages
    // on): what still comes follows them at once instead of waiting for a
    // read that the region's stop may cut short; a stale belief is
    // corrected by the receiver, which does not host the shard.
    homes_.erase(shard_id);
  }
  const bool here = shards_.contains(shard_id);
  RouteInCluster(shard_id, std::move(pending));
  if (!here && Hosting() && !moved_away_.contains(shard_id)) {
    if (auto it = resolving_.find(shard_id); it != resolving_.end()) {
      it->second.routed_here = true;
    }
  }
  if (leaving_) {
    // A sender that missed the word (it joined later, or the word was
    // lost) hears it again.
    actor::ActorRef origin = OriginOf(routed.origin, sender);
    if (!origin.IsNobody() && origin != Self()) {
      origin.Tell(RegionStatus{self_.ToString(), false}, Self());
    }
  }
}

void Region::Hold(const std::string& shard_id, Pending pending, bool front) {
  Resolving& r = resolving_[shard_id];
  if (held_ >= settings_.buffer_size) {
    std::deque<Pending> overflow;
    overflow.push_back(std::move(pending));
    Drop(overflow, "the region's buffer is full");
    return;
  }
  // While this region leaves, what waits here for a home is part of its
  // hand-off: the leaving waits until it has gone on, instead of stopping
  // the region with it inside.
  if (leaving_) r.from_handoff = true;
  if (front) {
    // After what the shard gave back before, before everything else.
    r.held.insert(r.held.begin() + static_cast<std::ptrdiff_t>(r.returned),
                  std::move(pending));
    ++r.returned;
  } else {
    r.held.push_back(std::move(pending));
  }
  ++held_;
}

void Region::ReadHolder(const std::string& shard_id) {
  Resolving& r = resolving_[shard_id];
  if (r.reading || r.draining || r.handoff) return;
  if (settings_.lease_store == nullptr) {  // a proxy without one
    Place(shard_id);
    return;
  }
  r.reading = true;
  lease_runner_->Post([self = Self(), store = settings_.lease_store,
                       lease = absl::StrCat(type_name_, "-", shard_id),
                       shard_id] {
    HolderRead read;
    read.shard_id = shard_id;
    absl::StatusOr<std::optional<persistence::LeaseHolding>> holder =
        store->Holder(lease);
    if (!holder.ok()) {
      read.code = holder.status().code();
      read.message = std::string(holder.status().message());
    } else if (holder->has_value()) {
      read.owner = (*holder)->owner;
    }
    self.Tell(std::move(read));
  });
}

void Region::OnHolderRead(const HolderRead& read) {
  auto it = resolving_.find(read.shard_id);
  if (it == resolving_.end()) return;  // shutting down
  it->second.reading = false;
  // Read before its hand-off began: read again once it is done.
  if (it->second.handoff || it->second.draining) return;
  if (read.code != absl::StatusCode::kOk) {
    // The lease decides anyway: whoever is placed asks for it.
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat("could not read who holds shard '", read.shard_id,
                              "' of '", type_name_, "' (", read.message,
                              "): placing it by the members"));
    Place(read.shard_id);
    return;
  }
  if (read.owner.empty()) {
    if (it->second.routed_here && Hosting()) {
      // Another region chose this member: the lease decides, with no
      // second placement that might send it back (members seeing each
      // other differently for a while).
      HostHere(read.shard_id);
      return;
    }
    Place(read.shard_id);
    return;
  }
  if (read.owner == lease_owner_) {
    if (Hosting()) {
      HostHere(read.shard_id);
      return;
    }
    // Leaving, and still holding it (a release that failed: it runs out
    // by itself): its messages wait for that, below.
  } else if (std::optional<cluster::Member> holder =
                 members_.Live(read.owner)) {
    SendHome(read.shard_id, *holder);
    return;
  }
  // Held by a member that is gone or not seen yet, or by this one while it
  // leaves (a hand-off not done yet): once the lease runs out or is
  // released (or the member is seen), the shard is placed. Its messages
  // wait.
  it->second.waiting = true;
  Timers().StartSingleTimer(ResolveTimer(read.shard_id),
                            ResolveAgain{read.shard_id},
                            settings_.lease_retry_interval);
}

void Region::Place(const std::string& shard_id) {
  auto it = resolving_.find(shard_id);
  if (it == resolving_.end()) return;
  std::optional<cluster::UniqueAddress> exclude;
  if (!Hosting()) exclude = self_;
  std::optional<std::string> home =
      RendezvousHome(shard_id, members_.Candidates(exclude));
  if (!home.has_value()) {
    if (leaving_) {
      // Nobody else takes shards (they all leave): nothing will.
      held_ -= std::min(held_, it->second.held.size());
      Drop(it->second.held, "no member takes shards while this one leaves");
      resolving_.erase(it);
      MaybeHandedOff();
      return;
    }
    it->second.waiting = true;  // until a member comes
    return;
  }
  if (*home == self_address_ && Hosting()) {
    if (declined_.contains(shard_id) && !it->second.paused) {
      // It declined here, and nobody seemed to hold it a moment later (or
      // the holder could not be read): the lease is tried again after a
      // pause, not in a loop as fast as the store answers.
      it->second.paused = true;
      it->second.waiting = true;
      Timers().StartSingleTimer(ResolveTimer(shard_id), ResolveAgain{shard_id},
                                settings_.lease_retry_interval);
      return;
    }
    HostHere(shard_id);
    return;
  }
  std::optional<cluster::Member> member = members_.UpAt(*home);
  if (!member.has_value()) {  // cannot be: a candidate is up
    it->second.waiting = true;
    return;
  }
  if (it->second.start && it->second.held.empty()) {
    // Placed elsewhere meanwhile (the members changed): that region
    // starts it, as after a hand-off.
    resolving_.erase(it);
    RegionAt(member->address()).Tell(HostShard{shard_id}, Self());
    MaybeHandedOff();
    return;
  }
  SendHome(shard_id, *member);
}

void Region::HostHere(const std::string& shard_id) {
  auto it = resolving_.find(shard_id);
  if (it == resolving_.end()) return;
  std::deque<Pending> held = std::move(it->second.held);
  const bool start = it->second.start;
  resolving_.erase(it);
  if (held.empty() && start) {
    HostShardHere(shard_id);  // its remembered entities start
    return;
  }
  held_ -= std::min(held_, held.size());
  // Regions whose messages came here through others learn the home.
  std::set<actor::ActorRef> told;
  for (Pending& p : held) {
    if (p.hops > 1) {
      actor::ActorRef origin = OriginOf(p.origin, p.sender);
      if (!origin.IsNobody() && origin != Self() &&
          told.insert(origin).second) {
        origin.Tell(ShardHome{shard_id, Self()}, Self());
      }
    }
    p.delivery.hops = p.hops;
    p.delivery.origin = p.origin;
    HostLocally(shard_id, std::move(p.delivery), p.sender);
  }
}

void Region::SendHome(const std::string& shard_id,
                      const cluster::Member& member) {
  Home home{RegionAt(member.address()), member.address().ToString()};
  homes_[shard_id] = home;
  auto it = resolving_.find(shard_id);
  if (it == resolving_.end()) return;
  std::deque<Pending> held = std::move(it->second.held);
  resolving_.erase(it);
  held_ -= std::min(held_, held.size());
  // Regions that routed these here believe the shard is here: they learn
  // where it is (once each).
  std::set<actor::ActorRef> told;
  for (Pending& p : held) {
    actor::ActorRef origin = OriginOf(p.origin, p.sender);
    if (!origin.IsNobody() && origin != Self() && told.insert(origin).second) {
      origin.Tell(ShardHome{shard_id, home.region}, Self());
    }
    Forward(shard_id, home, std::move(p));
  }
  MaybeHandedOff();
}

void Region::Forward(const std::string& shard_id, const Home& home,
                     Pending pending) {
  if (pending.hops >= kMaxHops) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat(
            "a message for shard '", shard_id, "' of '", type_name_,
            "' went through ", pending.hops,
            " regions without reaching the shard's home: to dead letters"));
    if (!pending.delivery.start) {
      Context().System().DeadLetters().TellAny(pending.delivery.message,
                                               pending.sender);
    }
    return;
  }
  actor::ActorRef origin = OriginOf(pending.origin, pending.sender);
  if (origin.IsNobody()) origin = Self();
  // Most messages are routed first here, from an actor of this member:
  // then the receiver finds this region by the sender's address, and the
  // origin stays off the wire (a path per message, resolved by the
  // receiver). Told apart without building paths, which costs more.
  if (origin == Self() && !pending.sender.IsNobody() &&
      pending.sender.impl()->AsCell() != nullptr &&
      pending.sender.impl()->GetSystem() == &Context().System()) {
    origin = actor::ActorRef();
  }
  home.region.Tell(
      RoutedDelivery{shard_id, std::move(pending.delivery.entity_id),
                     std::move(pending.delivery.message),
                     pending.delivery.start, std::move(origin),
                     pending.hops + 1},
      pending.sender);
}

actor::ActorRef Region::OriginOf(const actor::ActorRef& origin,
                                 const actor::ActorRef& sender) {
  if (!origin.IsNobody() || sender.IsNobody()) return origin;
  return RegionAt(sender.Path().address());
}

actor::ActorRef Region::RegionAt(const actor::Address& address) {
  auto [it, added] = regions_at_.try_emplace(address);
  if (added) {
    it->second = Context().System().ResolveActorRef(
        actor::ActorPath(address, {"user", type_name_}));
  }
  return it->second;
}

void Region::OnDeclined(const ShardDeclined& declined,
                        const actor::ActorRef& shard) {
  const std::string& shard_id = declined.shard_id;
  if (shutting_down_) {
    Deliveries dropped(declined.deliveries.begin(), declined.deliveries.end());
    Drop(dropped, "the region stops");
    return;
  }
  if (auto it = shards_.find(shard_id);
      it != shards_.end() && it->second == shard) {
    // Nothing more is sent to it; what it still has comes back before its
    // answer to DrainDeclined, and only then is the shard's home sought.
    shards_.erase(it);
    declined_[shard_id] = shard;
    homes_.erase(shard_id);
    ShareLimit();
    resolving_[shard_id].draining = true;
    // Withdrawn from the send route first: nothing sent that way reaches
    // the shard after DrainDeclined.
    UpdateRoute();
    shard.Tell(DrainDeclined{}, Self());
  }
  for (const auto& [delivery, sender] : declined.deliveries) {
    Hold(shard_id, Pending{delivery, sender, delivery.hops, delivery.origin},
         /*front=*/true);
  }
  auto it = resolving_.find(shard_id);
  if (it == resolving_.end()) return;  // nothing held, nothing to resolve
  if (declined.drained) it->second.draining = false;
  if (it->second.draining || it->second.handoff) return;
  if (it->second.held.empty()) {
    if (settings_.remember_entities && Hosting() &&
        (declined.holder.empty() || !members_.Live(declined.holder))) {
      // Started for its remembered entities while a member that is gone
      // still holds its lease (this process's earlier incarnation, killed):
      // started once the lease is free, wherever it is placed then.
      it->second.start = true;
      ReadHolder(shard_id);
      return;
    }
    resolving_.erase(it);
    MaybeHandedOff();
    return;
  }
  // The shard read who holds the lease when it was refused.
  if (!declined.holder.empty() && declined.holder != lease_owner_) {
    if (std::optional<cluster::Member> holder =
            members_.Live(declined.holder)) {
      SendHome(shard_id, *holder);
      return;
    }
  }
  ReadHolder(shard_id);
}

void Region::OnShardHome(const ShardHome& home) {
  if (shards_.contains(home.shard_id) || home.region.IsNobody() ||
      home.region == Self()) {
    return;
  }
  const std::string address = home.region.Path().address().ToString();
  if (!members_.LiveAt(address)) return;  // gone meanwhile
  homes_[home.shard_id] = Home{home.region, address};
  auto it = resolving_.find(home.shard_id);
  if (it != resolving_.end() && !it->second.reading && !it->second.draining &&
      !it->second.handoff) {
    Home h = homes_[home.shard_id];
    std::deque<Pending> held = std::move(it->second.held);
    resolving_.erase(it);
    Timers().Cancel(ResolveTimer(home.shard_id));
    held_ -= std::min(held_, held.size());
    for (Pending& p : held) Forward(home.shard_id, h, std::move(p));
    MaybeHandedOff();
  }
}

void Region::MembersChanged(const std::vector<cluster::Member>& gone) {
  for (const cluster::Member& member : gone) {
    const std::string address = member.address().ToString();
    for (auto it = homes_.begin(); it != homes_.end();) {
      if (it->second.address == address) {
        homes_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  ResolveWaiting();
}

void Region::ResolveWaiting() {
  std::vector<std::string> waiting;
  for (const auto& [shard_id, r] : resolving_) {
    if (r.waiting && !r.reading && !r.draining) waiting.push_back(shard_id);
  }
  for (const std::string& shard_id : waiting) {
    resolving_[shard_id].waiting = false;
    Timers().Cancel(ResolveTimer(shard_id));
    ReadHolder(shard_id);
  }
}

}  // namespace cairn::sharding::internal
