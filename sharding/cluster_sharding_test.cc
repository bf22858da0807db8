// Regions across the members of a cluster (systems in one process with
// the cluster provider, remoting on 127.0.0.1, sharing an in-memory member
// store and lease store as processes share PostgreSQL): an entity lives in
// one member and is reached from every member and from proxies; a free
// shard goes where rendezvous hashing puts it; a shard held by a member
// stays there when a member joins that would be chosen now; a member that
// left gives its shards up to the others. Real time, short intervals:
// every wait has a deadline.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "actor/testkit/test_probe.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "cluster/cluster.h"
#include "cluster/cluster_setup.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/inmem/in_memory_lease_store.h"
#include "persistence/inmem/in_memory_member_store.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/persistence.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/plugin_registry.h"
#include "sharding/entity_region.h"
#include "sharding/internal/region_route.h"
#include "sharding/internal/rendezvous.h"
#include "sharding/internal/routing_messages.h"
#include "sharding/message_extractor.h"

namespace cairn::sharding {
namespace {

using actor::ActorRef;
using actor::ActorSystem;
using actor::testkit::TestProbe;
using ::testing::HasSubstr;

constexpr absl::Duration kTimeout = absl::Seconds(20);
constexpr int kShards = 64;  // enough that every ranking the tests need occurs

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

// How many Counters were told "stop" (the region's stop message in the
// hand-off tests: a hand-off in progress).
std::atomic<int> told_to_stop{0};

// What a Counter does when told "stop".
enum class OnStop {
  kCount,   // nothing special: counted and answered like any message
  kSlowly,  // stops 300 ms later: a hand-off lasts long enough to send into
  kIgnore,  // never stops: only the hand-off timeout ends its shard's
};

// Counts the messages it gets and answers each with
// "<its system's address>|<id>|<count>|<the message>".
class Counter final : public actor::Actor {
 public:
  explicit Counter(std::string id, OnStop on_stop = OnStop::kCount)
      : id_(std::move(id)) {
    Receive<std::string>([this, on_stop](const std::string& text) {
      if (text == "stop" && on_stop != OnStop::kCount) {
        ++told_to_stop;
        if (on_stop == OnStop::kSlowly) {
          Timers().StartSingleTimer(std::string("stop"), actor::PoisonPill{},
                                    absl::Milliseconds(300));
        }
        return;
      }
      ++count_;
      Sender().Tell(absl::StrCat(Context().System().address().ToString(), "|",
                                 id_, "|", count_, "|", text));
    });
  }

 private:
  const std::string id_;
  int count_ = 0;
};

struct Reply {
  std::string host;
  std::string id;
  int count = 0;
  std::string text;
};

Reply Parse(const std::string& text) {
  std::vector<std::string> parts = absl::StrSplit(text, '|');
  Reply r;
  if (parts.size() != 4) return r;
  r.host = parts[0];
  r.id = parts[1];
  r.count = std::stoi(parts[2]);
  r.text = parts[3];
  return r;
}

// Sends on whatever it gets to `to`, with its sender.
class Relay final : public actor::Actor {
 public:
  explicit Relay(ActorRef to) {
    ReceiveAny(
        [this, to](const actor::AnyMessage& m) { to.TellAny(m, Sender()); });
  }
};

// An actor of a member that sends through a region, which may then send
// its messages straight to their shard's home on its thread (the region's
// send route; a probe's messages always go through the region's mailbox).
// Told a Burst, it sends `per_entity` numbered messages "m<k>" to each of
// `ids` in turn, a few per turn of its own mailbox so that the region runs
// in between, with itself as the sender; it passes each answer on to
// `to`.
struct Burst {
  ActorRef region;
  std::vector<std::string> ids;
  int per_entity = 0;
};

class BurstSender final : public actor::Actor {
 public:
  explicit BurstSender(ActorRef to) {
    Receive<Burst>([this](const Burst& burst) {
      burst_ = burst;
      next_ = 0;
      SendSome();
    });
    Receive<Next>([this](const Next&) { SendSome(); });
    Receive<std::string>([to](const std::string& text) { to.Tell(text); });
  }

 private:
  struct Next {};
  static constexpr int kPerTurn = 7;

  void SendSome() {
    const int total = burst_.per_entity * static_cast<int>(burst_.ids.size());
    for (int i = 0; i < kPerTurn && next_ < total; ++i, ++next_) {
      const std::string& id = burst_.ids[next_ % burst_.ids.size()];
      const int k = next_ / static_cast<int>(burst_.ids.size());
      burst_.region.Tell(
          ShardingEnvelope{id, actor::AnyMessage::Of(absl::StrCat("m", k))},
          Self());
    }
    if (next_ < total) Self().Tell(Next{});
  }

  Burst burst_;
  int next_ = 0;
};

// A lease store whose first read of each lease's holder says nobody holds
// it (a read that is stale the moment it is made: the lease was acquired
// right after). Counts the acquisitions refused.
class StaleOnceLeases final : public persistence::LeaseStore {
 public:
  explicit StaleOnceLeases(std::shared_ptr<persistence::LeaseStore> store)
      : store_(std::move(store)) {}
  absl::StatusOr<persistence::WriteFence> Acquire(const std::string& lease,
                                                  const std::string& owner,
                                                  absl::Duration ttl) override {
    absl::StatusOr<persistence::WriteFence> got =
        store_->Acquire(lease, owner, ttl);
    if (got.status().code() == absl::StatusCode::kFailedPrecondition) {
      ++refused_;
    }
    return got;
  }
  absl::Status Renew(const persistence::WriteFence& fence,
                     absl::Duration ttl) override {
    return store_->Renew(fence, ttl);
  }
  absl::Status Release(const persistence::WriteFence& fence) override {
    return store_->Release(fence);
  }
  absl::StatusOr<std::optional<persistence::LeaseHolding>> Holder(
      const std::string& lease) override {
    {
      base::MutexLock lock(&mu_);
      if (read_.insert(lease).second) {
        return std::optional<persistence::LeaseHolding>();
      }
    }
    return store_->Holder(lease);
  }
  int refused() const { return refused_.load(); }

