#include "cluster/internal/cluster_daemon.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/coordinated_shutdown.h"
#include "actor/future.h"
#include "actor/messages.h"

namespace cairn::cluster::internal {
namespace {

using actor::ActorRef;
using actor::AnyMessage;
using actor::Done;
using actor::Promise;
using persistence::MemberRecord;
using persistence::MemberSnapshot;

// Timers and the store's announcement.
struct RenewTick {};
struct RefreshTick {};
struct Changed {};

// The store thread's outcomes.
struct JoinDone {
  absl::Status status;
};
struct RenewDone {
  absl::Status status;
};
struct ReadDone {
  absl::StatusOr<MemberSnapshot> snapshot;
};
struct LeaveStep {
  std::optional<MemberStatus> status;  // nullopt: remove the row
  Promise<Done> done;
};
struct LeaveStepDone {
  absl::Status status;
  std::optional<MemberStatus> step;
  Promise<Done> done;
};

MemberStatus FromStored(persistence::MemberStatus status) {
  switch (status) {
    case persistence::MemberStatus::kUp:
      return MemberStatus::kUp;
    case persistence::MemberStatus::kLeaving:
      return MemberStatus::kLeaving;
    case persistence::MemberStatus::kExiting:
      return MemberStatus::kExiting;
  }
  return MemberStatus::kUp;
}

persistence::MemberStatus ToStored(MemberStatus status) {
  switch (status) {
    case MemberStatus::kUp:
      return persistence::MemberStatus::kUp;
    case MemberStatus::kLeaving:
      return persistence::MemberStatus::kLeaving;
    case MemberStatus::kExiting:
    case MemberStatus::kRemoved:  // never stored: the row goes instead
      return persistence::MemberStatus::kExiting;
  }
  return persistence::MemberStatus::kExiting;
}

// The event of a member's status, for one seen with it first or anew.
AnyMessage StatusEvent(const Member& m) {
  switch (m.status) {
    case MemberStatus::kLeaving:
      return AnyMessage::Of(MemberLeft{m});
    case MemberStatus::kExiting:
      return AnyMessage::Of(MemberExited{m});
    default:
      return AnyMessage::Of(MemberUp{m});
  }
}

}  // namespace

ClusterDaemon::ClusterDaemon(std::shared_ptr<ClusterShared> shared,
                             actor::LoggingAdapter log)
    : shared_(std::move(shared)), log_(std::move(log)) {
  Receive<RenewTick>([this](const RenewTick&) { Renew(); });
  Receive<RefreshTick>([this](const RefreshTick&) {
    EnsureWatch();
    Read();
  });
  Receive<Changed>([this](const Changed&) { Read(); });
  Receive<JoinDone>([this](const JoinDone& d) {
    renewing_ = false;
    if (!d.status.ok()) {
      log_.Warning(
          absl::StrCat("joining failed, trying again in ",
                       absl::FormatDuration(shared_->settings.renew_interval),
                       ": ", d.status.ToString()));
      return;
    }
    joined_ = true;
    if (leaving_) {
      // Shutdown began while it joined: its row goes at once.
      if (!removing_ && !left_) RemoveOwnRow(Promise<Done>());
      return;
    }
    Read();
  });
  Receive<RenewDone>([this](const RenewDone& d) {
    renewing_ = false;
    if (!d.status.ok()) fresh_since_.reset();
    if (d.status.code() == absl::StatusCode::kFailedPrecondition) {
      Downed(std::string(d.status.message()));
    } else if (!d.status.ok()) {
      log_.Warning(absl::StrCat("renewing this member's row failed: ",
                                d.status.ToString()));
    }
  });
  Receive<ReadDone>([this](const ReadDone& d) {
    reading_ = false;
    if (d.snapshot.ok()) {
      Apply(*d.snapshot);
    } else {
      fresh_since_.reset();
      log_.Warning(absl::StrCat("reading the members failed: ",
                                d.snapshot.status().ToString()));
    }
    if (read_again_) {
      read_again_ = false;
      Read();
    }
  });
  Receive<Subscribe>([this](const Subscribe& s) {
    subscribers_.insert(s.subscriber);
    Context().Watch(s.subscriber);
    SendInitialState(s.subscriber, s.mode);
  });
  Receive<Unsubscribe>([this](const Unsubscribe& u) {
    subscribers_.erase(u.subscriber);
    Context().Unwatch(u.subscriber);
  });
  Receive<actor::Terminated>(
      [this](const actor::Terminated& t) { subscribers_.erase(t.actor); });
  Receive<LeaveStep>([this](const LeaveStep& step) {
    leaving_ = true;
    Promise<Done> done = step.done;
    if (downed_ || left_ || removing_) {
      done.TrySetValue(Done{});  // its row is gone or going
      return;
    }
    if (!step.status.has_value()) {
      // Also when not joined yet: a Join in flight is before the Remove on
      // the store thread, so no row is left behind.
      RemoveOwnRow(done);
      return;
    }
    if (!joined_) {
      done.TrySetValue(Done{});  // no row yet to set
      return;
    }
    std::shared_ptr<persistence::MemberStore> store = shared_->store;
    const std::string address = SelfAddress();
    const int64_t uid = SelfUid();
    ActorRef self = Self();
    std::shared_ptr<std::atomic<bool>> stopped = stopped_;
    const MemberStatus status = *step.status;
    shared_->store_thread->Post(
        [store, address, uid, self, stopped, status, done]() mutable {
          absl::Status s = store->SetStatus(address, uid, ToStored(status));
          if (*stopped) {
            done.TrySetValue(Done{});
          } else {
            self.Tell(LeaveStepDone{std::move(s), status, done});
          }
        });
  });
  Receive<LeaveStepDone>([this](const LeaveStepDone& d) {
    if (!d.status.ok()) {
      log_.Warning(absl::StrCat("leaving: ", d.status.ToString()));
    }
    if (!d.step.has_value()) left_ = true;  // removed, or left to run out
    Promise<Done> done = d.done;
    done.TrySetValue(Done{});
    Read();
  });
}

ClusterDaemon::~ClusterDaemon() = default;

void ClusterDaemon::PreStart() {
  ActorRef self = Self();
  EnsureWatch();
  actor::CoordinatedShutdown& shutdown =
      Context().System().GetCoordinatedShutdown();
  for (const auto& [phase, status] :
       {std::pair<const char*, std::optional<MemberStatus>>{
            "cluster-leave", MemberStatus::kLeaving},
        {"cluster-exiting", MemberStatus::kExiting},
        {"cluster-shutdown", std::nullopt}}) {
    std::optional<MemberStatus> step = status;
    absl::Status added =
        shutdown.AddTask(phase, absl::StrCat("member-", phase),
                         actor::CoordinatedShutdown::Task([self, step] {
                           Promise<Done> done;
                           self.Tell(LeaveStep{step, done});
                           return done.GetFuture();
                         }));
    if (!added.ok()) log_.Warning(added.ToString());
  }
  Timers().StartTimerWithFixedDelay("renew", RenewTick{},
                                    shared_->settings.renew_interval);
  Timers().StartTimerWithFixedDelay("refresh", RefreshTick{},
                                    shared_->settings.refresh_interval);
  Renew();  // not joined yet: joins
}

void ClusterDaemon::PostStop() {
  *stopped_ = true;
  // Ended on the store thread: the stop does not wait for it.
  shared_->store_thread->Post([watch = watch_] { watch->watch.reset(); });
}

void ClusterDaemon::EnsureWatch() {
  std::shared_ptr<persistence::MemberStore> store = shared_->store;
  ActorRef self = Self();
  std::shared_ptr<std::atomic<bool>> stopped = stopped_;
  const absl::Duration refresh = shared_->settings.refresh_interval;
  // One attempt at a time: a failing one may block for a connect timeout.
  if (watch_->attempting.exchange(true)) return;
  shared_->store_thread->Post(
      [store, self, stopped, watch = watch_, refresh, log = log_] {
        struct Finished {
          WatchSlot* slot;
          ~Finished() { slot->attempting = false; }
        } finished{watch.get()};
        if (watch->watch != nullptr || *stopped) return;
        absl::StatusOr<std::unique_ptr<persistence::MemberWatch>> made =
            store->Watch([self, stopped] {
              if (!*stopped) self.Tell(Changed{});
            });
        if (made.ok()) {
          watch->watch = *std::move(made);
          watch->warned = false;
        } else if (!watch->warned) {
          watch->warned = true;
          log.Warning(absl::StrCat(
              "watching the members failed (reading every ",
              absl::FormatDuration(refresh),
              " and trying again meanwhile): ", made.status().ToString()));
        }
      });
}

void ClusterDaemon::RemoveOwnRow(Promise<Done> done) {
  removing_ = true;
  Timers().Cancel("renew");
  std::shared_ptr<persistence::MemberStore> store = shared_->store;
  const std::string address = SelfAddress();
  const int64_t uid = SelfUid();
  ActorRef self = Self();
  std::shared_ptr<std::atomic<bool>> stopped = stopped_;
  shared_->store_thread->Post(
      [store, address, uid, self, stopped, done]() mutable {
        absl::Status s = store->Remove(address, uid);
        if (*stopped) {
          done.TrySetValue(Done{});
        } else {
          self.Tell(LeaveStepDone{std::move(s), std::nullopt, done});
        }
      });
}

template <typename Call>
void ClusterDaemon::OnStoreThread(Call call) {
  shared_->store_thread->Post([store = shared_->store, self = Self(),
                               stopped = stopped_,
                               call = std::move(call)]() mutable {
    if (*stopped) return;
    auto outcome = call(*store);
    if (!*stopped) self.Tell(std::move(outcome));
  });
}

void ClusterDaemon::Renew() {
  if (downed_ || left_ || removing_ || renewing_) return;
  renewing_ = true;
  const absl::Duration ttl = shared_->settings.member_ttl;
  if (!joined_) {
    MemberRecord row;
    row.address = SelfAddress();
    row.uid = SelfUid();
    row.roles = shared_->settings.roles;
    OnStoreThread([row, ttl](persistence::MemberStore& store) {
      return JoinDone{store.Join(row, ttl)};
    });
    return;
  }
  OnStoreThread([address = SelfAddress(), uid = SelfUid(),
                 ttl](persistence::MemberStore& store) {
    return RenewDone{store.Renew(address, uid, ttl)};
  });
}

std::string ClusterDaemon::SelfAddress() const {
  return shared_->self.address.ToString();
}

int64_t ClusterDaemon::SelfUid() const {
  return static_cast<int64_t>(shared_->self.uid);
}

void ClusterDaemon::Read() {
  if (reading_) {
    read_again_ = true;
    return;
  }
  reading_ = true;
  OnStoreThread(
      [](persistence::MemberStore& store) { return ReadDone{store.Read()}; });
}

void ClusterDaemon::Apply(const MemberSnapshot& snapshot) {
  std::map<std::string, Seen> now;
  std::vector<AnyMessage> events;
  std::vector<std::pair<std::string, int64_t>> ran_out;
  for (const MemberRecord& row : snapshot.members) {
    absl::StatusOr<actor::Address> address = actor::Address::Parse(row.address);
    if (!address.ok()) {
      log_.Warning(absl::StrCat("a member row's address '", row.address,
                                "' is not an address: skipped"));
      continue;
    }
    Seen seen;
    seen.member.unique_address = {*address, static_cast<uint64_t>(row.uid)};
    seen.member.status = FromStored(row.status);
    seen.member.roles = row.roles;
    const bool expired = row.expires <= snapshot.now;
    auto old = members_.find(row.address);
    const bool same =
        old != members_.end() &&
        old->second.member.unique_address == seen.member.unique_address;
    if (old != members_.end() && !same) {  // another incarnation
      Member gone = old->second.member;
      const MemberStatus previous = gone.status;
      gone.status = MemberStatus::kRemoved;
      events.push_back(AnyMessage::Of(MemberRemoved{gone, previous}));
    }
    if (!same || old->second.member.status != seen.member.status) {
      events.push_back(StatusEvent(seen.member));
    }
    const bool is_self = seen.member.unique_address == shared_->self;
    if (is_self) {
      // Fresh: counted from the first read that found it so.
      if (expired) {
        fresh_since_.reset();
      } else if (!fresh_since_.has_value()) {
        fresh_since_ = snapshot.now;
      }
    }
    const bool was_unreachable = same && old->second.unreachable;
    // Never this member itself (as Akka): its own row running out means
    // it may be removed, which it learns when its row is gone.
    seen.unreachable = expired && !is_self;
    if (seen.unreachable && !was_unreachable) {
      events.push_back(AnyMessage::Of(UnreachableMember{seen.member}));
    } else if (!seen.unreachable && was_unreachable) {
      events.push_back(AnyMessage::Of(ReachableMember{seen.member}));
    }
    if (seen.unreachable) ran_out.emplace_back(row.address, row.uid);
    now.emplace(row.address, std::move(seen));
  }
  for (const auto& [address, seen] : members_) {
    if (now.contains(address)) continue;  // replaced ones are told above
    Member gone = seen.member;
    gone.status = MemberStatus::kRemoved;
    events.push_back(AnyMessage::Of(MemberRemoved{gone, seen.member.status}));
  }
  members_ = std::move(now);
  // The view first: a subscriber told of a change finds it in State().
  UpdateShared();
  for (const AnyMessage& event : events) Publish(event);

  const auto self = members_.find(SelfAddress());
  const bool self_there = self != members_.end() &&
                          self->second.member.unique_address == shared_->self;
  if (!self_there) fresh_since_.reset();
  if (joined_ && !self_there && !left_ && !removing_ && !downed_) {
    Downed(
        "its row is gone: it ran out and was removed, or another "
        "incarnation took its address");
  }
  // Down: the first member to see a row run out removes it; the others'
  // attempts find nothing to do. Only a member whose own row has been
  // fresh for member-ttl decides: after an outage of the store every row
  // ran out, and the members renew one after the other.
  if (!fresh_since_.has_value() ||
      snapshot.now - *fresh_since_ < shared_->settings.member_ttl) {
    return;
  }
  for (const auto& [down_address, down_uid] : ran_out) {
    // Copies: clang does not capture structured bindings.
    const std::string address = down_address;
    const int64_t uid = down_uid;
    std::shared_ptr<persistence::MemberStore> store = shared_->store;
    std::shared_ptr<std::atomic<bool>> stopped = stopped_;
    shared_->store_thread->Post([store, address, uid, stopped, log = log_] {
      if (*stopped) return;
      absl::StatusOr<bool> removed = store->RemoveIfExpired(address, uid);
      if (!removed.ok()) {
        log.Warning(absl::StrCat("removing ", address, " (its row ran out): ",
                                 removed.status().ToString()));
      } else if (*removed) {
        log.Info(absl::StrCat("removed ", address, " uid ", uid,
                              ": its row ran out"));
      }
    });
  }
}

void ClusterDaemon::Publish(const AnyMessage& event) {
  for (const ActorRef& subscriber : subscribers_) {
    subscriber.TellAny(event, Self());
  }
}

void ClusterDaemon::SendInitialState(const ActorRef& to,
                                     InitialStateMode mode) {
  if (mode == InitialStateMode::kAsSnapshot) {
    base::MutexLock lock(&shared_->mu);
    to.Tell(shared_->state, Self());
    return;
  }
  for (const auto& [address, seen] : members_) {
    to.TellAny(StatusEvent(seen.member), Self());
    if (seen.unreachable) to.Tell(UnreachableMember{seen.member}, Self());
  }
}

void ClusterDaemon::UpdateShared() {
  CurrentClusterState state;
  MemberStatus self_status = MemberStatus::kRemoved;
  for (const auto& [address, seen] : members_) {
    state.members.push_back(seen.member);
    if (seen.unreachable) state.unreachable.push_back(seen.member);
    if (seen.member.unique_address == shared_->self) {
      self_status = seen.member.status;
    }
  }
  base::MutexLock lock(&shared_->mu);
  shared_->state = std::move(state);
  shared_->self_status = self_status;
}

void ClusterDaemon::Downed(const std::string& why) {
  if (downed_ || left_ || removing_) return;
  downed_ = true;
  Timers().Cancel("renew");
  log_.Warning(absl::StrCat("this member ", shared_->self.ToString(),
                            " was removed from the cluster: ", why));
  if (shared_->settings.run_coordinated_shutdown_when_down) {
    Context().System().GetCoordinatedShutdown().Run("cluster downing");
  }
}

}  // namespace cairn::cluster::internal
