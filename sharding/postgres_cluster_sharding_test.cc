// Regions across the members of a cluster on PostgreSQL (members, leases
// and the journal in one schema, each system with stores of its own, as
// processes have): remembered entities start at their next home without a
// message, their state recovered from the journal, after a graceful
// hand-off, after their member is killed, and when a killed process starts
// again at its address. Skips without a server (CAIRN_TEST_POSTGRES_URL;
// docs/POSTGRESQL.md).
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "actor/testkit/test_probe.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "cluster/cluster.h"
#include "cluster/cluster_setup.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/persistent_actor.h"
#include "persistence/postgresql/postgres_leases.h"
#include "persistence/postgresql/postgres_members.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/postgresql/testing/test_database.h"
#include "persistence/storage/lease_store.h"
#include "remote/testing/free_port.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

namespace cairn::sharding {
namespace {

using actor::ActorRef;
using actor::ActorSystem;
using actor::testkit::TestProbe;

constexpr absl::Duration kTimeout = absl::Seconds(30);

// Where each entity runs now, and the count it recovered there.
class Started {
 public:
  void Record(const std::string& id, const std::string& host, int count) {
    base::MutexLock lock(&mu_);
    where_[id] = {host, count};
  }
  std::optional<std::pair<std::string, int>> Where(const std::string& id) {
    base::MutexLock lock(&mu_);
    auto it = where_.find(id);
    if (it == where_.end()) return std::nullopt;
    return it->second;
  }
  // Until it starts again.
  void Forget(const std::string& id) {
    base::MutexLock lock(&mu_);
    where_.erase(id);
  }

 private:
  base::Mutex mu_;
  std::map<std::string, std::pair<std::string, int>> where_
      ABSL_GUARDED_BY(mu_);
};

Started& started() {
  static auto* s = new Started();
  return *s;
}

// Persists each "inc" and answers the count; records where it runs once
// recovered.
class PersistentCounter final : public persistence::PersistentActor {
 public:
  explicit PersistentCounter(std::string id) : id_(std::move(id)) {
    Command<std::string>([this](const std::string&) {
      Persist(std::string("inc"), [this](const std::string&) {
        ++count_;
        Sender().Tell(
            absl::StrCat(Context().System().address().ToString(), "|", count_));
      });
    });
    Recover<std::string>([this](const std::string&) { ++count_; });
    Recover<persistence::RecoveryCompleted>(
        [this](const persistence::RecoveryCompleted&) {
          started().Record(id_, Context().System().address().ToString(),
                           count_);
        });
  }
  std::string PersistenceId() const override { return "counter-" + id_; }

 private:
  const std::string id_;
  int count_ = 0;
};

// Leases that are never released, only left to run out: a killed
// process's.
class UnreleasedLeases final : public persistence::LeaseStore {
 public:
  explicit UnreleasedLeases(std::shared_ptr<persistence::LeaseStore> store)
      : store_(std::move(store)) {}
  absl::StatusOr<persistence::WriteFence> Acquire(const std::string& lease,
                                                  const std::string& owner,
                                                  absl::Duration ttl) override {
    return store_->Acquire(lease, owner, ttl);
  }
  absl::Status Renew(const persistence::WriteFence& fence,
                     absl::Duration ttl) override {
    return store_->Renew(fence, ttl);
  }
  absl::Status Release(const persistence::WriteFence&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::optional<persistence::LeaseHolding>> Holder(
      const std::string& lease) override {
    return store_->Holder(lease);
  }

 private:
  const std::shared_ptr<persistence::LeaseStore> store_;
};

class PostgresClusterShardingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
    options_.connection_string = db_->url();
    options_.schema = db_->schema();
  }
  void TearDown() override {
    for (auto& system : systems_) system->Terminate().wait();
    systems_.clear();
  }