 private:
  const std::shared_ptr<persistence::LeaseStore> store_;
  base::Mutex mu_;
  std::set<std::string> read_ ABSL_GUARDED_BY(mu_);
  std::atomic<int> refused_{0};
};

// A lease store whose reads of a holder, once Hold() is called, wait until
// Release() (a slow store): what a region sends on after such a read waits
// with it.
class HeldHolderReads final : public persistence::LeaseStore {
 public:
  explicit HeldHolderReads(std::shared_ptr<persistence::LeaseStore> store)
      : store_(std::move(store)) {}
  ~HeldHolderReads() override { Release(); }
  absl::StatusOr<persistence::WriteFence> Acquire(const std::string& lease,
                                                  const std::string& owner,
                                                  absl::Duration ttl) override {
    return store_->Acquire(lease, owner, ttl);
  }
  absl::Status Renew(const persistence::WriteFence& fence,
                     absl::Duration ttl) override {
    return store_->Renew(fence, ttl);
  }
  absl::Status Release(const persistence::WriteFence& fence) override {
    return store_->Release(fence);
  }
  absl::StatusOr<std::optional<persistence::LeaseHolding>> Holder(
      const std::string& lease) override {
    {
      base::MutexLock lock(&mu_);
      ++waiting_;
      while (hold_) changed_.Wait(&mu_);
      --waiting_;
    }
    return store_->Holder(lease);
  }
  void Hold() {
    base::MutexLock lock(&mu_);
    hold_ = true;
  }
  void Release() {
    base::MutexLock lock(&mu_);
    hold_ = false;
    changed_.SignalAll();
  }
  // How many reads wait now.
  int waiting() {
    base::MutexLock lock(&mu_);
    return waiting_;
  }

 private:
  const std::shared_ptr<persistence::LeaseStore> store_;
  base::Mutex mu_;
  base::CondVar changed_;
  bool hold_ ABSL_GUARDED_BY(mu_) = false;
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;
};

// Once Hold() is called, holds back every write to a region's stream of
// shard ids (what remember entities writes before it starts a shard);
// held writes fail when the journal closes.
class HeldIdWrites final : public persistence::JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  ~HeldIdWrites() override {
    for (WriteCallback& done : held_) {
      std::move(done)(absl::CancelledError("closing"), {});
    }
  }
  void AsyncWriteMessages(std::vector<persistence::AtomicWrite> writes,
                          WriteCallback done) override {
    {
      base::MutexLock lock(&mu_);
      if (hold_ && !writes.empty() && !writes[0].events.empty() &&
          absl::StartsWith(writes[0].events[0].persistence_id, "/sharding/")) {
        held_.push_back(std::move(done));
        return;
      }
    }
    target().AsyncWriteMessages(std::move(writes), std::move(done));
  }
  void Hold() {
    base::MutexLock lock(&mu_);
    hold_ = true;
  }
  std::size_t held() {
    base::MutexLock lock(&mu_);
    return held_.size();
  }

 private:
  base::Mutex mu_;
  bool hold_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<WriteCallback> held_ ABSL_GUARDED_BY(mu_);
};

constexpr char kHeldJournal[] = "held-ids-journal";
constexpr char kInMemoryPersistence[] = R"(
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin =
      "akka.persistence.snapshot-store.inmem"
)";

// Gives `system` the journal kHeldJournal (an in-memory one in a
// HeldIdWrites), stored in `journal` when it is made.
void AddHeldJournal(ActorSystem& system, std::atomic<HeldIdWrites*>* journal) {
  persistence::PersistenceSetup setup;
  setup.register_plugins = [journal](persistence::PluginRegistry& plugins) {
    return plugins.RegisterJournal(
        kHeldJournal,
        [journal](const persistence::PluginContext& context)
            -> absl::StatusOr<std::unique_ptr<persistence::Journal>> {
          auto held = std::make_unique<HeldIdWrites>(
              persistence::NewInMemoryJournal(context.serialization));
          journal->store(held.get());
          return std::unique_ptr<persistence::Journal>(std::move(held));
        });
  };
  EXPECT_OK(persistence::Persistence::Get(system).Setup(std::move(setup)));
}

class ClusterShardingTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (auto& system : systems_) system->Terminate().wait();
  }

  ActorSystem* StartSystem(const std::string& extra = "") {
    absl::StatusOr<hocon::Config> config =
        hocon::Config::ParseString(absl::StrCat(kConfig, extra));
    EXPECT_OK(config);
    if (!config.ok()) return nullptr;
    actor::ActorSystemOptions options;
    options.setup =
        actor::ActorSystemSetup().With(cluster::ClusterSetup{members_});
    absl::StatusOr<std::unique_ptr<ActorSystem>> system =
        ActorSystem::Create("shop", *config, std::move(options));
    EXPECT_OK(system);
    if (!system.ok()) return nullptr;
    systems_.push_back(*std::move(system));
    return systems_.back().get();
  }

  EntityRegionSettings Settings(bool with_leases = true) {
    EntityRegionSettings s;
    s.number_of_shards = kShards;
    s.lease_ttl = absl::Seconds(3);
    s.lease_retry_interval = absl::Milliseconds(100);
    s.rebalance_interval = absl::ZeroDuration();  // the rebalance test's own
    if (with_leases) s.lease_store = leases_;
    return s;
  }

  ActorRef StartRegion(ActorSystem& system) {
    return EntityRegion::Start(
        system, "counter",
        [](const std::string& id) { return actor::Props::Create<Counter>(id); },
        Settings(), std::make_shared<EnvelopeExtractor>());
  }

  // Waits until every system of `systems` sees `n` members up.
  static void AwaitMembers(const std::vector<ActorSystem*>& systems,
                           std::size_t n) {
    const absl::Time deadline = absl::Now() + kTimeout;
    for (ActorSystem* system : systems) {
      while (cluster::Cluster::Get(*system).State().members.size() != n) {
        ASSERT_LT(absl::Now(), deadline) << system->address().ToString()
                                         << " does not see " << n << " members";
        absl::SleepFor(absl::Milliseconds(10));
      }
    }
  }

  // Waits until each of `regions` knows `n` regions that take shards.
  static void AwaitRegions(
      const std::vector<std::pair<ActorSystem*, ActorRef>>& regions,
      std::size_t n) {
    const absl::Time deadline = absl::Now() + kTimeout;
    for (const auto& [system, region] : regions) {
      TestProbe probe(*system);
      while (true) {
        region.Tell(GetCurrentRegions{}, probe.Ref());
        if (probe.ExpectMsg<CurrentRegions>(kTimeout).regions.size() == n) {
          break;
        }
        ASSERT_LT(absl::Now(), deadline)
            << system->address().ToString() << " does not know " << n
            << " regions";
        absl::SleepFor(absl::Milliseconds(10));
      }
    }
  }

  // c leaves while a burst is sent to its entities (of `props`), by an
  // actor of a (`by_actor`: the region's route may send it straight on) or
  // by a probe (through the region's mailbox): each message arrives once,
  // in order, at the shard's next home.
  void LeaveDuringABurst(EntityRegion::EntityProps props,
                         absl::Duration handoff_timeout, bool by_actor);

  // Sends "inc" to `id` through `region` and returns the answer.
  static Reply Inc(ActorSystem& system, const ActorRef& region,
                   const std::string& id) {
    TestProbe probe(system);
    region.Tell(ShardingEnvelope{id, actor::AnyMessage::Of(std::string("inc"))},
                probe.Ref());
    return Parse(probe.ExpectMsg<std::string>(kTimeout));
  }

  // Inc, sent again until answered: while members see a change (one left)
  // a message may go to the member that left, and be lost.
  static Reply IncUntilAnswered(ActorSystem& system, const ActorRef& region,
                                const std::string& id) {
    TestProbe probe(system);
    const absl::Time deadline = absl::Now() + kTimeout;
    while (absl::Now() < deadline) {
      region.Tell(
          ShardingEnvelope{id, actor::AnyMessage::Of(std::string("inc"))},
          probe.Ref());
      try {
        return Parse(probe.ExpectMsg<std::string>(absl::Milliseconds(500)));
      } catch (const actor::testkit::TestKitAssertion&) {
      }
    }
    ADD_FAILURE() << "no answer from " << id;
    return Reply();
  }

  static std::string Address(ActorSystem& system) {
    return system.address().ToString();
  }

  // The entity id of a shard: the first "e<n>" that goes there.
  static std::string EntityOfShard(const std::string& shard) {
    for (int n = 0;; ++n) {
      std::string id = absl::StrCat("e", n);
      if (StableShardId(id, kShards) == shard) return id;
    }
  }

  std::shared_ptr<persistence::MemberStore> members_ =
      std::make_shared<persistence::InMemoryMemberStore>();
  std::shared_ptr<persistence::LeaseStore> leases_ =
      std::make_shared<persistence::InMemoryLeaseStore>();
  std::vector<std::unique_ptr<ActorSystem>> systems_;
};

