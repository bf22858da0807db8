// The cluster's membership between systems in one process sharing an
// InMemoryMemberStore (as processes share PostgreSQL): each joins and
// sees the others up, a subscriber gets the members there are first, a
// member that leaves is seen removed, one that stops renewing is seen
// unreachable, removed, and shuts itself down; bad setups fail Create.
// Real time, with short intervals: every wait has a deadline.
#include "cluster/cluster.h"

#include <atomic>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_probe.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "cluster/cluster_setup.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/inmem/in_memory_member_store.h"

namespace cairn::cluster {
namespace {

using actor::ActorSystem;
using actor::testkit::TestProbe;
using persistence::InMemoryMemberStore;
using persistence::MemberStore;
using ::testing::HasSubstr;

constexpr absl::Duration kTimeout = absl::Seconds(20);

constexpr char kConfig[] = R"(
  akka.loglevel = ERROR
  akka.actor.provider = cluster
  akka.remote.artery.canonical.hostname = "127.0.0.1"
  akka.remote.artery.canonical.port = 0
  akka.cluster.membership {
    member-ttl = 3s
    renew-interval = 300ms
    refresh-interval = 100ms
  }
)";

absl::StatusOr<std::unique_ptr<ActorSystem>> MakeSystem(
    const std::string& name, std::shared_ptr<MemberStore> store,
    const std::string& extra = "") {
  absl::StatusOr<hocon::Config> config =
      hocon::Config::ParseString(absl::StrCat(kConfig, extra));
  if (!config.ok()) return config.status();
  actor::ActorSystemOptions options;
  if (store != nullptr) {
    options.setup = actor::ActorSystemSetup().With(ClusterSetup{store});
  }
  return ActorSystem::Create(name, *config, std::move(options));
}

// A store as one process sees it: while paused, its renewals pretend to
// work and reach nothing (a process paused past its row's time to live
// that has not noticed yet); its first watches may be refused (the
// database unreachable for a while).
class PausableStore final : public MemberStore {
 public:
  explicit PausableStore(std::shared_ptr<MemberStore> store)
      : store_(std::move(store)) {}
  void Pause() { paused_ = true; }
  // While cut off, every call fails (the database unreachable).
  void CutOff(bool cut) { cut_off_ = cut; }
  void RefuseWatches(int n) { refusals_ = n; }
  // Joins wait until ReleaseJoins (a slow database while a member starts).
  void HoldJoins() {
    base::MutexLock lock(&mu_);
    holding_ = true;
  }
  void ReleaseJoins() {
    base::MutexLock lock(&mu_);
    holding_ = false;
    released_.SignalAll();
  }
  // Waits until a Join is held; false at the deadline.
  bool AwaitJoinHeld() {
    const absl::Time deadline = absl::Now() + kTimeout;
    base::MutexLock lock(&mu_);
    while (held_ == 0) {
      if (released_.WaitWithDeadline(&mu_, deadline)) return held_ > 0;
    }
    return true;
  }
  // Watches made, not counting refusals.
  int watches() const { return watches_.load(); }

  absl::Status Join(const persistence::MemberRecord& m,
                    absl::Duration ttl) override {
    if (cut_off_) return absl::UnavailableError("cut off");
    {
      base::MutexLock lock(&mu_);
      if (holding_) {
        ++held_;
        released_.SignalAll();
        while (holding_) released_.Wait(&mu_);
      }
    }
    return store_->Join(m, ttl);
  }
  absl::Status Renew(const std::string& address, int64_t uid,
                     absl::Duration ttl) override {
    if (cut_off_) return absl::UnavailableError("cut off");
    if (paused_) return absl::OkStatus();
    return store_->Renew(address, uid, ttl);
  }
  absl::Status SetStatus(const std::string& address, int64_t uid,
                         persistence::MemberStatus status) override {
    if (cut_off_) return absl::UnavailableError("cut off");
    return store_->SetStatus(address, uid, status);
  }
  absl::Status Remove(const std::string& address, int64_t uid) override {
    if (cut_off_) return absl::UnavailableError("cut off");
    return store_->Remove(address, uid);
  }
  absl::StatusOr<bool> RemoveIfExpired(const std::string& address,
                                       int64_t uid) override {
    if (cut_off_) return absl::UnavailableError("cut off");
    return store_->RemoveIfExpired(address, uid);
  }
  absl::StatusOr<persistence::MemberSnapshot> Read() override {
    if (cut_off_) return absl::UnavailableError("cut off");
    return store_->Read();
  }
  absl::StatusOr<std::unique_ptr<persistence::MemberWatch>> Watch(
      std::function<void()> changed) override {
    if (refusals_.fetch_sub(1) > 0) return absl::UnavailableError("down");
    ++watches_;
    return store_->Watch(std::move(changed));
  }

