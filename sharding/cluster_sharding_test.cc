// Regions across the members of a cluster (systems in one process with
// the cluster provider, remoting on 127.0.0.1, sharing an in-memory member
// store and lease store as processes share PostgreSQL): an entity lives in
// one member and is reached from every member and from proxies; a free
// shard goes where rendezvous hashing puts it; a shard held by a member
// stays there when a member joins that would be chosen now; a member that
// left gives its shards up to the others. Real time, short intervals:
// every wait has a deadline.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "actor/testkit/test_probe.h"
#include "base/status_testing.h"
#include "cluster/cluster.h"
#include "cluster/cluster_setup.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/inmem/in_memory_lease_store.h"
#include "persistence/inmem/in_memory_member_store.h"
#include "sharding/entity_region.h"
#include "sharding/internal/rendezvous.h"
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

// Counts the messages it gets and answers each with
// "<its system's address>|<id>|<count>|<the message>".
class Counter final : public actor::Actor {
 public:
  explicit Counter(std::string id) : id_(std::move(id)) {
    Receive<std::string>([this](const std::string& text) {
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

TEST_F(ClusterShardingTest, AProxyWithoutTheRoleSettingIsRoutedAround) {
  // No roles: the client's member is a candidate like the others, and the
  // shards rendezvous gives it go on to the next member.
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ActorSystem* client = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr && client != nullptr);
  AwaitMembers({a, b, client}, 3);
  ActorRef region_a = StartRegion(*a);
  StartRegion(*b);
  ActorRef proxy = EntityRegion::StartProxy(
      *client, "counter", Settings(), std::make_shared<EnvelopeExtractor>());
  const std::vector<std::string> all = {Address(*a), Address(*b),
                                        Address(*client)};
  int given_to_client = 0;
  for (int s = 0; s < kShards; ++s) {
    const std::string shard = std::to_string(s);
    const std::string id = EntityOfShard(shard);
    if (*internal::RendezvousHome(shard, all) == Address(*client)) {
      ++given_to_client;
    }
    // From a region first (it places the shard), or from the proxy.
    Reply first =
        (s % 2 == 0) ? Inc(*a, region_a, id) : Inc(*client, proxy, id);
    Reply second = Inc(*client, proxy, id);
    EXPECT_EQ(first.count, 1) << id;
    EXPECT_EQ(second.count, 2) << id;
    EXPECT_EQ(first.host, second.host) << id;
    EXPECT_NE(first.host, Address(*client)) << id;
  }
  EXPECT_GT(given_to_client, 0) << "the test placed nothing on the client";
}

TEST_F(ClusterShardingTest, AHeldShardStaysWithItsHolderWhenAMemberJoins) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr);
  AwaitMembers({a, b}, 2);
  ActorRef region_a = StartRegion(*a);
  ActorRef region_b = StartRegion(*b);
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
  // does not hold the shard declines it and sends the messages on to the
  // holder, and tells the proxy where it is.
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
  const std::vector<std::string> three = {Address(*a), Address(*b),
                                          Address(*c)};
  int placed_on_c = 0;
  for (const auto& [id, host] : host_of) {
    if (*internal::RendezvousHome(StableShardId(id, kShards), three) ==
        Address(*c)) {
      ++placed_on_c;  // c declines these: a or b holds them
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

TEST_F(ClusterShardingTest, TheShardsOfAMemberThatLeftGoToTheOthers) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ActorSystem* c = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr && c != nullptr);
  AwaitMembers({a, b, c}, 3);
  ActorRef region_a = StartRegion(*a);
  StartRegion(*b);
  StartRegion(*c);
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

TEST_F(ClusterShardingTest, ProxiesChosenAsHomesPassTheShardDownTheRanking) {
  // No roles: two proxies are candidates like the regions; a shard whose
  // ranking puts both proxies first still reaches a region.
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ActorSystem* p1 = StartSystem();
  ActorSystem* p2 = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr && p1 != nullptr && p2 != nullptr);
  AwaitMembers({a, b, p1, p2}, 4);
  StartRegion(*a);
  StartRegion(*b);
  ActorRef proxy1 =
      EntityRegion::StartProxy(*p1, "counter", Settings(/*with_leases=*/false),
                               std::make_shared<EnvelopeExtractor>());
  ActorRef proxy2 =
      EntityRegion::StartProxy(*p2, "counter", Settings(/*with_leases=*/false),
                               std::make_shared<EnvelopeExtractor>());
  const std::vector<std::string> all = {Address(*a), Address(*b), Address(*p1),
                                        Address(*p2)};
  const std::set<std::string> proxies = {Address(*p1), Address(*p2)};
  int proxies_first = 0;
  for (int s = 0; s < kShards; ++s) {
    const std::string shard = std::to_string(s);
    const std::string id = EntityOfShard(shard);
    std::vector<std::string> rest = all;
    const std::string first = *internal::RendezvousHome(shard, rest);
    rest.erase(std::find(rest.begin(), rest.end(), first));
    if (proxies.contains(first) &&
        proxies.contains(*internal::RendezvousHome(shard, rest))) {
      ++proxies_first;
    }
    Reply one = Inc(*p1, proxy1, id);
    Reply two = Inc(*p2, proxy2, id);
    EXPECT_EQ(one.count, 1) << id;
    EXPECT_EQ(two.count, 2) << id;
    EXPECT_EQ(one.host, two.host) << id;
    EXPECT_FALSE(proxies.contains(one.host)) << id;
  }
  EXPECT_GT(proxies_first, 0) << "no shard ranked both proxies first";
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