TEST_F(ClusterShardingTest, EachEntityLivesInOneMemberAndEveryMemberReachesIt) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ActorSystem* c = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr && c != nullptr);
  AwaitMembers({a, b, c}, 3);
  std::vector<std::pair<ActorSystem*, ActorRef>> regions = {
      {a, StartRegion(*a)}, {b, StartRegion(*b)}, {c, StartRegion(*c)}};
  AwaitRegions(regions, 3);
  const std::vector<std::string> addresses = {Address(*a), Address(*b),
                                              Address(*c)};

  std::map<std::string, std::string> host_of;  // entity -> host
  std::set<std::string> hosts;
  for (int round = 1; round <= 2; ++round) {
    for (int e = 0; e < 30; ++e) {
      const std::string id = absl::StrCat("e", e);
      for (std::size_t r = 0; r < regions.size(); ++r) {
        Reply reply = Inc(*regions[r].first, regions[r].second, id);
        EXPECT_EQ(reply.id, id);
        // Every message reached the one entity: 3 per round so far.
        EXPECT_EQ(reply.count, (round - 1) * 3 + static_cast<int>(r) + 1)
            << id << " from " << Address(*regions[r].first);
        auto [it, first] = host_of.try_emplace(id, reply.host);
        EXPECT_EQ(it->second, reply.host) << id << " moved";
        hosts.insert(reply.host);
        // Nobody held the shard: it went where rendezvous hashing over
        // the three members puts it.
        EXPECT_EQ(reply.host, *internal::RendezvousHome(
                                  StableShardId(id, kShards), addresses))
            << id;
      }
    }
  }
  EXPECT_EQ(hosts.size(), 3u) << "30 entities all in fewer members";
}

TEST_F(ClusterShardingTest, AProxyHostsNothingAndReachesEveryEntity) {
  ActorSystem* a = StartSystem("akka.cluster.roles = [counter]");
  ActorSystem* b = StartSystem("akka.cluster.roles = [counter]");
  ActorSystem* client = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr && client != nullptr);
  AwaitMembers({a, b, client}, 3);
  EntityRegionSettings settings = Settings();
  settings.role = "counter";
  auto props = [](const std::string& id) {
    return actor::Props::Create<Counter>(id);
  };
  EntityRegion::Start(*a, "counter", props, settings,
                      std::make_shared<EnvelopeExtractor>());
  EntityRegion::Start(*b, "counter", props, settings,
                      std::make_shared<EnvelopeExtractor>());
  EntityRegionSettings proxy_settings = Settings(/*with_leases=*/false);
  proxy_settings.role = "counter";
  ActorRef proxy =
      EntityRegion::StartProxy(*client, "counter", proxy_settings,
                               std::make_shared<EnvelopeExtractor>());
  AwaitRegions({{client, proxy}}, 2);
  std::set<std::string> hosts;
  for (int e = 0; e < 20; ++e) {
    const std::string id = absl::StrCat("e", e);
    Reply first = Inc(*client, proxy, id);
    Reply second = Inc(*client, proxy, id);
    EXPECT_EQ(first.count, 1) << id;
    EXPECT_EQ(second.count, 2) << id;
    EXPECT_EQ(first.host, second.host) << id;
    EXPECT_NE(first.host, Address(*client)) << id;
    hosts.insert(first.host);
  }
  EXPECT_EQ(hosts.size(), 2u);
}

// Each answer of `ids`' entities to a Burst of `per_entity`, read from
// `probe`, is the next of its entity in order, from one host.
void ExpectEachInOrder(TestProbe& probe, const std::vector<std::string>& ids,
                       int per_entity, int first_count = 1) {
  std::map<std::string, std::vector<Reply>> replies;
  for (std::size_t i = 0; i < ids.size() * per_entity; ++i) {
    Reply r = Parse(probe.ExpectMsg<std::string>(kTimeout));
    replies[r.id].push_back(r);
  }
  for (const std::string& id : ids) {
    ASSERT_EQ(replies[id].size(), static_cast<std::size_t>(per_entity)) << id;
    for (int k = 0; k < per_entity; ++k) {
      const Reply& r = replies[id][k];
      EXPECT_EQ(r.text, absl::StrCat("m", k)) << id;
      EXPECT_EQ(r.count, first_count + k) << id;
      EXPECT_EQ(r.host, replies[id][0].host) << id;
    }
  }
}

internal::RouteStats RouteStatsOf(ActorSystem& system, const ActorRef& region) {
  TestProbe probe(system);
  region.Tell(internal::GetRouteStats{}, probe.Ref());
  return probe.ExpectMsg<internal::RouteStats>(kTimeout);
}