  // `extra`: HOCON after the test's own.
  ActorSystem* StartSystem(const std::string& extra = "") {
    absl::StatusOr<std::unique_ptr<persistence::PostgresMembers>> members =
        persistence::PostgresMembers::Open(options_);
    EXPECT_OK(members);
    if (!members.ok()) return nullptr;
    absl::StatusOr<hocon::Config> config =
        hocon::Config::ParseString(absl::StrCat(R"(
      akka.loglevel = WARNING
      akka.actor.provider = cluster
      akka.remote.artery.canonical.hostname = "127.0.0.1"
      akka.remote.artery.canonical.port = 0
      akka.cluster.membership {
        member-ttl = 5s
        renew-interval = 500ms
        refresh-interval = 200ms
      }
      akka.persistence.journal.plugin = "akka.persistence.journal.postgresql"
      akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.postgresql"
      akka.persistence.journal.postgresql {
        connection-string = ")",
                                                db_->url(), R"("
        schema = ")",
                                                db_->schema(), R"("
      }
    )",
                                                extra));
    EXPECT_OK(config);
    if (!config.ok()) return nullptr;
    actor::ActorSystemOptions options;
    options.setup = actor::ActorSystemSetup().With(cluster::ClusterSetup{
        std::shared_ptr<persistence::MemberStore>(*std::move(members))});
    absl::StatusOr<std::unique_ptr<ActorSystem>> system =
        ActorSystem::Create("shop", *config, std::move(options));
    EXPECT_OK(system);
    if (!system.ok()) return nullptr;
    systems_.push_back(*std::move(system));
    return systems_.back().get();
  }

  // `killed_leases`: the region's shards never release their leases, as
  // those of a killed process, which run out after `lease_ttl`.
  ActorRef StartRegion(ActorSystem& system,
                       absl::Duration lease_ttl = absl::Seconds(3),
                       bool killed_leases = false) {
    absl::StatusOr<std::unique_ptr<persistence::PostgresLeases>> leases =
        persistence::PostgresLeases::Open(options_);
    EXPECT_OK(leases);
    EntityRegionSettings settings;
    settings.number_of_shards = 16;
    settings.remember_entities = true;
    settings.lease_ttl = lease_ttl;
    settings.lease_retry_interval = absl::Milliseconds(100);
    settings.rebalance_interval = absl::ZeroDuration();
    settings.lease_store =
        std::shared_ptr<persistence::LeaseStore>(*std::move(leases));
    if (killed_leases) {
      settings.lease_store =
          std::make_shared<UnreleasedLeases>(settings.lease_store);
    }
    return EntityRegion::Start(
        system, "counter",
        [](const std::string& id) {
          return actor::Props::Create<PersistentCounter>(id);
        },
        settings, std::make_shared<EnvelopeExtractor>());
  }

  static void AwaitRegions(ActorSystem& system, const ActorRef& region,
                           std::size_t n) {
    TestProbe probe(system);
    const absl::Time deadline = absl::Now() + kTimeout;
    while (true) {
      region.Tell(GetCurrentRegions{}, probe.Ref());
      if (probe.ExpectMsg<CurrentRegions>(kTimeout).regions.size() == n) {
        return;
      }
      ASSERT_LT(absl::Now(), deadline) << "the regions never met";
      absl::SleepFor(absl::Milliseconds(20));
    }
  }

  void AwaitBsEntitiesInA(const std::string& b_config,
                          absl::Duration b_lease_ttl, bool killed_leases);

  std::optional<persistence::testing::TestDatabase> db_;
  persistence::PostgresOptions options_;
  std::vector<std::unique_ptr<ActorSystem>> systems_;
};

// Increments e0..e23 twice each through `region` (of `system`), and
// returns those that run in the member at `address`.
std::vector<std::string> IncEachTwice(ActorSystem& system,
                                      const ActorRef& region,
                                      const std::string& address) {
  std::vector<std::string> there;
  for (int e = 0; e < 24; ++e) {
    const std::string id = absl::StrCat("e", e);
    TestProbe probe(system);
    for (int k = 0; k < 2; ++k) {
      region.Tell(
          ShardingEnvelope{id, actor::AnyMessage::Of(std::string("inc"))},
          probe.Ref());
      probe.ExpectMsg<std::string>(kTimeout);
    }
    std::optional<std::pair<std::string, int>> where = started().Where(id);
    EXPECT_TRUE(where.has_value()) << id;
    if (where.has_value() && where->first == address) there.push_back(id);
  }
  return there;
}