 private:
  const std::shared_ptr<MemberStore> store_;
  std::atomic<bool> paused_{false};
  std::atomic<bool> cut_off_{false};
  std::atomic<int> refusals_{0};
  std::atomic<int> watches_{0};
  base::Mutex mu_;
  base::CondVar released_;
  bool holding_ ABSL_GUARDED_BY(mu_) = false;
  int held_ ABSL_GUARDED_BY(mu_) = 0;
};

class ClusterTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (auto& system : systems_) {
      if (system != nullptr) system->Terminate().wait();
    }
  }

  // A member on `store` (store_ when null), kept until the test's end.
  ActorSystem* Start(const std::string& name,
                     std::shared_ptr<MemberStore> store = nullptr,
                     const std::string& extra = "") {
    absl::StatusOr<std::unique_ptr<ActorSystem>> system =
        MakeSystem(name, store == nullptr ? store_ : store, extra);
    EXPECT_OK(system);
    if (!system.ok()) return nullptr;
    systems_.push_back(*std::move(system));
    return systems_.back().get();
  }

  // Waits on `probe` (subscribed as events) until every system of
  // `systems` was told up.
  static void ExpectUp(TestProbe& probe,
                       const std::vector<ActorSystem*>& systems) {
    std::set<std::string> waiting;
    for (ActorSystem* s : systems) waiting.insert(s->address().ToString());
    while (!waiting.empty()) {
      MemberUp up = probe.FishForMessage<MemberUp>(
          [](const MemberUp&) { return true; }, kTimeout);
      waiting.erase(up.member.address().ToString());
    }
  }

  // Waits on `probe` for the removal of `member`, failing if it is told
  // unreachable first (a graceful leave never is).
  static MemberRemoved ExpectLeft(TestProbe& probe,
                                  const UniqueAddress& member) {
    while (true) {
      actor::AnyMessage m = probe.ReceiveOne(kTimeout);
      if (const auto* u = m.As<UnreachableMember>();
          u != nullptr && u->member.unique_address == member) {
        ADD_FAILURE() << member.ToString() << " was told unreachable";
      }
      if (const auto* r = m.As<MemberRemoved>();
          r != nullptr && r->member.unique_address == member) {
        return *r;
      }
    }
  }

  std::shared_ptr<MemberStore> store_ = std::make_shared<InMemoryMemberStore>();
  std::vector<std::unique_ptr<ActorSystem>> systems_;
};