TEST_F(ClusterShardingTest, AnActorsMessagesGoStraightToTheHomeAndKeepOrder) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr);
  AwaitMembers({a, b}, 2);
  ActorRef proxy =
      EntityRegion::StartProxy(*a, "counter", Settings(/*with_leases=*/false),
                               std::make_shared<EnvelopeExtractor>());
  ActorRef region_b = StartRegion(*b);
  AwaitRegions({{a, proxy}}, 1);
  TestProbe probe(*a);
  ActorRef sender =
      a->ActorOf(actor::Props::Create<BurstSender>(probe.Ref()), "sender");
  // No home is known when the burst starts: the first messages of each
  // shard wait in the proxy while it finds the home, the later ones go
  // straight there once it is known and nothing of the shard is queued.
  // In b, the same: the region starts the shards, then its route delivers
  // to them.
  const std::vector<std::string> ids = {"e1", "e2", "e3", "e4"};
  const int per_entity = 300;
  sender.Tell(Burst{proxy, ids, per_entity});
  ExpectEachInOrder(probe, ids, per_entity);
  // Answered once the region has finished every message it was left.
  const internal::RouteStats burst = RouteStatsOf(*a, proxy);
  const internal::RouteStats burst_b = RouteStatsOf(*b, region_b);
  EXPECT_GT(burst.declined, 0);
  EXPECT_EQ(burst.taken + burst.declined,
            static_cast<int64_t>(ids.size()) * per_entity);
  EXPECT_GT(burst_b.declined, 0);
  // With every home known and nothing queued, each message goes straight
  // to b, and there straight to its shard.
  sender.Tell(Burst{proxy, ids, 5});
  ExpectEachInOrder(probe, ids, 5, per_entity + 1);
  const internal::RouteStats after = RouteStatsOf(*a, proxy);
  const internal::RouteStats after_b = RouteStatsOf(*b, region_b);
  EXPECT_EQ(after.taken - burst.taken, static_cast<int64_t>(ids.size()) * 5);
  EXPECT_EQ(after.declined, burst.declined);
  EXPECT_EQ(after_b.taken - burst_b.taken,
            static_cast<int64_t>(ids.size()) * 5);
  EXPECT_EQ(after_b.declined, burst_b.declined);
}

TEST_F(ClusterShardingTest, AnActorsMessagesForAShardHereGoStraightToIt) {
  ActorSystem* a = StartSystem();
  ASSERT_TRUE(a != nullptr);
  AwaitMembers({a}, 1);
  ActorRef region = StartRegion(*a);
  AwaitRegions({{a, region}}, 1);
  TestProbe probe(*a);
  ActorRef sender =
      a->ActorOf(actor::Props::Create<BurstSender>(probe.Ref()), "sender");
  const std::vector<std::string> ids = {"e1", "e2", "e3"};
  sender.Tell(Burst{region, ids, 200});
  ExpectEachInOrder(probe, ids, 200);
  const internal::RouteStats burst = RouteStatsOf(*a, region);
  EXPECT_GT(burst.declined, 0);  // while the shards started
  // The shards hosted here, nothing queued: each message goes to its shard
  // without the region.
  sender.Tell(Burst{region, ids, 5});
  ExpectEachInOrder(probe, ids, 5, 201);
  const internal::RouteStats after = RouteStatsOf(*a, region);
  EXPECT_EQ(after.taken - burst.taken, static_cast<int64_t>(ids.size()) * 5);
  EXPECT_EQ(after.declined, burst.declined);
  for (const std::string& id : ids) {
    EXPECT_EQ(Inc(*a, region, id).host, Address(*a));
  }
}

// Takes every string for the entity it names, and anything else for "any".
class CatchAllExtractor final : public MessageExtractor {
 public:
  std::optional<std::string> EntityId(
      const actor::AnyMessage& message) const override {
    if (const std::string* text = message.As<std::string>()) return *text;
    return std::string("any");
  }
};

// Tells the region what it is given in an AskVia, with itself as the
// sender, and passes everything else (the answers) on.
struct AskVia {
  actor::AnyMessage message;
};

class Asker final : public actor::Actor {
 public:
  Asker(ActorRef region, ActorRef to) {
    Receive<AskVia>(
        [this, region](const AskVia& m) { region.TellAny(m.message, Self()); });
    ReceiveAny(
        [to](const actor::AnyMessage& m) { to.TellAny(m, actor::ActorRef()); });
  }
};

TEST_F(ClusterShardingTest, TheRouteLeavesTheRegionsOwnMessagesToIt) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr);
  AwaitMembers({a, b}, 2);
  auto props = [](const std::string& id) {
    return actor::Props::Create<Counter>(id);
  };
  ActorRef proxy =
      EntityRegion::StartProxy(*a, "counter", Settings(/*with_leases=*/false),
                               std::make_shared<CatchAllExtractor>());
  EntityRegion::Start(*b, "counter", props, Settings(),
                      std::make_shared<CatchAllExtractor>());
  AwaitRegions({{a, proxy}}, 1);
  TestProbe probe(*a);
  ActorRef asker =
      a->ActorOf(actor::Props::Create<Asker>(proxy, probe.Ref()), "asker");
  // The home of "x"'s shard found by the proxy (the stats' answer comes
  // after the proxy has finished the message), then used by the route.
  asker.Tell(AskVia{actor::AnyMessage::Of(std::string("x"))});
  EXPECT_THAT(probe.ExpectMsg<std::string>(kTimeout), HasSubstr("|x|1|x"));
  EXPECT_EQ(RouteStatsOf(*a, proxy).taken, 0);
  asker.Tell(AskVia{actor::AnyMessage::Of(std::string("x"))});
  EXPECT_THAT(probe.ExpectMsg<std::string>(kTimeout), HasSubstr("|x|2|x"));
  EXPECT_EQ(RouteStatsOf(*a, proxy).taken, 1);
  // A query the catch-all extractor would route to "any" is the region's.
  asker.Tell(AskVia{actor::AnyMessage::Of(GetShardRegionState{})});
  probe.ExpectMsg<CurrentShardRegionState>(kTimeout);
  // So is a StartEntity, answered by the shard's home.
  asker.Tell(AskVia{actor::AnyMessage::Of(StartEntity{"x"})});
  EXPECT_EQ(probe.ExpectMsg<StartEntityAck>(kTimeout).entity_id, "x");
  EXPECT_EQ(RouteStatsOf(*a, proxy).taken, 1);
}

TEST_F(ClusterShardingTest, AHeldShardStaysWithItsHolderWhenAMemberJoins) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr);
  AwaitMembers({a, b}, 2);
  ActorRef region_a = StartRegion(*a);
  ActorRef region_b = StartRegion(*b);
  AwaitRegions({{a, region_a}, {b, region_b}}, 2);
  // Every shard gets an entity, placed over a and b.
  std::map<std::string, std::string> host_of;
  for (int s = 0; s < kShards; ++s) {
    const std::string id = EntityOfShard(std::to_string(s));
    host_of[id] = Inc(*a, region_a, id).host;
  }
  ActorSystem* c = StartSystem();
  ASSERT_NE(c, nullptr);
  AwaitMembers({a, b, c}, 3);
  ActorRef region_c = StartRegion(*c);
  AwaitRegions({{a, region_a}, {b, region_b}, {c, region_c}}, 3);
  const std::vector<std::string> three = {Address(*a), Address(*b),
                                          Address(*c)};
  int would_go_to_c = 0;
  for (const auto& [id, host] : host_of) {
    if (*internal::RendezvousHome(StableShardId(id, kShards), three) ==
        Address(*c)) {
      ++would_go_to_c;
    }
    // c reads who holds the shard: its messages go there, not to itself.
    Reply from_c = Inc(*c, region_c, id);
    EXPECT_EQ(from_c.host, host) << id;
    EXPECT_EQ(from_c.count, 2) << id;
    Reply from_b = Inc(*b, region_b, id);
    EXPECT_EQ(from_b.host, host) << id;
    EXPECT_EQ(from_b.count, 3) << id;
  }
  EXPECT_GT(would_go_to_c, 0) << "no shard would be placed on c now";
}

