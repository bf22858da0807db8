#include "sharding/internal/region.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "base/demangle.h"
#include "sharding/internal/entity_name.h"

namespace cairn::sharding::internal {

Region::Region(std::string type_name, EntityRegion::EntityProps entity_props,
               EntityRegionSettings settings,
               std::shared_ptr<const MessageExtractor> extractor)
    : type_name_(std::move(type_name)),
      entity_props_(std::move(entity_props)),
      settings_(std::move(settings)),
      extractor_(std::move(extractor)),
      active_limit_per_shard_(
          settings_.active_entity_limit == 0
              ? 0
              : (settings_.active_entity_limit + settings_.number_of_shards -
                 1) /
                    static_cast<std::size_t>(settings_.number_of_shards)) {
  Receive<GetShardRegionState>(
      [this](const GetShardRegionState&) { Ask(/*stats=*/false); });
  Receive<GetShardRegionStats>(
      [this](const GetShardRegionStats&) { Ask(/*stats=*/true); });
  Receive<ShardState>([this](const ShardState& s) { Answer(s); });
  Receive<GracefulShutdown>(
      [this](const GracefulShutdown&) { BeginShutdown(); });
  Receive<actor::Terminated>(
      [this](const actor::Terminated& t) { ShardTerminated(t.actor); });
  ReceiveAny([this](const actor::AnyMessage& m) { Route(m); });
}

void Region::Route(const actor::AnyMessage& message) {
  if (shutting_down_) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat(
            "a message of type ", base::DemangledTypeName(message.type()),
            " came while '", type_name_, "' stops: to dead letters"));
    Context().System().DeadLetters().TellAny(message, Sender());
    return;
  }
  std::optional<std::string> id = extractor_->EntityId(message);
  if (!id.has_value()) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat(
            "a message of type ", base::DemangledTypeName(message.type()),
            " names no entity of '", type_name_, "': to dead letters"));
    Context().System().DeadLetters().TellAny(message, Sender());
    return;
  }
  const std::string shard_id =
      extractor_->ShardId(*id, settings_.number_of_shards);
  actor::ActorRef& shard = shards_[shard_id];
  if (shard.IsNobody()) {
    shard = Context().ActorOf(
        actor::Props::Create<Shard>(shard_id, entity_props_, settings_,
                                    active_limit_per_shard_),
        EntityName(shard_id));
    Context().Watch(shard);
  }
  shard.Tell(ShardDelivery{*std::move(id), extractor_->EntityMessage(message)},
             Sender());
}

void Region::BeginShutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  if (shards_.empty()) {
    Context().Stop(Self());
    return;
  }
  for (const auto& [id, shard] : shards_) shard.Tell(HandOff{}, Self());
}

void Region::ShardTerminated(const actor::ActorRef& shard) {
  for (auto it = shards_.begin(); it != shards_.end(); ++it) {
    if (it->second == shard) {
      shards_.erase(it);
      break;
    }
  }
  if (shutting_down_ && shards_.empty()) Context().Stop(Self());
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
