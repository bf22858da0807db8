#include "sharding/internal/shard.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "sharding/internal/entity_name.h"

namespace cairn::sharding::internal {

Shard::Shard(const std::string& type_name, std::string shard_id,
             EntityRegion::EntityProps entity_props,
             EntityRegionSettings settings, std::size_t active_limit)
    : shard_id_(std::move(shard_id)),
      entity_props_(std::move(entity_props)),
      settings_(std::move(settings)),
      active_limit_(active_limit),
      store_id_(absl::StrCat("/sharding/", type_name, "Shard/", shard_id_)) {
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
  Receive<IdsLoaded>([this](const IdsLoaded& l) { Loaded(l.ids); });
  Receive<IdsStored>([this](const IdsStored& s) { Stored(s.changes); });
  Receive<RestartStore>([this](const RestartStore&) {
    if (!handing_off_ && store_.IsNobody()) StartStore();
  });
  Receive<RestartEntity>([this](const RestartEntity& r) {
    auto it = entities_.find(r.id);
    if (it == entities_.end() || !it->second.waiting_restart) return;
    Spawn(r.id, it->second);
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
  if (settings_.remember_entities) {
    StartStore();
    loading_ = true;
  }
}

void Shard::PostStop() { idle_check_.Cancel(); }

void Shard::Deliver(const std::string& id, const actor::AnyMessage& message,
                    const actor::ActorRef& sender) {
  if (handing_off_) {
    Context().System().DeadLetters().TellAny(message, sender);
    return;
  }
  if (loading_) {
    if (held_ >= settings_.buffer_size) {
      Held overflow;
      Hold(id, overflow, message, sender);  // logs, to dead letters
      return;
    }
    waiting_load_.emplace_back(ShardDelivery{id, message}, sender);
    ++held_;
    return;
  }
  auto it = entities_.find(id);
  if (it == entities_.end()) {
    Entity& e = entities_[id];
    if (!settings_.remember_entities) {
      Spawn(id, e);
    } else {
      // Started once its id is written, so that it is remembered.
      e.storing = true;
      Hold(id, e.held, message, sender);
      Remember(id, /*started=*/true);
      return;
    }
    it = entities_.find(id);
  }
  Entity& e = it->second;
  if (e.waiting_restart) Spawn(id, e);  // at once, not after the backoff
  if (e.passivating || e.storing) {
    Hold(id, e.held, message, sender);
    return;
  }
  lru_.splice(lru_.begin(), lru_, e.lru);
  e.last_message = Context().System().GetClock().Now();
  e.ref.TellAny(message, sender);
}

bool Shard::Hold(const std::string& id, Held& held,
                 const actor::AnyMessage& message,
                 const actor::ActorRef& sender) {
  if (held_ >= settings_.buffer_size) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat(
            "buffer full (", settings_.buffer_size,
            " messages held for entities being passivated or started): a "
            "message for entity '",
            id, "' goes to dead letters"));
    Context().System().DeadLetters().TellAny(message, sender);
    return false;
  }
  held.emplace_back(message, sender);
  ++held_;
  return true;
}

void Shard::Spawn(const std::string& id, Entity& e) {
  if (e.waiting_restart) Timers().Cancel(id);
  e.ref = Context().ActorOf(entity_props_(id), EntityName(id));
  Context().Watch(e.ref);
  ids_[e.ref] = id;
  e.passivating = false;
  e.storing = false;
  e.waiting_restart = false;
  e.last_message = Context().System().GetClock().Now();
  lru_.push_front(id);
  e.lru = lru_.begin();
  Held held = std::move(e.held);
  e.held.clear();
  held_ -= held.size();
  for (auto& [message, sender] : held) e.ref.TellAny(message, sender);
  EnforceLimit();
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
  if (ref == store_) {
    StoreStopped();
    return;
  }
  auto id_it = ids_.find(ref);
  if (id_it == ids_.end()) return;
  const std::string id = id_it->second;
  ids_.erase(id_it);
  auto it = entities_.find(id);
  Entity& old = it->second;
  if (!old.passivating) lru_.erase(old.lru);  // stopped by itself
  if (handing_off_) {
    // Passivated before the hand-off: forgotten, as it would have been.
    const bool forget =
        settings_.remember_entities && old.passivating && !old.handed_off;
    entities_.erase(it);
    if (forget) Remember(id, /*started=*/false);
    StopWhenHandedOff();
    return;
  }
  if (!settings_.remember_entities) {
    Held held = std::move(old.held);
    held_ -= held.size();
    entities_.erase(it);
    // What came while it stopped goes to the next incarnation, in order.
    for (auto& [message, sender] : held) Deliver(id, message, sender);
    return;
  }
  old.ref = actor::ActorRef();
  if (!old.passivating) {
    // Remembered, so it comes back (Akka's entity-restart-backoff).
    old.waiting_restart = true;
    Timers().StartSingleTimer(id, RestartEntity{id},
                              settings_.entity_restart_backoff);
    return;
  }
  if (!old.held.empty()) {
    Spawn(id, old);  // still remembered: no write
    return;
  }
  entities_.erase(it);
  Remember(id, /*started=*/false);
}

void Shard::BeginHandOff() {
  if (handing_off_) return;
  handing_off_ = true;
  idle_check_.Cancel();
  if (!waiting_load_.empty()) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat("stopping: ", waiting_load_.size(),
                              " message(s) that waited for the remembered "
                              "entities to load go to dead letters"));
    for (auto& [delivery, sender] : waiting_load_) {
      Context().System().DeadLetters().TellAny(delivery.message, sender);
    }
    held_ -= waiting_load_.size();
    waiting_load_.clear();
  }
  loading_ = false;
  for (auto it = entities_.begin(); it != entities_.end();) {
    Entity& e = it->second;
    DropHeld(it->first, e.held);
    if (e.ref.IsNobody()) {  // storing or waiting for a restart
      entities_.erase(it++);
      continue;
    }
    if (!e.passivating) {
      e.handed_off = true;
      StartPassivation(e, settings_.stop_message);
    }
    ++it;
  }
  StopWhenHandedOff();
}