TEST_F(ClusterShardingTest, AProxyWithoutLeasesLearnsTheHolderFromTheRegions) {
  // The proxy places by rendezvous over the members it sees; a region that
  // does not hold the shard reads who does and sends the messages on to
  // the holder, and tells the proxy where it is.
  ActorSystem* a = StartSystem("akka.cluster.roles = [counter]");
  ActorSystem* b = StartSystem("akka.cluster.roles = [counter]");
  ASSERT_TRUE(a != nullptr && b != nullptr);
  AwaitMembers({a, b}, 2);
  EntityRegionSettings settings = Settings();
  settings.role = "counter";
  auto props = [](const std::string& id) {
    return actor::Props::Create<Counter>(id);
  };
  ActorRef region_a = EntityRegion::Start(
      *a, "counter", props, settings, std::make_shared<EnvelopeExtractor>());
  EntityRegion::Start(*b, "counter", props, settings,
                      std::make_shared<EnvelopeExtractor>());
  AwaitRegions({{a, region_a}}, 2);
  std::map<std::string, std::string> host_of;
  for (int s = 0; s < kShards; ++s) {
    const std::string id = EntityOfShard(std::to_string(s));
    host_of[id] = Inc(*a, region_a, id).host;
  }
  ActorSystem* c = StartSystem("akka.cluster.roles = [counter]");
  ActorSystem* client = StartSystem();
  ASSERT_TRUE(c != nullptr && client != nullptr);
  AwaitMembers({a, b, c, client}, 4);
  EntityRegion::Start(*c, "counter", props, settings,
                      std::make_shared<EnvelopeExtractor>());
  EntityRegionSettings proxy_settings = Settings(/*with_leases=*/false);
  proxy_settings.role = "counter";
  ActorRef proxy =
      EntityRegion::StartProxy(*client, "counter", proxy_settings,
                               std::make_shared<EnvelopeExtractor>());
  AwaitRegions({{client, proxy}}, 3);
  const std::vector<std::string> three = {Address(*a), Address(*b),
                                          Address(*c)};
  int placed_on_c = 0;
  for (const auto& [id, host] : host_of) {
    if (*internal::RendezvousHome(StableShardId(id, kShards), three) ==
        Address(*c)) {
      ++placed_on_c;  // c reads that a or b holds these, and sends them on
    }
    // A burst, not waiting for answers: through c's decline and on to the
    // holder, each arrives once, in the order sent.
    TestProbe probe(*client);
    for (int k = 0; k < 10; ++k) {
      proxy.Tell(
          ShardingEnvelope{id, actor::AnyMessage::Of(absl::StrCat("m", k))},
          probe.Ref());
    }
    for (int k = 0; k < 10; ++k) {
      Reply reply = Parse(probe.ExpectMsg<std::string>(kTimeout));
      EXPECT_EQ(reply.host, host) << id;
      EXPECT_EQ(reply.count, k + 2) << id;
      EXPECT_EQ(reply.text, absl::StrCat("m", k)) << id;
    }
  }
  EXPECT_GT(placed_on_c, 0) << "the proxy never asked the wrong member";
}

TEST_F(ClusterShardingTest, AShardHeldElsewhereIsDeclinedAndGoesToItsHolder) {
  // Every shard on a, alone in the cluster (and not rebalanced).
  ActorSystem* a = StartSystem();
  ASSERT_NE(a, nullptr);
  AwaitMembers({a}, 1);
  EntityRegionSettings a_settings = Settings();
  a_settings.rebalance_interval = absl::ZeroDuration();
  auto props = [](const std::string& id) {
    return actor::Props::Create<Counter>(id);
  };
  ActorRef region_a = EntityRegion::Start(
      *a, "counter", props, a_settings, std::make_shared<EnvelopeExtractor>());
  AwaitRegions({{a, region_a}}, 1);
  std::map<std::string, std::string> host_of;
  for (int s = 0; s < kShards; ++s) {
    const std::string id = EntityOfShard(std::to_string(s));
    host_of[id] = Inc(*a, region_a, id).host;
  }
  // b joins. Its reads of who holds a shard are stale at first: it
  // believes a's shards are free, and those the ranking gives b it tries
  // to host.
  ActorSystem* b = StartSystem();
  ASSERT_NE(b, nullptr);
  AwaitMembers({a, b}, 2);
  auto stale = std::make_shared<StaleOnceLeases>(leases_);
  EntityRegionSettings b_settings = a_settings;
  b_settings.lease_store = stale;
  ActorRef region_b = EntityRegion::Start(
      *b, "counter", props, b_settings, std::make_shared<EnvelopeExtractor>());
  AwaitRegions({{b, region_b}}, 2);
  for (const auto& [id, host] : host_of) {
    if (host != Address(*a)) continue;
    // A burst from b: what b's shard declined reaches a once each, in
    // order.
    TestProbe probe(*b);
    for (int k = 0; k < 5; ++k) {
      region_b.Tell(
          ShardingEnvelope{id, actor::AnyMessage::Of(absl::StrCat("m", k))},
          probe.Ref());
    }
    for (int k = 0; k < 5; ++k) {
      Reply reply = Parse(probe.ExpectMsg<std::string>(kTimeout));
      EXPECT_EQ(reply.host, Address(*a)) << id;
      EXPECT_EQ(reply.count, k + 2) << id;
      EXPECT_EQ(reply.text, absl::StrCat("m", k)) << id;
    }
  }
  EXPECT_GT(stale->refused(), 0) << "b never tried a shard a holds";
}