// Waits until each of `ids` has started in the member at `address` with the
// count 2 recovered from the journal.
void AwaitStartedIn(const std::vector<std::string>& ids,
                    const std::string& address) {
  const absl::Time deadline = absl::Now() + kTimeout;
  for (const std::string& id : ids) {
    while (true) {
      std::optional<std::pair<std::string, int>> where = started().Where(id);
      if (where.has_value() && where->first == address) {
        EXPECT_EQ(where->second, 2) << id << ": recovered from the journal";
        break;
      }
      ASSERT_LT(absl::Now(), deadline) << id << " never started in " << address;
      absl::SleepFor(absl::Milliseconds(20));
    }
  }
}

// a and b host entities, each incremented twice; b ends (`b_config`, its
// region with leases of `b_lease_ttl`, `killed_leases` as StartRegion's);
// then each of b's entities starts in a with its count, and no message
// is sent to it.
void PostgresClusterShardingTest::AwaitBsEntitiesInA(
    const std::string& b_config, absl::Duration b_lease_ttl,
    bool killed_leases) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem(b_config);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  ActorRef region_a = StartRegion(*a);
  ActorRef region_b = StartRegion(*b, b_lease_ttl, killed_leases);
  AwaitRegions(*a, region_a, 2);
  AwaitRegions(*b, region_b, 2);
  const std::vector<std::string> on_b =
      IncEachTwice(*a, region_a, b->address().ToString());
  ASSERT_FALSE(on_b.empty());
  b->Terminate().wait();
  AwaitStartedIn(on_b, a->address().ToString());
}

// b leaves: coordinated shutdown hands its shards off.
TEST_F(PostgresClusterShardingTest,
       RememberedEntitiesMoveWithAHandOffAndStartWithoutAMessage) {
  AwaitBsEntitiesInA("", absl::Seconds(3), /*killed_leases=*/false);
}

// Akka's coordinator starts the remembered shards of a region that died;
// here each member reads the remembered shards of a member that is gone
// (its row removed, nothing handed off) and the one ranked first for each
// starts it.
TEST_F(PostgresClusterShardingTest,
       RememberedEntitiesOfAMemberThatIsGoneStartElsewhereWithoutAMessage) {
  // b ends without leaving, as when its process is killed: no hand-off,
  // its row and leases left to run out. Its leases outlive its row (5 s;
  // renewed every third of their ttl, they run out 8 to 12 s after the
  // end): the shards start once they do.
  AwaitBsEntitiesInA(
      "akka.coordinated-shutdown.run-by-actor-system-terminate = off\n",
      absl::Seconds(12), /*killed_leases=*/true);
}

// A process killed and started again at its address (as a restarted pod
// is) replaces its earlier incarnation's row at once, but that incarnation's
// leases run on: the shards it remembers decline at first, then start once
// the leases run out, and their entities come back without a message.
TEST_F(PostgresClusterShardingTest,
       AProcessStartedAgainAtItsAddressGetsItsRememberedEntitiesBack) {
  const int port = remote::testing::FreePort();
  ASSERT_GT(port, 0);
  const std::string killed_config = absl::StrCat(
      "akka.coordinated-shutdown.run-by-actor-system-terminate = off\n"
      "akka.remote.artery.canonical.port = ",
      port, "\n");
  ActorSystem* b = StartSystem(killed_config);
  ASSERT_TRUE(b != nullptr);
  const std::string address = b->address().ToString();
  ActorRef region_b =
      StartRegion(*b, absl::Seconds(12), /*killed_leases=*/true);
  AwaitRegions(*b, region_b, 1);
  const std::vector<std::string> ids = IncEachTwice(*b, region_b, address);
  ASSERT_EQ(ids.size(), 24u);
  b->Terminate().wait();
  for (const std::string& id : ids) started().Forget(id);
  ActorSystem* again = StartSystem(killed_config);
  ASSERT_TRUE(again != nullptr);
  ASSERT_EQ(again->address().ToString(), address);
  StartRegion(*again);
  AwaitStartedIn(ids, address);
}

}  // namespace
}  // namespace cairn::sharding
