// The region in a cluster moving its shards: a member leaving hands every
// shard off, a region whose shards belong elsewhere after a member joined
// hands them off a few at a time (docs/design/cluster.md, "Hand-off" and
// "Rebalancing"). A shard handed off stops its entities with the stop
// message, writes its remembered ids and releases its lease; what comes
// for it meanwhile waits in the region, in order, and goes to its next
// home once it has stopped.
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_path.h"
#include "actor/actor_system.h"
#include "sharding/internal/region.h"
#include "sharding/internal/rendezvous.h"

namespace cairn::sharding::internal {

void Region::HandOffShard(const std::string& shard_id) {
  auto it = shards_.find(shard_id);
  if (it == shards_.end()) return;
  actor::ActorRef shard = it->second;
  shards_.erase(it);
  handing_off_[shard_id] = shard;
  Resolving& r = resolving_[shard_id];
  r.handoff = true;
  r.from_handoff = true;
  // Withdrawn from the send route first: nothing sent that way reaches the
  // shard after its HandOff.
  UpdateRoute();
  shard.Tell(HandOff{}, Self());
  Timers().StartSingleTimer(absl::StrCat("~handoff-", shard_id),
                            HandOffTimeout{shard_id},
                            settings_.handoff_timeout);
  ShareLimit();
}

void Region::BeginLeaving() {
  if (!leaving_) {
    leaving_ = true;
    Timers().Cancel(std::string("~rebalance"));
    // The others stop placing shards here before anything this region
    // passes on reaches them.
    members_.SetHosting(self_.ToString(), false);
    Announce(std::nullopt);
    std::vector<std::string> ids;
    for (const auto& [id, shard] : shards_) ids.push_back(id);
    // Every shard is withdrawn from the send route at once (a leaving
    // region publishes none): what comes for one while the others are
    // handed off waits here for its next home, as it would in the mailbox.
    noted_.insert(ids.begin(), ids.end());
    UpdateRoute();
    for (const std::string& id : ids) HandOffShard(id);
    // Declined shards host nothing: they stop.
    for (const auto& [id, shard] : declined_) {
      handing_off_[id] = shard;
      stopping_declined_.insert(id);
      shard.Tell(HandOff{}, Self());
    }
    declined_.clear();
    // Shards waiting for their remembered id to be written: their messages
    // go where the shard will live instead. Each shard's are taken out
    // first: routed while it still waited, they would join its own queue.
    std::vector<std::string> waiting;
    for (const auto& [id, held] : waiting_shard_) waiting.push_back(id);
    for (const std::string& id : waiting) {
      auto it = waiting_shard_.find(id);
      Deliveries held = std::move(it->second);
      waiting_shard_.erase(it);
      for (auto& [delivery, sender] : held) {
        --held_;
        Pending p{delivery, sender, delivery.hops, delivery.origin};
        RouteInCluster(id, std::move(p));
      }
    }
    // What waited for a home before the leave began is part of the
    // hand-off too, and what waited for a member to take its shard (or
    // for a lease to run out) is placed again now: elsewhere, or with no
    // member to take it, to dead letters with a warning.
    for (auto& [id, r] : resolving_) r.from_handoff = true;
    ResolveWaiting();
  }
  MaybeHandedOff();
}

void Region::MaybeHandedOff() {
  // Done once every shard has stopped and what waited for them has gone on
  // to their next homes (what comes later is passed on while the system
  // runs).
  if (!leaving_ || loading_ || !handing_off_.empty()) return;
  for (const auto& [id, r] : resolving_) {
    if (r.from_handoff) return;
  }
  for (const actor::ActorRef& asker : hand_off_askers_) {
    asker.Tell(HandedOff{}, Self());
  }
  hand_off_askers_.clear();
  if (stop_when_handed_off_) Context().Stop(Self());
}

void Region::HandOffTimedOut(const std::string& shard_id) {
  auto it = handing_off_.find(shard_id);
  if (it == handing_off_.end()) return;
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Warning(absl::StrCat(
          "shard '", shard_id, "' of '", type_name_,
          "' is not handed off after ",
          absl::FormatDuration(settings_.handoff_timeout),
          " (an entity that does not stop on the stop message?): stopped "
          "now"));
  Context().Stop(it->second);  // its end releases the lease
}

void Region::HandedOffShard(const std::string& shard_id) {
  Timers().Cancel(absl::StrCat("~handoff-", shard_id));
  auto it = resolving_.find(shard_id);
  if (it != resolving_.end()) {
    it->second.handoff = false;
    if (it->second.held.empty() && !it->second.draining) {
      resolving_.erase(it);
    } else {
      ReadHolder(shard_id);  // released: placed by the members next
    }
  }
  // Remembered entities come back at the next home without waiting for a
  // message: it is told to host the shard (one that hosted here).
  if (stopping_declined_.erase(shard_id) == 0 && settings_.remember_entities) {
    std::optional<cluster::UniqueAddress> exclude;
    if (!Hosting()) exclude = self_;
    std::optional<std::string> home =
        RendezvousHome(shard_id, members_.Candidates(exclude));
    if (home.has_value()) {
      if (*home == self_address_) {
        HostShardHere(shard_id);
      } else if (std::optional<cluster::Member> member = members_.UpAt(*home)) {
        RegionAt(member->address()).Tell(HostShard{shard_id}, Self());
      }
    }
  }
  MaybeHandedOff();
}

void Region::HostShardHere(const std::string& shard_id) {
  if (!in_cluster_ || !Hosting() || shards_.contains(shard_id) ||
      handing_off_.contains(shard_id) || resolving_.contains(shard_id) ||
      waiting_shard_.contains(shard_id)) {
    return;
  }
  if (!settings_.remember_entities) {
    ShardForHosting(shard_id);
    return;
  }
  // Remembered first, as a shard started for a message.
  waiting_shard_.try_emplace(shard_id);
  if (store_ready_) store_.Tell(StoreIds{{{shard_id, true}}}, Self());
}

void Region::Announce(const std::optional<cluster::Member>& to) {
  if (!in_cluster_) return;
  // A proxy says it too (hosting nothing): its first word gets the
  // regions' in answer.
  const RegionStatus status{self_.ToString(), Hosting()};
  std::vector<cluster::Member> members;
  if (to.has_value()) {
    members.push_back(*to);
  } else {
    members = members_.LiveMembers();
  }
  for (const cluster::Member& member : members) {
    if (member.unique_address == self_) continue;
    RegionAt(member.address()).Tell(status, Self());
  }
}

void Region::OnRegionStatus(const RegionStatus& status,
                            const actor::ActorRef& from) {
  if (!in_cluster_ || status.member == self_.ToString()) return;
  const bool was_hosting = members_.IsHosting(status.member);
  members_.SetHosting(status.member, status.hosting);
  // A first word from a region gets this one's in answer: a region (or a
  // proxy) that started after this one's announcement learns of it too.
  if (heard_.insert(status.member).second) {
    from.Tell(RegionStatus{self_.ToString(), Hosting()}, Self());
  }
  if (was_hosting && !status.hosting) {
    // Its shards' homes there are forgotten: they are moving.
    if (std::optional<cluster::Member> m = members_.Live(status.member)) {
      MembersChanged({*m});
    }
    return;
  }
  if (!was_hosting && status.hosting) {
    MembersChanged({});  // shards that waited for a member may go there
  }
}

void Region::Rebalance() {
  if (!Hosting() ||
      handing_off_.size() >=
          static_cast<std::size_t>(settings_.max_simultaneous_rebalance)) {
    return;
  }
  const std::vector<std::string> candidates = members_.Candidates(std::nullopt);
  // Only a member that is itself a candidate (up, reachable, with the
  // role) knows its share; one that is not keeps what it holds.
  if (std::find(candidates.begin(), candidates.end(), self_address_) ==
      candidates.end()) {
    return;
  }
  std::vector<std::string> elsewhere;
  for (const auto& [shard_id, shard] : shards_) {
    std::optional<std::string> home = RendezvousHome(shard_id, candidates);
    if (home.has_value() && *home != self_address_) {
      elsewhere.push_back(shard_id);
    }
  }
  if (elsewhere.size() <
      static_cast<std::size_t>(settings_.rebalance_threshold)) {
    return;
  }
  std::sort(elsewhere.begin(), elsewhere.end());
  const std::size_t room =
      static_cast<std::size_t>(settings_.max_simultaneous_rebalance) -
      handing_off_.size();
  if (elsewhere.size() > room) elsewhere.resize(room);
  for (const std::string& shard_id : elsewhere) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Info(absl::StrCat("rebalancing: shard '", shard_id, "' of '",
                           type_name_, "' moves to ",
                           *RendezvousHome(shard_id, candidates)));
    moved_away_.insert(shard_id);
    HandOffShard(shard_id);
  }
}

}  // namespace cairn::sharding::internal