TEST_F(ClusterShardingTest, TheRegionAtTheSendersMemberLearnsWhereAShardIs) {
  // A routed message leaves its origin region off the wire when the sender
  // is at the origin's member (most are): a region that sends it on to the
  // shard's holder tells the region of that type at the sender's member
  // where the shard is, as it would tell the origin.
  ActorSystem* a = StartSystem();
  ASSERT_NE(a, nullptr);
  AwaitMembers({a}, 1);
  ActorRef region_a = StartRegion(*a);
  AwaitRegions({{a, region_a}}, 1);
  const std::string id = EntityOfShard("7");
  ASSERT_EQ(Inc(*a, region_a, id).host, Address(*a));  // a holds shard 7
  ActorSystem* b = StartSystem();
  ActorSystem* x = StartSystem();
  ASSERT_TRUE(b != nullptr && x != nullptr);
  AwaitMembers({a, b, x}, 3);
  ActorRef region_b = StartRegion(*b);
  AwaitRegions({{b, region_b}}, 2);
  // x runs no region: what comes to its /user/counter reaches a probe.
  TestProbe at_x_region(*x);
  x->ActorOf(actor::Props::Create<Relay>(at_x_region.Ref()), "counter");
  // The sender, an actor of x (a probe's ref would not be found at x's
  // address by a, which answers it).
  TestProbe answers(*x);
  ActorRef sender =
      x->ActorOf(actor::Props::Create<Relay>(answers.Ref()), "sender");
  region_b.Tell(
      internal::RoutedDelivery{"7", id, actor::AnyMessage::Of(std::string("m")),
                               /*start=*/false, /*origin=*/ActorRef(),
                               /*hops=*/1},
      sender);
  Reply reply = Parse(answers.ExpectMsg<std::string>(kTimeout));
  EXPECT_EQ(reply.host, Address(*a));
  EXPECT_EQ(reply.count, 2);
  // (The regions' word that they take shards comes to x's /user/counter
  // too.)
  internal::ShardHome home = at_x_region.FishForMessage<internal::ShardHome>(
      [](const internal::ShardHome&) { return true; }, kTimeout);
  EXPECT_EQ(home.shard_id, "7");
  EXPECT_EQ(home.region.Path().address().ToString(), Address(*a));
  EXPECT_EQ(home.region.Path().ToString(), region_a.Path().ToString());
}

TEST_F(ClusterShardingTest, TheShardsOfAMemberThatLeftGoToTheOthers) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ActorSystem* c = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr && c != nullptr);
  AwaitMembers({a, b, c}, 3);
  ActorRef region_a = StartRegion(*a);
  StartRegion(*b);
  StartRegion(*c);
  AwaitRegions({{a, region_a}}, 3);
  std::vector<std::string> on_c;
  for (int s = 0; s < kShards; ++s) {
    const std::string id = EntityOfShard(std::to_string(s));
    if (Inc(*a, region_a, id).host == Address(*c)) on_c.push_back(id);
  }
  ASSERT_FALSE(on_c.empty());
  const std::string c_address = Address(*c);
  // c leaves: coordinated shutdown stops its region (its shards release
  // their leases) and removes its row.
  c->Terminate().wait();
  AwaitMembers({a, b}, 2);
  for (const std::string& id : on_c) {
    Reply reply = IncUntilAnswered(*a, region_a, id);
    EXPECT_NE(reply.host, c_address) << id;
    EXPECT_FALSE(reply.host.empty()) << id;
  }
}

void ClusterShardingTest::LeaveDuringABurst(EntityRegion::EntityProps props,
                                            absl::Duration handoff_timeout,
                                            bool by_actor) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ActorSystem* c = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr && c != nullptr);
  AwaitMembers({a, b, c}, 3);
  EntityRegionSettings settings = Settings();
  settings.stop_message = actor::AnyMessage::Of(std::string("stop"));
  settings.handoff_timeout = handoff_timeout;
  ActorRef region_a = EntityRegion::Start(
      *a, "counter", props, settings, std::make_shared<EnvelopeExtractor>());
  for (ActorSystem* s : {b, c}) {
    EntityRegion::Start(*s, "counter", props, settings,
                        std::make_shared<EnvelopeExtractor>());
  }
  AwaitRegions({{a, region_a}}, 3);
  std::vector<std::string> on_c;
  for (int s = 0; s < kShards; ++s) {
    const std::string id = EntityOfShard(std::to_string(s));
    if (Inc(*a, region_a, id).host == Address(*c)) on_c.push_back(id);
  }
  ASSERT_FALSE(on_c.empty());
  const std::string c_address = Address(*c);
  told_to_stop = 0;
  // c leaves (coordinated shutdown, as SIGTERM would): its region hands
  // every shard off, each entity taking 300 ms to stop.
  std::thread leave([c] { c->Terminate().wait(); });
  // Joined however the test ends (an assertion returns, a wait throws).
  struct Joiner {
    std::thread& thread;
    ~Joiner() { thread.join(); }
  } joiner{leave};
  const absl::Time deadline = absl::Now() + kTimeout;
  while (told_to_stop.load() == 0) {
    ASSERT_LT(absl::Now(), deadline) << "c's entities were never stopped";
    absl::SleepFor(absl::Milliseconds(1));
  }
  // Sent while the shards move (a still routes to c): each arrives once,
  // in order, at the shard's next home.
  TestProbe probe(*a);
  if (by_actor) {
    ActorRef sender =
        a->ActorOf(actor::Props::Create<BurstSender>(probe.Ref()), "sender");
    sender.Tell(Burst{region_a, on_c, 3});
  } else {
    for (int k = 0; k < 3; ++k) {
      for (const std::string& id : on_c) {
        region_a.Tell(
            ShardingEnvelope{id, actor::AnyMessage::Of(absl::StrCat("m", k))},
            probe.Ref());
      }
    }
  }
  std::map<std::string, std::vector<Reply>> replies;
  for (std::size_t i = 0; i < on_c.size() * 3; ++i) {
    Reply r = Parse(probe.ExpectMsg<std::string>(kTimeout));
    replies[r.id].push_back(r);
  }
  for (const std::string& id : on_c) {
    ASSERT_EQ(replies[id].size(), 3u) << id;
    for (int k = 0; k < 3; ++k) {
      const Reply& r = replies[id][k];
      EXPECT_NE(r.host, c_address) << id;
      EXPECT_EQ(r.text, absl::StrCat("m", k)) << id;
      EXPECT_EQ(r.count, k + 1) << id << ": a new incarnation at the new home";
    }
  }
}

TEST_F(ClusterShardingTest, ALeavingMemberHandsItsShardsOffAndLosesNothing) {
  LeaveDuringABurst(
      [](const std::string& id) {
        return actor::Props::Create<Counter>(id, OnStop::kSlowly);
      },
      absl::Seconds(60), /*by_actor=*/true);
}

TEST_F(ClusterShardingTest, ALeavingMemberLosesNothingSentThroughTheRegion) {
  LeaveDuringABurst(
      [](const std::string& id) {
        return actor::Props::Create<Counter>(id, OnStop::kSlowly);
      },
      absl::Seconds(60), /*by_actor=*/false);
}

TEST_F(ClusterShardingTest, AHandOffThatDoesNotEndIsCutShortAndLosesNothing) {
  // The entities ignore the stop message: the hand-off timeout stops them.
  LeaveDuringABurst(
      [](const std::string& id) {
        return actor::Props::Create<Counter>(id, OnStop::kIgnore);
      },
      absl::Milliseconds(300), /*by_actor=*/true);
}