TEST_F(ClusterTest, MembersSeeEachOtherUpWithTheirRoles) {
  ActorSystem* a = Start("a", nullptr, "akka.cluster.roles = [front]");
  ActorSystem* b = Start("b", nullptr, "akka.cluster.roles = [back, x]");
  ActorSystem* c = Start("c");
  ASSERT_TRUE(a != nullptr && b != nullptr && c != nullptr);
  TestProbe events(*a);
  Cluster::Get(*a).Subscribe(events.Ref(), InitialStateMode::kAsEvents);
  ExpectUp(events, {a, b, c});

  // The view is there before the events that told of it.
  CurrentClusterState state = Cluster::Get(*a).State();
  ASSERT_EQ(state.members.size(), 3u);
  EXPECT_TRUE(state.unreachable.empty());
  for (const Member& m : state.members) {
    EXPECT_EQ(m.status, MemberStatus::kUp);
    if (m.unique_address == Cluster::Get(*b).SelfUniqueAddress()) {
      EXPECT_EQ(m.roles, (std::vector<std::string>{"back", "x"}));
      EXPECT_TRUE(m.HasRole("x"));
    }
  }
  EXPECT_EQ(Cluster::Get(*a).SelfMember().status, MemberStatus::kUp);
  EXPECT_EQ(Cluster::Get(*a).SelfMember().roles,
            std::vector<std::string>{"front"});
  EXPECT_NE(Cluster::Get(*a).SelfUniqueAddress().uid, 0u);

  // A late subscriber gets the members there are (a's view has all three
  // now) as a snapshot first.
  TestProbe late(*a);
  Cluster::Get(*a).Subscribe(late.Ref(), InitialStateMode::kAsSnapshot);
  EXPECT_EQ(late.ExpectMsg<CurrentClusterState>(kTimeout).members.size(), 3u);
  // ...or as events.
  TestProbe as_events(*a);
  Cluster::Get(*a).Subscribe(as_events.Ref(), InitialStateMode::kAsEvents);
  for (int i = 0; i < 3; ++i) as_events.ExpectMsg<MemberUp>(kTimeout);
}

TEST_F(ClusterTest, AMemberThatLeavesIsSeenRemoved) {
  ActorSystem* a = Start("a");
  ActorSystem* b = Start("b");
  ASSERT_TRUE(a != nullptr && b != nullptr);
  TestProbe events(*a);
  Cluster::Get(*a).Subscribe(events.Ref(), InitialStateMode::kAsEvents);
  ExpectUp(events, {a, b});
  const UniqueAddress leaving = Cluster::Get(*b).SelfUniqueAddress();

  b->GetCoordinatedShutdown().Run("leaving");  // cluster-leave ... -shutdown
  MemberRemoved removed = ExpectLeft(events, leaving);
  EXPECT_EQ(removed.member.status, MemberStatus::kRemoved);
  EXPECT_TRUE(b->WhenTerminated().wait_for(kTimeout));
  ASSERT_OK_AND_ASSIGN(persistence::MemberSnapshot rows, store_->Read());
  ASSERT_EQ(rows.members.size(), 1u);  // its row is gone, a's stays
  EXPECT_EQ(rows.members[0].address, a->address().ToString());
}

TEST_F(ClusterTest, AMemberThatStopsRenewingIsRemovedAndShutsDown) {
  ActorSystem* a = Start("a");
  auto paused = std::make_shared<PausableStore>(store_);
  ActorSystem* b = Start("b", paused);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  TestProbe events(*a);
  Cluster::Get(*a).Subscribe(events.Ref(), InitialStateMode::kAsEvents);
  ExpectUp(events, {a, b});
  const UniqueAddress stuck = Cluster::Get(*b).SelfUniqueAddress();

  paused->Pause();  // its row runs out within member-ttl
  UnreachableMember unreachable = events.FishForMessage<UnreachableMember>(
      [&](const UnreachableMember& u) {
        return u.member.unique_address == stuck;
      },
      kTimeout);
  EXPECT_EQ(unreachable.member.status, MemberStatus::kUp);
  events.FishForMessage<MemberRemoved>(
      [&](const MemberRemoved& r) { return r.member.unique_address == stuck; },
      kTimeout);
  // It learns it was removed, and does not come back under its uid.
  EXPECT_TRUE(b->WhenTerminated().wait_for(kTimeout));
  EXPECT_EQ(Cluster::Get(*a).State().members.size(), 1u);
}

TEST_F(ClusterTest, AShutdownWhileJoiningLeavesNoRow) {
  auto slow = std::make_shared<PausableStore>(store_);
  slow->HoldJoins();
  ActorSystem* a = Start("a", slow);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(slow->AwaitJoinHeld());  // its row is being written
  a->GetCoordinatedShutdown().Run("leaving at once");
  slow->ReleaseJoins();  // the Join lands after the shutdown began
  ASSERT_TRUE(a->WhenTerminated().wait_for(kTimeout));
  ASSERT_OK_AND_ASSIGN(persistence::MemberSnapshot rows, store_->Read());
  EXPECT_TRUE(rows.members.empty());
}

