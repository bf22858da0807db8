#include "sharding/internal/shard.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/messages.h"
#include "sharding/internal/entity_name.h"

namespace cairn::sharding::internal {

Shard::Shard(std::string shard_id, EntityRegion::EntityProps entity_props,
             EntityRegionSettings settings, std::size_t active_limit)
    : shard_id_(std::move(shard_id)),
      entity_props_(std::move(entity_props)),
      settings_(std::move(settings)),
      active_limit_(active_limit) {
  Receive<ShardDelivery>([this](const ShardDelivery& d) {
    Deliver(d.entity_id, d.message, Sender());
  });
  Receive<Passivate>([this](const Passivate& p) {
    auto id = ids_.find(Sender());
    if (id == ids_.end()) return;  // not (or no longer) one of ours
    Entity& e = entities_.at(id->second);
    if (!e.passivating) StartPassivation(e, p.stop_message);
  });
  Receive<actor::Terminated>(
      [this](const actor::Terminated& t) { EntityTerminated(t.actor); });
  Receive<IdleCheck>([this](const IdleCheck&) { PassivateIdle(); });
  Receive<HandOff>([this](const HandOff&) { BeginHandOff(); });
  Receive<GetShardState>([this](const GetShardState& g) {
    ShardState state{g.request, shard_id_, {}};
    for (const auto& [id, e] : entities_) state.entity_ids.insert(id);
    Sender().Tell(std::move(state));
  });
}

void Shard::PreStart() {
  const absl::Duration idle = settings_.passivate_idle_entity_after;
  if (idle > absl::ZeroDuration()) {
    // Checked at half the timeout: an idle entity goes within 1.5 times it.
    const absl::Duration every = std::max(idle / 2, absl::Milliseconds(1));
    idle_check_ = Context().System().Scheduler().ScheduleTellRepeatedly(
        every, every, Self(), IdleCheck{}, Self());
  }
}

void Shard::PostStop() { idle_check_.Cancel(); }

void Shard::Deliver(const std::string& id, const actor::AnyMessage& message,
                    const actor::ActorRef& sender) {
  if (handing_off_) {
    Context().System().DeadLetters().TellAny(message, sender);
    return;
  }
  auto it = entities_.find(id);
  Entity& e = it != entities_.end() ? it->second : StartEntity(id);
  if (e.passivating) {
    if (held_ >= settings_.buffer_size) {
      Context()
          .System()
          .Log(Self().Path().ToString())
          .Warning(absl::StrCat(
              "buffer full (", settings_.buffer_size,
              " messages held for entities being passivated): a message for "
              "entity '",
              id, "' goes to dead letters"));
      Context().System().DeadLetters().TellAny(message, sender);
      return;
    }
    e.held.emplace_back(message, sender);
    ++held_;
    return;
  }
  lru_.splice(lru_.begin(), lru_, e.lru);
  e.last_message = Context().System().GetClock().Now();
  e.ref.TellAny(message, sender);
}

Shard::Entity& Shard::StartEntity(const std::string& id) {
  Entity& e = entities_[id];
  e.ref = Context().ActorOf(entity_props_(id), EntityName(id));
  Context().Watch(e.ref);
  ids_[e.ref] = id;
  e.passivating = false;
  e.last_message = Context().System().GetClock().Now();
  lru_.push_front(id);
  e.lru = lru_.begin();
  EnforceLimit();
  return e;
}

void Shard::StartPassivation(Entity& e, const actor::AnyMessage& stop_message) {
  e.passivating = true;
  lru_.erase(e.lru);
  if (stop_message.type() == typeid(void)) {
    e.ref.Tell(actor::PoisonPill{}, Self());
  } else {
    e.ref.TellAny(stop_message, Self());
  }
}

void Shard::EntityTerminated(const actor::ActorRef& ref) {
  auto id_it = ids_.find(ref);
  if (id_it == ids_.end()) return;
  const std::string id = id_it->second;
  ids_.erase(id_it);
  auto it = entities_.find(id);
  Entity& old = it->second;
  if (!old.passivating) lru_.erase(old.lru);  // stopped by itself
  std::deque<std::pair<actor::AnyMessage, actor::ActorRef>> held =
      std::move(old.held);
  held_ -= held.size();
  entities_.erase(it);
  if (handing_off_) {
    if (entities_.empty()) Context().Stop(Self());
    return;
  }
  // What came while it stopped goes to the next incarnation, in order.
  for (auto& [message, sender] : held) Deliver(id, message, sender);
}

void Shard::BeginHandOff() {
  if (handing_off_) return;
  handing_off_ = true;
  idle_check_.Cancel();
  if (entities_.empty()) {
    Context().Stop(Self());
    return;
  }
  for (auto& [id, e] : entities_) {
    DropHeld(id, e);
    if (!e.passivating) StartPassivation(e, settings_.stop_message);
  }
}

void Shard::DropHeld(const std::string& id, Entity& e) {
  if (e.held.empty()) return;
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Warning(absl::StrCat("stopping: ", e.held.size(),
                            " message(s) held for entity '", id,
                            "' go to dead letters"));
  for (auto& [message, sender] : e.held) {
    Context().System().DeadLetters().TellAny(message, sender);
  }
  held_ -= e.held.size();
  e.held.clear();
}

void Shard::PassivateIdle() {
  const absl::Time now = Context().System().GetClock().Now();
  // The least recently used are at the back.
  while (!lru_.empty()) {
    const std::string id = lru_.back();
    Entity& e = entities_.at(id);
    if (now - e.last_message < settings_.passivate_idle_entity_after) break;
    StartPassivation(e, settings_.stop_message);
  }
}

void Shard::EnforceLimit() {
  while (active_limit_ > 0 && lru_.size() > active_limit_) {
    const std::string id = lru_.back();
    StartPassivation(entities_.at(id), settings_.stop_message);
  }
}

}  // namespace cairn::sharding::internal