TEST_F(ClusterShardingTest, TwoMembersLeavingTogetherHandTheirShardsOn) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ActorSystem* c = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr && c != nullptr);
  AwaitMembers({a, b, c}, 3);
  ActorRef region_a = StartRegion(*a);
  StartRegion(*b);
  StartRegion(*c);
  AwaitRegions({{a, region_a}}, 3);
  for (int s = 0; s < kShards; ++s) {
    Inc(*a, region_a, EntityOfShard(std::to_string(s)));
  }
  // b and c leave at once: each hands off to the only member left.
  std::thread leave_b([b] { b->Terminate().wait(); });
  std::thread leave_c([c] { c->Terminate().wait(); });
  leave_b.join();
  leave_c.join();
  AwaitMembers({a}, 1);
  for (int s = 0; s < kShards; ++s) {
    Reply reply =
        IncUntilAnswered(*a, region_a, EntityOfShard(std::to_string(s)));
    EXPECT_EQ(reply.host, Address(*a)) << s;
  }
}

TEST_F(ClusterShardingTest, ARegionStoppedByGracefulShutdownHandsItsShardsOff) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr);
  AwaitMembers({a, b}, 2);
  ActorRef region_a = StartRegion(*a);
  ActorRef region_b = StartRegion(*b);
  AwaitRegions({{a, region_a}, {b, region_b}}, 2);
  std::vector<std::string> on_b;
  for (int s = 0; s < kShards; ++s) {
    const std::string id = EntityOfShard(std::to_string(s));
    if (Inc(*a, region_a, id).host == Address(*b)) on_b.push_back(id);
  }
  ASSERT_FALSE(on_b.empty());
  // b's region stops on its own (the system runs on); then b's system
  // stops, its coordinated shutdown finding the region stopped already.
  TestProbe watcher(*b);
  watcher.Watch(region_b);
  region_b.Tell(GracefulShutdown{});
  watcher.ExpectTerminated(region_b, kTimeout);
  AwaitRegions({{a, region_a}}, 1);
  for (const std::string& id : on_b) {
    Reply reply = IncUntilAnswered(*a, region_a, id);
    EXPECT_EQ(reply.host, Address(*a)) << id;
  }
  b->Terminate().wait();
}

TEST_F(ClusterShardingTest, WhatWaitedForAShardsIdGoesToItsNextHomeOnLeaving) {
  ActorSystem* a = StartSystem(kInMemoryPersistence);
  ActorSystem* b = StartSystem(kInMemoryPersistence);
  ActorSystem* client = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr && client != nullptr);
  std::atomic<HeldIdWrites*> journal_a{nullptr};
  std::atomic<HeldIdWrites*> journal_b{nullptr};
  AddHeldJournal(*a, &journal_a);
  AddHeldJournal(*b, &journal_b);
  EntityRegionSettings settings = Settings();
  settings.remember_entities = true;
  settings.journal_plugin_id = kHeldJournal;
  auto props = [](const std::string& id) {
    return actor::Props::Create<Counter>(id);
  };
  ActorRef region_a = EntityRegion::Start(
      *a, "counter", props, settings, std::make_shared<EnvelopeExtractor>());
  EntityRegion::Start(*b, "counter", props, settings,
                      std::make_shared<EnvelopeExtractor>());
  ActorRef proxy = EntityRegion::StartProxy(
      *client, "counter", Settings(/*with_leases=*/false),
      std::make_shared<EnvelopeExtractor>());
  AwaitRegions({{client, proxy}, {a, region_a}}, 2);
  // An entity whose shard nobody holds and the ranking puts in a.
  const std::string a_address = Address(*a);
  const std::string b_address = Address(*b);
  std::string id;
  for (int n = 0; id.empty(); ++n) {
    const std::string candidate = absl::StrCat("e", n);
    if (*internal::RendezvousHome(StableShardId(candidate, kShards),
                                  {a_address, b_address}) == a_address) {
      id = candidate;
    }
  }
  // a's region loaded its ids before: from now on it writes none.
  const absl::Time deadline = absl::Now() + kTimeout;
  while (journal_a.load() == nullptr) {
    ASSERT_LT(absl::Now(), deadline) << "a's journal was never made";
    absl::SleepFor(absl::Milliseconds(5));
  }
  journal_a.load()->Hold();
  TestProbe probe(*client);
  for (int k = 0; k < 3; ++k) {
    proxy.Tell(ShardingEnvelope{id, actor::AnyMessage::Of(std::string("inc"))},
               probe.Ref());
  }
  // Placed in a, the shard waits for its id to be written there.
  while (journal_a.load()->held() == 0) {
    ASSERT_LT(absl::Now(), deadline) << "a never wrote the shard's id";
    absl::SleepFor(absl::Milliseconds(5));
  }
  // a leaves (coordinated shutdown: its region hands everything off); the
  // waiting messages go to b, in order.
  std::thread leave([a] { a->Terminate().wait(); });
  struct Joiner {
    std::thread& thread;
    ~Joiner() { thread.join(); }
  } joiner{leave};
  for (int k = 1; k <= 3; ++k) {
    Reply r = Parse(probe.ExpectMsg<std::string>(kTimeout));
    EXPECT_EQ(r.host, b_address);
    EXPECT_EQ(r.id, id);
    EXPECT_EQ(r.count, k);
  }
}