void Shard::StopWhenHandedOff() {
  // The remembered ids written meanwhile (passivations before the hand
  // off) go first, or the next start would bring those entities back.
  const bool writes_left =
      !store_.IsNobody() && (!in_flight_.empty() || !pending_.empty());
  if (entities_.empty() && !writes_left) Context().Stop(Self());
}

void Shard::DropHeld(const std::string& id, Held& held) {
  if (held.empty()) return;
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Warning(absl::StrCat("stopping: ", held.size(),
                            " message(s) held for entity '", id,
                            "' go to dead letters"));
  for (auto& [message, sender] : held) {
    Context().System().DeadLetters().TellAny(message, sender);
  }
  held_ -= held.size();
  held.clear();
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

// --- Remember entities -------------------------------------------------------

void Shard::StartStore() {
  // "~r" is no entity's name: EntityName escapes '~' as "~7E". A new store
  // after a failure gets a new name: the old one may not be free yet.
  store_ = Context().ActorOf(
      actor::Props::Create<RememberedIds>(
          store_id_, RememberedIdsSettings{settings_.journal_plugin_id,
                                           settings_.snapshot_plugin_id,
                                           settings_.snapshot_after,
                                           settings_.keep_nr_of_batches}),
      stores_started_ == 0 ? std::string("~remember")
                           : absl::StrCat("~remember-", stores_started_));
  ++stores_started_;
  Context().Watch(store_);
  store_ready_ = false;
}

void Shard::Loaded(const std::set<std::string>& ids) {
  store_ready_ = true;
  if (handing_off_) {  // only the writes left
    WriteRemembered();
    StopWhenHandedOff();
    return;
  }
  for (const std::string& id : ids) {
    // Passivated meanwhile (after a store failure): not started again.
    auto pending = pending_.find(id);
    if (pending != pending_.end() && !pending->second) continue;
    if (!entities_.contains(id)) Spawn(id, entities_[id]);
  }
  if (loading_) {
    loading_ = false;
    std::deque<std::pair<ShardDelivery, actor::ActorRef>> waiting =
        std::move(waiting_load_);
    waiting_load_.clear();
    held_ -= waiting.size();
    for (auto& [delivery, sender] : waiting) {
      Deliver(delivery.entity_id, delivery.message, sender);
    }
  }
  WriteRemembered();
}

void Shard::Remember(const std::string& id, bool started) {
  pending_[id] = started;  // the last change of an id is what counts
  WriteRemembered();
}

void Shard::WriteRemembered() {
  if (!in_flight_.empty() || pending_.empty() || !store_ready_) return;
  IdChanges changes;
  for (auto it = pending_.begin();
       it != pending_.end() &&
       changes.size() < settings_.max_updates_per_write;) {
    changes.emplace_back(it->first, it->second);
    pending_.erase(it++);
  }
  in_flight_ = changes;
  store_.Tell(StoreIds{std::move(changes)}, Self());
}

void Shard::Stored(const IdChanges& changes) {
  in_flight_.clear();
  if (handing_off_) {
    WriteRemembered();
    StopWhenHandedOff();
    return;
  }
  for (const auto& [id, started] : changes) {
    if (!started) continue;
    auto it = entities_.find(id);
    if (it != entities_.end() && it->second.storing) Spawn(id, it->second);
  }
  WriteRemembered();
}

void Shard::StoreStopped() {
  store_ = actor::ActorRef();
  store_ready_ = false;
  // Not written: again with the next store, unless changed since.
  for (auto& [id, started] : in_flight_) pending_.try_emplace(id, started);
  in_flight_.clear();
  if (handing_off_) {
    StopWhenHandedOff();
    return;
  }
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Error(absl::StrCat(
          "the remember-entities store ", store_id_,
          " stopped (its failure is logged above); a new one starts in ",
          absl::FormatDuration(settings_.entity_restart_backoff),
          ". Meanwhile new entities wait for it, with their messages"));
  Timers().StartSingleTimer(std::string("~store"), RestartStore{},
                            settings_.entity_restart_backoff);
}

}  // namespace cairn::sharding::internal
