#include "sharding/internal/shard.h"

#include <algorithm>
#include <atomic>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "base/demangle.h"
#include "persistence/persistence.h"
#include "sharding/internal/entity_name.h"

namespace cairn::sharding::internal {

Shard::Shard(const std::string& type_name, std::string shard_id,
             EntityRegion::EntityProps entity_props,
             EntityRegionSettings settings,
             std::shared_ptr<base::TaskRunner> lease_runner,
             std::string lease_owner, bool decline_held_elsewhere)
    : type_name_(type_name),
      shard_id_(std::move(shard_id)),
      entity_props_(std::move(entity_props)),
      settings_(std::move(settings)),
      store_id_(absl::StrCat("/sharding/", type_name, "Shard/", shard_id_)),
      lease_runner_(std::move(lease_runner)),
      lease_name_(absl::StrCat(type_name, "-", shard_id_)),
      lease_owner_(std::move(lease_owner)),
      decline_held_elsewhere_(decline_held_elsewhere) {
  Receive<ShardDelivery>(
      [this](const ShardDelivery& d) { Deliver(d, Sender()); });
  Receive<ActiveLimit>([this](const ActiveLimit& l) {
    active_limit_ = l.entities;
    EnforceLimit();
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
  Receive<LeaseOutcome>([this](const LeaseOutcome& o) { OnLeaseOutcome(o); });
  Receive<RenewLease>([this](const RenewLease&) {
    if (lease_state_ != LeaseState::kHeld || renewing_) return;
    renewing_ = true;
    LeaseCall(LeaseOutcome::Call::kRenew);
  });
  Receive<DrainDeclined>([this](const DrainDeclined&) {
    Context().Parent().Tell(
        ShardDeclined{shard_id_, {}, /*drained=*/true, declined_to_}, Self());
  });
  Receive<Rehost>([this](const Rehost&) {
    if (lease_state_ == LeaseState::kDeclined && !handing_off_) AcquireLease();
  });
  Receive<RetryLease>([this](const RetryLease&) {
    if (lease_state_ == LeaseState::kElsewhere && !handing_off_) {
      AcquireLease();
    }
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
  if (settings_.lease_store != nullptr) {
    AcquireLease();
    return;
  }
  StartHosting();
}

void Shard::StartHosting() {
  if (settings_.remember_entities) {
    StartStore();
    loading_ = true;
  }
}

void Shard::PostStop() {
  idle_check_.Cancel();
  if (settings_.lease_store == nullptr) return;
  persistence::Persistence::Get(Context().System())
      .RemoveWriteFenceScope(Self());
  if (fence_.has_value() && lease_state_ != LeaseState::kReleasing) {
    // Stopped without a hand-off (the region failed, the system stops):
    // the lease goes at once rather than at its expiry. Nobody waits for
    // the answer; a failure leaves the lease to expire.
    lease_runner_->Post([store = settings_.lease_store, fence = *fence_] {
      (void)store->Release(fence);
    });
  }
}

void Shard::Deliver(const ShardDelivery& delivery,
                    const actor::ActorRef& sender) {
  const std::string& id = delivery.entity_id;
  const actor::AnyMessage& message = delivery.message;
  if (handing_off_) {
    if (decline_held_elsewhere_) {  // in a cluster: for the next home
      Context().Parent().Tell(
          ShardDeclined{shard_id_, {{delivery, sender}}, false, ""}, Self());
      return;
    }
    if (delivery.start) return;  // nothing to send to dead letters
    Context().System().DeadLetters().TellAny(message, sender);
    return;
  }
  switch (lease_state_) {
    case LeaseState::kNone:
    case LeaseState::kHeld:
      break;
    case LeaseState::kElsewhere:
      Unavailable(message, sender);
      return;
    case LeaseState::kDeclined:
      Context().Parent().Tell(
          ShardDeclined{shard_id_, {{delivery, sender}}, false, declined_to_},
          Self());
      return;
    case LeaseState::kAcquiring:
    case LeaseState::kLosing:
    case LeaseState::kReleasing:
      if (!delivery.start && held_ >= settings_.buffer_size) {
        Held overflow;
        Hold(id, overflow, message, sender);  // logs, to dead letters
        return;
      }
      waiting_lease_.emplace_back(delivery, sender);
      ++held_;
      return;
  }
  if (loading_) {
    if (!delivery.start && held_ >= settings_.buffer_size) {
      Held overflow;
      Hold(id, overflow, message, sender);  // logs, to dead letters
      return;
    }
    waiting_load_.emplace_back(delivery, sender);
    ++held_;
    return;
  }
  auto it = entities_.find(id);
  if (it == entities_.end()) {
    Entity& e = entities_[id];
    if (!settings_.remember_entities) {
      // Given its message before the limit is kept: a new entity beyond a
      // part of 0 still handles it, then is passivated.
      if (delivery.start) {
        e.start_acks.push_back(sender);
      } else {
        e.held.emplace_back(message, sender);
        ++held_;
      }
      Spawn(id, e);
      return;
    }
    // Started once its id is written, so that it is remembered.
    e.storing = true;
    if (delivery.start) {
      e.start_acks.push_back(sender);
    } else {
      Hold(id, e.held, message, sender);
    }
    Remember(id, /*started=*/true);
    return;
  }
  Entity& e = it->second;
  if (e.waiting_restart) Spawn(id, e);  // at once, not after the backoff
  if (e.passivating || e.storing) {
    if (delivery.start) {
      e.start_acks.push_back(sender);
    } else {
      Hold(id, e.held, message, sender);
    }
    return;
  }
  if (delivery.start) {  // active: only acknowledged
    sender.Tell(StartEntityAck{id, shard_id_}, Self());
    return;
  }
  LruTouch(e);
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
  LruAdd(e);
  Held held = std::move(e.held);
  e.held.clear();
  held_ -= held.size();
  for (auto& [message, sender] : held) e.ref.TellAny(message, sender);
  std::vector<actor::ActorRef> acks = std::move(e.start_acks);
  e.start_acks.clear();
  for (const actor::ActorRef& to : acks) {
    to.Tell(StartEntityAck{id, shard_id_}, Self());
  }
  EnforceLimit();
}

void Shard::StartPassivation(Entity& e, const actor::AnyMessage& stop_message) {
  e.passivating = true;
  LruRemove(e);
  if (stop_message.type() == typeid(void)) {
    e.ref.Tell(actor::PoisonPill{}, Self());
  } else {
    e.ref.TellAny(stop_message, Self());
  }
}

void Shard::EntityTerminated(const actor::ActorRef& ref) {
  if (stopping_.erase(ref) > 0) {  // stopped by a lost lease
    if (!stopping_.empty()) return;
    if (handing_off_) {
      StopWhenHandedOff();
    } else if (lease_state_ == LeaseState::kLosing) {
      AcquireLease();
    }
    return;
  }
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
  if (!old.passivating) LruRemove(old);  // stopped by itself
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
    std::vector<actor::ActorRef> acks = std::move(old.start_acks);
    held_ -= held.size();
    entities_.erase(it);
    // What came while it stopped goes to the next incarnation, in order;
    // a StartEntity meanwhile starts it too.
    for (auto& [message, sender] : held) {
      Deliver(ShardDelivery{id, std::move(message), false, 0, {}}, sender);
    }
    for (const actor::ActorRef& to : acks) {
      Deliver(ShardDelivery{id, {}, /*start=*/true, 0, {}}, to);
    }
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
  if (!old.held.empty() || !old.start_acks.empty()) {
    Spawn(id, old);  // still remembered: no write
    return;
  }
  entities_.erase(it);
  Remember(id, /*started=*/false);
}

void Shard::DropWaiting(
    std::deque<std::pair<ShardDelivery, actor::ActorRef>>& waiting,
    const char* why) {
  if (waiting.empty()) return;
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Warning(absl::StrCat("stopping: ", waiting.size(), " message(s) that ",
                            why, " go to dead letters"));
  for (auto& [delivery, sender] : waiting) {
    if (delivery.start) continue;  // a StartEntity: no message to drop
    Context().System().DeadLetters().TellAny(delivery.message, sender);
  }
  held_ -= waiting.size();
  waiting.clear();
}

void Shard::BeginHandOff() {
  if (handing_off_) return;
  handing_off_ = true;
  idle_check_.Cancel();
  if (decline_held_elsewhere_) {
    // In a cluster the shard moves: what it holds goes back to the region,
    // which sends it to the next home once this one has released the
    // lease (docs/design/cluster.md, "Hand-off").
    GiveBackHeld();
  } else {
    DropWaiting(waiting_load_, "waited for the remembered entities to load");
    DropWaiting(waiting_lease_, "waited for the shard's lease");
  }
  Timers().Cancel(LeaseTimer::kRetry);
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
  if (!entities_.empty() || writes_left || !stopping_.empty()) return;
  switch (lease_state_) {
    case LeaseState::kAcquiring:  // its outcome comes back here
    case LeaseState::kReleasing:  // stops when released
      return;
    case LeaseState::kHeld:
      // The entities have stopped: the lease goes, and then the shard.
      persistence::Persistence::Get(Context().System())
          .SetWriteFence(Self(), std::nullopt);
      Timers().Cancel(LeaseTimer::kRenew);
      lease_state_ = LeaseState::kReleasing;
      LeaseCall(LeaseOutcome::Call::kRelease);
      return;
    case LeaseState::kNone:
    case LeaseState::kElsewhere:
    case LeaseState::kDeclined:
    case LeaseState::kLosing:
      Context().Stop(Self());
      return;
  }
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
  while (oldest_ != nullptr) {
    Entity& e = *oldest_;
    if (now - e.last_message < settings_.passivate_idle_entity_after) break;
    StartPassivation(e, settings_.stop_message);
  }
}

void Shard::EnforceLimit() {
  while (active_limit_.has_value() && active_ > *active_limit_) {
    StartPassivation(*oldest_, settings_.stop_message);
  }
}

void Shard::LruAdd(Entity& e) {
  e.older = newest_;
  e.newer = nullptr;
  if (newest_ != nullptr) newest_->newer = &e;
  newest_ = &e;
  if (oldest_ == nullptr) oldest_ = &e;
  ++active_;
}

void Shard::LruRemove(Entity& e) {
  (e.newer != nullptr ? e.newer->older : newest_) = e.older;
  (e.older != nullptr ? e.older->newer : oldest_) = e.newer;
  e.newer = e.older = nullptr;
  --active_;
}

void Shard::LruTouch(Entity& e) {
  if (newest_ == &e) return;
  LruRemove(e);
  LruAdd(e);
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
    for (auto& [delivery, sender] : waiting) Deliver(delivery, sender);
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
  Timers().StartSingleTimer(StoreTimer::kRestart, RestartStore{},
                            settings_.entity_restart_backoff);
}

// --- Leases
// -------------------------------------------------------------------

void Shard::AcquireLease() {
  lease_state_ = LeaseState::kAcquiring;
  LeaseCall(LeaseOutcome::Call::kAcquire);
}

void Shard::LeaseCall(LeaseOutcome::Call call) {
  // Unique in the process: a restarted shard never takes its previous
  // incarnation's outcome for its own.
  static std::atomic<uint64_t> next_attempt{1};
  const uint64_t attempt = next_attempt.fetch_add(1);
  lease_attempt_ = attempt;
  lease_runner_->Post([call, attempt, self = Self(),
                       store = settings_.lease_store, lease = lease_name_,
                       owner = lease_owner_, fence = fence_,
                       ttl = settings_.lease_ttl,
                       read_holder = decline_held_elsewhere_] {
    LeaseOutcome outcome;
    outcome.call = call;
    outcome.attempt = attempt;
    absl::Status status;
    switch (call) {
      case LeaseOutcome::Call::kAcquire: {
        absl::StatusOr<persistence::WriteFence> got =
            store->Acquire(lease, owner, ttl);
        if (got.ok()) {
          outcome.fence = *std::move(got);
        } else {
          status = got.status();
          if (read_holder &&
              status.code() == absl::StatusCode::kFailedPrecondition) {
            absl::StatusOr<std::optional<persistence::LeaseHolding>> holder =
                store->Holder(lease);
            if (holder.ok() && holder->has_value()) {
              outcome.holder = (*holder)->owner;
            }
          }
        }
        break;
      }
      case LeaseOutcome::Call::kRenew:
        status = store->Renew(*fence, ttl);
        break;
      case LeaseOutcome::Call::kRelease:
        status = store->Release(*fence);
        break;
    }
    outcome.code = status.code();
    outcome.message = std::string(status.message());
    self.Tell(std::move(outcome));
  });
}

void Shard::OnLeaseOutcome(const LeaseOutcome& outcome) {
  if (outcome.attempt != lease_attempt_) return;  // stale
  switch (outcome.call) {
    case LeaseOutcome::Call::kAcquire:
      if (lease_state_ == LeaseState::kAcquiring) OnAcquired(outcome);
      return;
    case LeaseOutcome::Call::kRenew:
      renewing_ = false;
      if (lease_state_ != LeaseState::kHeld) return;
      if (outcome.code != absl::StatusCode::kOk) {
        LoseLease(outcome.message);
      }
      return;
    case LeaseOutcome::Call::kRelease:
      if (outcome.code != absl::StatusCode::kOk) {
        Context()
            .System()
            .Log(Self().Path().ToString())
            .Warning(
                absl::StrCat("could not release lease '", lease_name_,
                             "' (it expires by itself): ", outcome.message));
      }
      fence_.reset();
      Context().Stop(Self());
      return;
  }
}

void Shard::OnAcquired(const LeaseOutcome& outcome) {
  if (outcome.code == absl::StatusCode::kFailedPrecondition &&
      decline_held_elsewhere_ && !handing_off_) {
    lease_state_ = LeaseState::kDeclined;
    declined_to_ = outcome.holder;
    Decline();
    return;
  }
  if (outcome.code != absl::StatusCode::kOk) {
    lease_state_ = LeaseState::kElsewhere;
    unavailable_reason_ = outcome.message;
    if (handing_off_) {
      StopWhenHandedOff();
      return;
    }
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Info(absl::StrCat(
            "shard '", shard_id_, "' of '", type_name_,
            "' is unavailable here: ", outcome.message, "; trying again in ",
            absl::FormatDuration(settings_.lease_retry_interval)));
    // The timer first: whoever hears the answer may move the clock.
    Timers().StartSingleTimer(LeaseTimer::kRetry, RetryLease{},
                              settings_.lease_retry_interval);
    auto waiting = std::move(waiting_lease_);
    waiting_lease_.clear();
    held_ -= waiting.size();
    for (auto& [delivery, sender] : waiting) {
      Unavailable(delivery.message, sender);
    }
    return;
  }
  fence_ = outcome.fence;
  lease_state_ = LeaseState::kHeld;
  if (handing_off_) {  // nothing to host: the lease goes again
    StopWhenHandedOff();
    return;
  }
  persistence::Persistence::Get(Context().System())
      .SetWriteFence(Self(), fence_);
  const absl::Duration every =
      std::max(settings_.lease_ttl / 3, absl::Milliseconds(1));
  Timers().StartTimerAtFixedRate(LeaseTimer::kRenew, RenewLease{}, every);
  StartHosting();
  auto waiting = std::move(waiting_lease_);
  waiting_lease_.clear();
  held_ -= waiting.size();
  for (auto& [delivery, sender] : waiting) Deliver(delivery, sender);
}

void Shard::LoseLease(const std::string& reason) {
  Context()
      .System()
      .Log(Self().Path().ToString())
      .Error(absl::StrCat("shard '", shard_id_, "' of '", type_name_,
                          "' lost its lease: ", reason,
                          ". Its entities stop now; it acquires the lease "
                          "again once they have"));
  persistence::Persistence::Get(Context().System())
      .SetWriteFence(Self(), std::nullopt);
  Timers().Cancel(LeaseTimer::kRenew);
  fence_.reset();
  lease_state_ = LeaseState::kLosing;
  // What waited for the remembered ids, then what was held per entity,
  // waits for the lease now (counted in held_ all along).
  for (auto& waiting : waiting_load_)
    waiting_lease_.push_back(std::move(waiting));
  waiting_load_.clear();
  loading_ = false;
  for (auto& [id, e] : entities_) {
    for (auto& [message, sender] : e.held) {
      waiting_lease_.emplace_back(
          ShardDelivery{id, std::move(message), false, 0, {}}, sender);
    }
    for (const actor::ActorRef& to : e.start_acks) {
      waiting_lease_.emplace_back(ShardDelivery{id, {}, /*start=*/true, 0, {}},
                                  to);
      ++held_;
    }
    if (e.waiting_restart) Timers().Cancel(id);
    if (!e.ref.IsNobody()) {
      Context().Stop(e.ref);
      stopping_.insert(e.ref);
    }
  }
  entities_.clear();
  ids_.clear();
  newest_ = oldest_ = nullptr;
  active_ = 0;
  if (!store_.IsNobody()) {
    Context().Stop(store_);
    stopping_.insert(store_);
    store_ = actor::ActorRef();
  }
  store_ready_ = false;
  pending_.clear();
  in_flight_.clear();
  if (stopping_.empty()) AcquireLease();
}

void Shard::GiveBackHeld() {
  ShardDeclined back{shard_id_, {}, false, ""};
  for (auto& waiting : waiting_load_) back.deliveries.push_back(waiting);
  for (auto& waiting : waiting_lease_) back.deliveries.push_back(waiting);
  held_ -= std::min(held_, waiting_load_.size() + waiting_lease_.size());
  waiting_load_.clear();
  waiting_lease_.clear();
  for (auto& [id, e] : entities_) {
    for (auto& [message, sender] : e.held) {
      back.deliveries.emplace_back(
          ShardDelivery{id, std::move(message), false, 0, {}}, sender);
    }
    held_ -= std::min(held_, e.held.size());
    e.held.clear();
    for (const actor::ActorRef& to : e.start_acks) {
      back.deliveries.emplace_back(ShardDelivery{id, {}, true, 0, {}}, to);
    }
    e.start_acks.clear();
  }
  if (!back.deliveries.empty()) {
    Context().Parent().Tell(std::move(back), Self());
  }
}

void Shard::Decline() {
  ShardDeclined declined{shard_id_, {}, false, declined_to_};
  declined.deliveries.reserve(waiting_lease_.size());
  for (auto& waiting : waiting_lease_) {
    declined.deliveries.push_back(std::move(waiting));
  }
  held_ -= std::min(held_, waiting_lease_.size());
  waiting_lease_.clear();
  Context().Parent().Tell(std::move(declined), Self());
}

void Shard::Unavailable(const actor::AnyMessage& message,
                        const actor::ActorRef& sender) {
  if (sender.IsNobody() || sender == Context().System().DeadLetters()) {
    Context()
        .System()
        .Log(Self().Path().ToString())
        .Warning(absl::StrCat("shard '", shard_id_, "' of '", type_name_,
                              "' is unavailable (", unavailable_reason_,
                              "): a message of type ",
                              base::DemangledTypeName(message.type()),
                              " with no sender is dropped"));
    return;
  }
  sender.Tell(ShardUnavailable{type_name_, shard_id_, unavailable_reason_},
              Self());
}

}  // namespace cairn::sharding::internal