// The messages a leaving region passes on may wait for their next home
// (a read of the shard's lease holder): the region's leaving is not done,
// and the region not stopped, until they have gone there.
TEST_F(ClusterShardingTest, ALeavingRegionStaysUntilWhatItPassesOnHasAHome) {
  ActorSystem* a = StartSystem(kInMemoryPersistence);
  ActorSystem* b = StartSystem(kInMemoryPersistence);
  ActorSystem* client = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr && client != nullptr);
  std::atomic<HeldIdWrites*> journal_a{nullptr};
  std::atomic<HeldIdWrites*> journal_b{nullptr};
  AddHeldJournal(*a, &journal_a);
  AddHeldJournal(*b, &journal_b);
  EntityRegionSettings settings = Settings();
  settings.remember_entities = true;
  settings.journal_plugin_id = kHeldJournal;
  EntityRegionSettings a_settings = settings;
  auto reads_a = std::make_shared<HeldHolderReads>(settings.lease_store);
  a_settings.lease_store = reads_a;
  auto props = [](const std::string& id) {
    return actor::Props::Create<Counter>(id);
  };
  ActorRef region_a = EntityRegion::Start(
      *a, "counter", props, a_settings, std::make_shared<EnvelopeExtractor>());
  EntityRegion::Start(*b, "counter", props, settings,
                      std::make_shared<EnvelopeExtractor>());
  ActorRef proxy = EntityRegion::StartProxy(
      *client, "counter", Settings(/*with_leases=*/false),
      std::make_shared<EnvelopeExtractor>());
  AwaitRegions({{client, proxy}, {a, region_a}}, 2);
  const std::string a_address = Address(*a);
  const std::string b_address = Address(*b);
  std::string id;
  for (int n = 0; id.empty(); ++n) {
    const std::string candidate = absl::StrCat("e", n);
    if (*internal::RendezvousHome(StableShardId(candidate, kShards),
                                  {a_address, b_address}) == a_address) {
      id = candidate;
    }
  }
  const absl::Time deadline = absl::Now() + kTimeout;
  while (journal_a.load() == nullptr) {
    ASSERT_LT(absl::Now(), deadline) << "a's journal was never made";
    absl::SleepFor(absl::Milliseconds(5));
  }
  journal_a.load()->Hold();
  TestProbe probe(*client);
  for (int k = 0; k < 3; ++k) {
    proxy.Tell(ShardingEnvelope{id, actor::AnyMessage::Of(std::string("inc"))},
               probe.Ref());
  }
  while (journal_a.load()->held() == 0) {
    ASSERT_LT(absl::Now(), deadline) << "a never wrote the shard's id";
    absl::SleepFor(absl::Milliseconds(5));
  }
  // From now on a's region learns a shard's holder only when let.
  reads_a->Hold();
  std::atomic<bool> left{false};
  std::thread leave([a, &left] {
    a->Terminate().wait();
    left = true;
  });
  struct Joiner {
    HeldHolderReads& reads;
    std::thread& thread;
    ~Joiner() {
      reads.Release();
      thread.join();
    }
  } joiner{*reads_a, leave};
  // Leaving, a passes the waiting messages on: they wait for the holder.
  while (reads_a->waiting() == 0) {
    ASSERT_LT(absl::Now(), deadline) << "a never read the shard's holder";
    absl::SleepFor(absl::Milliseconds(5));
  }
  // Its leaving waits for them (as ExpectNoMsg does, for a while).
  const absl::Time window = absl::Now() + absl::Milliseconds(500);
  while (absl::Now() < window) {
    ASSERT_FALSE(left.load())
        << "a left while messages it passed on had nowhere to go";
    absl::SleepFor(absl::Milliseconds(10));
  }
  reads_a->Release();
  for (int k = 1; k <= 3; ++k) {
    Reply r = Parse(probe.ExpectMsg<std::string>(kTimeout));
    EXPECT_EQ(r.host, b_address);
    EXPECT_EQ(r.id, id);
    EXPECT_EQ(r.count, k);
  }
}

TEST_F(ClusterShardingTest, AJoiningMemberGetsItsShareByRebalancing) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr);
  AwaitMembers({a, b}, 2);
  EntityRegionSettings settings = Settings();
  settings.rebalance_interval = absl::Milliseconds(100);
  settings.max_simultaneous_rebalance = 2;
  auto props = [](const std::string& id) {
    return actor::Props::Create<Counter>(id);
  };
  ActorRef region_a = EntityRegion::Start(
      *a, "counter", props, settings, std::make_shared<EnvelopeExtractor>());
  EntityRegion::Start(*b, "counter", props, settings,
                      std::make_shared<EnvelopeExtractor>());
  AwaitRegions({{a, region_a}}, 2);
  std::map<std::string, std::string> host_of;
  for (int s = 0; s < kShards; ++s) {
    const std::string id = EntityOfShard(std::to_string(s));
    host_of[id] = Inc(*a, region_a, id).host;
  }
  ActorSystem* c = StartSystem();
  ASSERT_NE(c, nullptr);
  AwaitMembers({a, b, c}, 3);
  ActorRef region_c = EntityRegion::Start(
      *c, "counter", props, settings, std::make_shared<EnvelopeExtractor>());
  const std::vector<std::string> three = {Address(*a), Address(*b),
                                          Address(*c)};
  std::set<std::string> c_share;  // shards rendezvous gives c now
  for (int s = 0; s < kShards; ++s) {
    if (*internal::RendezvousHome(std::to_string(s), three) == Address(*c)) {
      c_share.insert(std::to_string(s));
    }
  }
  ASSERT_FALSE(c_share.empty());
  // c gets exactly its share, moved from a and b, with no message for
  // them (the moved shards start there at their next message; c's own
  // state says which shards it hosts once a message has come).
  const absl::Time deadline = absl::Now() + kTimeout;
  while (true) {
    ASSERT_LT(absl::Now(), deadline) << "c never got its share";
    int moved = 0;
    for (const std::string& shard : c_share) {
      if (!leases_->Holder(absl::StrCat("counter-", shard)).ok()) continue;
      absl::StatusOr<std::optional<persistence::LeaseHolding>> h =
          leases_->Holder(absl::StrCat("counter-", shard));
      if (!h->has_value()) ++moved;  // released by its old home
    }
    if (moved == static_cast<int>(c_share.size())) break;
    absl::SleepFor(absl::Milliseconds(20));
  }
  for (const auto& [id, host] : host_of) {
    const std::string shard = StableShardId(id, kShards);
    Reply reply = Inc(*a, region_a, id);
    if (c_share.contains(shard)) {
      EXPECT_EQ(reply.host, Address(*c)) << id;
      EXPECT_EQ(reply.count, 1) << id << ": moved, a new incarnation";
    } else {
      EXPECT_EQ(reply.host, host) << id << ": moved though not c's";
      EXPECT_EQ(reply.count, 2) << id;
    }
  }
  (void)region_c;
}

TEST_F(ClusterShardingTest, SettingsTheClusterCannotRunAreRefused) {
  ActorSystem* a = StartSystem();
  ASSERT_NE(a, nullptr);
  auto props = [](const std::string& id) {
    return actor::Props::Create<Counter>(id);
  };
  try {
    EntityRegion::Start(*a, "counter", props, Settings(/*with_leases=*/false),
                        std::make_shared<EnvelopeExtractor>());
    ADD_FAILURE() << "no error without a lease store";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("lease store"));
  }
  EntityRegionSettings owned = Settings();
  owned.lease_owner = "me";
  try {
    EntityRegion::Start(*a, "counter", props, owned,
                        std::make_shared<EnvelopeExtractor>());
    ADD_FAILURE() << "no error with a lease owner of its own";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("lease-owner"));
  }

  absl::StatusOr<std::unique_ptr<ActorSystem>> local =
      ActorSystem::Create("local");
  ASSERT_OK(local);
  try {
    EntityRegion::StartProxy(**local, "counter", EntityRegionSettings(),
                             std::make_shared<EnvelopeExtractor>());
    ADD_FAILURE() << "a proxy outside a cluster";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("cluster"));
  }
  (*local)->Terminate().wait();
}

}  // namespace
}  // namespace cairn::sharding