TEST_F(ClusterTest, AnOutageOfTheStoreRemovesNobody) {
  std::vector<std::shared_ptr<PausableStore>> views;
  std::vector<ActorSystem*> systems;
  for (const char* name : {"a", "b", "c"}) {
    views.push_back(std::make_shared<PausableStore>(store_));
    systems.push_back(Start(name, views.back()));
    ASSERT_NE(systems.back(), nullptr);
  }
  TestProbe events(*systems[0]);
  Cluster::Get(*systems[0])
      .Subscribe(events.Ref(), InitialStateMode::kAsEvents);
  ExpectUp(events, systems);

  // Every member cut off from the store until every row ran out...
  for (auto& view : views) view->CutOff(true);
  const auto rows_where = [&](const std::function<bool(bool)>& fresh) {
    const absl::Time deadline = absl::Now() + kTimeout;
    while (absl::Now() < deadline) {
      absl::StatusOr<persistence::MemberSnapshot> read = store_->Read();
      if (read.ok() && read->members.size() == 3) {
        bool all = true;
        for (const auto& m : read->members) {
          all = all && fresh(m.expires > read->now);
        }
        if (all) return true;
      }
      absl::SleepFor(absl::Milliseconds(20));  // polling the store
    }
    return false;
  };
  ASSERT_TRUE(rows_where([](bool fresh) { return !fresh; }));
  // ...then back: each renews in its own time, and none may take the
  // others' rows, run out while it was cut off too, for a verdict.
  for (auto& view : views) view->CutOff(false);
  EXPECT_TRUE(rows_where([](bool fresh) { return fresh; }))
      << "a member was removed after the outage";
  for (ActorSystem* s : systems) {
    EXPECT_FALSE(s->WhenTerminated().wait_for(absl::ZeroDuration()));
  }
}

TEST_F(ClusterTest, AWatchThatFailedIsTriedAgain) {
  auto flaky = std::make_shared<PausableStore>(store_);
  flaky->RefuseWatches(2);
  ActorSystem* a = Start("a", flaky);
  ASSERT_NE(a, nullptr);
  TestProbe events(*a);
  Cluster::Get(*a).Subscribe(events.Ref(), InitialStateMode::kAsEvents);
  ExpectUp(events, {a});
  // Tried again on each refresh until one is made.
  const absl::Time deadline = absl::Now() + kTimeout;
  while (flaky->watches() == 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));  // polling a counter
  }
  EXPECT_EQ(flaky->watches(), 1);
}

TEST_F(ClusterTest, TheClusterProviderNeedsAMemberStore) {
  absl::StatusOr<std::unique_ptr<ActorSystem>> system =
      MakeSystem("lonely", nullptr);
  EXPECT_EQ(system.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(system.status().message()),
              HasSubstr("ClusterSetup"));
}

TEST_F(ClusterTest, BadSettingsFailCreateNamingTheKey) {
  absl::StatusOr<std::unique_ptr<ActorSystem>> system =
      MakeSystem("bad", store_, "akka.cluster.membership.renew-interval = 5s");
  EXPECT_EQ(system.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(system.status().message()),
              HasSubstr("akka.cluster.membership.renew-interval"));
}

TEST(ClusterWithoutProviderTest, IsEmpty) {
  absl::StatusOr<std::unique_ptr<ActorSystem>> system =
      ActorSystem::Create("local", *hocon::Config::ParseString(""));
  ASSERT_OK(system);
  Cluster& cluster = Cluster::Get(**system);
  EXPECT_TRUE(cluster.State().members.empty());
  EXPECT_EQ(cluster.SelfMember().status, MemberStatus::kRemoved);
  TestProbe probe(**system);
  cluster.Subscribe(probe.Ref(), InitialStateMode::kAsSnapshot);
  EXPECT_TRUE(probe.ExpectMsg<CurrentClusterState>(kTimeout).members.empty());
  (*system)->Terminate().wait();
}

}  // namespace
}  // namespace cairn::cluster
