#include "sharding/internal/region.h"

#include <unistd.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "base/demangle.h"
#include "sharding/internal/entity_name.h"

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

Region::Region(std::string type_name, EntityRegion::EntityProps entity_props,
               EntityRegionSettings settings,
               std::shared_ptr<const MessageExtractor> extractor)
    : type_name_(std::move(type_name)),
      entity_props_(std::move(entity_props)),
      settings_(Effective(std::move(settings))),
      extractor_(std::move(extractor)),
      lease_owner_(settings_.lease_owner.empty() ? UniqueOwner()
                                                 : settings_.lease_owner),
      lease_runner_(
          settings_.lease_store == nullptr
              ? nullptr
              : std::make_shared<base::TaskRunner>(1, "cairn-lease")) {
  Receive<GetShardRegionState>(
      [this](const GetShardRegionState&) { Ask(/*stats=*/false); });
  Receive<GetShardRegionStats>(
      [this](const GetShardRegionStats&) { Ask(/*stats=*/true); });
  Receive<ShardState>([this](const ShardState& s) { Answer(s); });
  Receive<GracefulShutdown>(
      [this](const GracefulShutdown&) { BeginShutdown(); });
  Receive<actor::Terminated>(
      [this](const actor::Terminated& t) { Terminated(t.actor); });
  Receive<IdsLoaded>([this](const IdsLoaded& l) { Loaded(l.ids); });
  Receive<IdsStored>([this](const IdsStored& s) { Stored(s.changes); });
  Receive<RestartStore>([this](const RestartStore&) {
    if (!shutting_down_ && store_.IsNobody()) StartStore();
  });
  ReceiveAny([this](const actor::AnyMessage& m) { Route(m, Sender()); });
}

void Region::PreStart() {
  if (settings_.remember_entities) {
    StartStore();
    loading_ = true;
  }
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
  auto shard = shards_.find(shard_id);
  if (shard != shards_.end()) {
    shard->second.Tell(DeliveryOf(*std::move(id), message), sender);
    return;
  }
  if (!settings_.remember_entities) {
    StartShard(shard_id).Tell(DeliveryOf(*std::move(id), message), sender);
    return;
  }
  // Started once its id is written, so that it is remembered.
  auto [waiting, first] = waiting_shard_.try_emplace(shard_id);
  if (held_ >= settings_.buffer_size) {
    Held overflow{{message, sender}};
    Drop(overflow, "the region's buffer is full");
    return;
  }
  waiting->second.emplace_back(message, sender);
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
    return ShardDelivery{std::move(entity_id), {}, /*start=*/true};
  }
  return ShardDelivery{std::move(entity_id),
                       extractor_->EntityMessage(message)};
}

actor::ActorRef Region::StartShard(const std::string& shard_id) {
  actor::ActorRef shard = Context().ActorOf(
      actor::Props::Create<Shard>(type_name_, shard_id, entity_props_,
                                  settings_, lease_runner_, lease_owner_),
      EntityName(shard_id));
  Context().Watch(shard);
  shards_[shard_id] = shard;
  // Before its first delivery, which this tells it after.
  ShareLimit();
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
  if (shutting_down_) return;
  shutting_down_ = true;
  Drop(waiting_load_, "the region stops");
  for (auto& [id, held] : waiting_shard_) Drop(held, "the region stops");
  waiting_shard_.clear();
  loading_ = false;
  if (shards_.empty()) {
    Context().Stop(Self());
    return;
  }
  for (const auto& [id, shard] : shards_) shard.Tell(HandOff{}, Self());
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
  held_ -= std::min(held_, held.size());
  held.clear();
}

void Region::Terminated(const actor::ActorRef& ref) {
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
  if (shutting_down_) {
    if (shards_.empty()) Context().Stop(Self());
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
  std::string store_id = absl::StrCat("/sharding/", type_name_, "Coordinator");
  if (settings_.lease_store != nullptr) {
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

void Region::Loaded(const std::set<std::string>& shard_ids) {
  store_ready_ = true;
  if (shutting_down_) return;
  for (const std::string& id : shard_ids) {
    if (!shards_.contains(id)) StartShard(id);
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
    for (auto& [message, sender] : waiting) Route(message, sender);
  }
}

void Region::Stored(const IdChanges& changes) {
  for (const auto& [shard_id, started] : changes) {
    auto waiting = waiting_shard_.find(shard_id);
    if (waiting == waiting_shard_.end()) continue;
    Held held = std::move(waiting->second);
    waiting_shard_.erase(waiting);
    held_ -= held.size();
    actor::ActorRef shard = shards_.contains(shard_id) ? shards_.at(shard_id)
                                                       : StartShard(shard_id);
    for (auto& [message, sender] : held) {
      std::optional<std::string> id = EntityIdOf(message);
      shard.Tell(DeliveryOf(*std::move(id), message), sender);
    }
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
