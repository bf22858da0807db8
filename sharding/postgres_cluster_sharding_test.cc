// Regions across the members of a cluster on PostgreSQL (members, leases
// and the journal in one schema, each system with stores of its own, as
// processes have): remembered entities move with a graceful hand-off and
// start at their next home without a message, their state recovered from
// the journal. Skips without a server (CAIRN_TEST_POSTGRES_URL;
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

  ActorSystem* StartSystem() {
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
    )"));
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

  ActorRef StartRegion(ActorSystem& system) {
    absl::StatusOr<std::unique_ptr<persistence::PostgresLeases>> leases =
        persistence::PostgresLeases::Open(options_);
    EXPECT_OK(leases);
    EntityRegionSettings settings;
    settings.number_of_shards = 16;
    settings.remember_entities = true;
    settings.lease_ttl = absl::Seconds(3);
    settings.lease_retry_interval = absl::Milliseconds(100);
    settings.rebalance_interval = absl::ZeroDuration();
    settings.lease_store =
        std::shared_ptr<persistence::LeaseStore>(*std::move(leases));
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

  std::optional<persistence::testing::TestDatabase> db_;
  persistence::PostgresOptions options_;
  std::vector<std::unique_ptr<ActorSystem>> systems_;
};

TEST_F(PostgresClusterShardingTest,
       RememberedEntitiesMoveWithAHandOffAndStartWithoutAMessage) {
  ActorSystem* a = StartSystem();
  ActorSystem* b = StartSystem();
  ASSERT_TRUE(a != nullptr && b != nullptr);
  ActorRef region_a = StartRegion(*a);
  ActorRef region_b = StartRegion(*b);
  AwaitRegions(*a, region_a, 2);
  AwaitRegions(*b, region_b, 2);
  const std::string b_address = b->address().ToString();
  // Entities in both members, each incremented twice.
  std::vector<std::string> on_b;
  for (int e = 0; e < 24; ++e) {
    const std::string id = absl::StrCat("e", e);
    TestProbe probe(*a);
    for (int k = 0; k < 2; ++k) {
      region_a.Tell(
          ShardingEnvelope{id, actor::AnyMessage::Of(std::string("inc"))},
          probe.Ref());
      probe.ExpectMsg<std::string>(kTimeout);
    }
    std::optional<std::pair<std::string, int>> where = started().Where(id);
    ASSERT_TRUE(where.has_value()) << id;
    if (where->first == b_address) on_b.push_back(id);
  }
  ASSERT_FALSE(on_b.empty());
  // b leaves: its remembered entities start in a, with their counts, and
  // no message sent to them.
  b->Terminate().wait();
  const std::string a_address = a->address().ToString();
  const absl::Time deadline = absl::Now() + kTimeout;
  for (const std::string& id : on_b) {
    while (true) {
      std::optional<std::pair<std::string, int>> where = started().Where(id);
      if (where.has_value() && where->first == a_address) {
        EXPECT_EQ(where->second, 2) << id << ": recovered from the journal";
        break;
      }
      ASSERT_LT(absl::Now(), deadline) << id << " never started in a";
      absl::SleepFor(absl::Milliseconds(20));
    }
  }
}

}  // namespace
}  // namespace cairn::sharding
