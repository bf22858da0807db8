// The cluster on PostgreSQL: two systems, each with a PostgresMembers of
// its own (its own connections and LISTEN, as two processes have), on one
// schema. They see each other up through the server's rows and
// notifications, and one that leaves is seen removed. Skips without a
// server (CAIRN_TEST_POSTGRES_URL; docs/POSTGRESQL.md).
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_probe.h"
#include "base/status_testing.h"
#include "cluster/cluster.h"
#include "cluster/cluster_setup.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/postgresql/postgres_members.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/postgresql/testing/test_database.h"

namespace cairn::cluster {
namespace {

using actor::ActorSystem;
using actor::testkit::TestProbe;
using persistence::PostgresMembers;

constexpr absl::Duration kTimeout = absl::Seconds(30);

class PostgresClusterTest : public ::testing::Test {
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

  ActorSystem* Start(const std::string& name) {
    absl::StatusOr<std::unique_ptr<PostgresMembers>> members =
        PostgresMembers::Open(options_);
    EXPECT_OK(members);
    if (!members.ok()) return nullptr;
    absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(R"(
      akka.loglevel = WARNING
      akka.actor.provider = cluster
      akka.remote.artery.canonical.hostname = "127.0.0.1"
      akka.remote.artery.canonical.port = 0
      # The refresh is slow: what the test sees comes by notification.
      akka.cluster.membership.refresh-interval = 1h
    )");
    EXPECT_OK(config);
    actor::ActorSystemOptions options;
    options.setup = actor::ActorSystemSetup().With(ClusterSetup{
        std::shared_ptr<persistence::MemberStore>(*std::move(members))});
    absl::StatusOr<std::unique_ptr<ActorSystem>> system =
        ActorSystem::Create(name, *config, std::move(options));
    EXPECT_OK(system);
    if (!system.ok()) return nullptr;
    systems_.push_back(*std::move(system));
    return systems_.back().get();
  }

  std::optional<persistence::testing::TestDatabase> db_;
  persistence::PostgresOptions options_;
  std::vector<std::unique_ptr<ActorSystem>> systems_;
};

TEST_F(PostgresClusterTest, MembersMeetThroughTheDatabaseAndSeeALeave) {
  ActorSystem* a = Start("a");
  ASSERT_NE(a, nullptr);
  TestProbe events(*a);
  Cluster::Get(*a).Subscribe(events.Ref(), InitialStateMode::kAsEvents);
  ActorSystem* b = Start("b");
  ASSERT_NE(b, nullptr);
  const UniqueAddress bee = Cluster::Get(*b).SelfUniqueAddress();
  std::set<std::string> up;
  while (up.size() < 2) {
    up.insert(events.ExpectMsg<MemberUp>(kTimeout).member.address().ToString());
  }
  EXPECT_TRUE(up.contains(b->address().ToString()));

  b->GetCoordinatedShutdown().Run("leaving");
  MemberRemoved removed = events.FishForMessage<MemberRemoved>(
      [&](const MemberRemoved& r) { return r.member.unique_address == bee; },
      kTimeout);
  EXPECT_EQ(removed.member.status, MemberStatus::kRemoved);
  EXPECT_TRUE(b->WhenTerminated().wait_for(kTimeout));
  EXPECT_EQ(Cluster::Get(*a).State().members.size(), 1u);
}

}  // namespace
}  // namespace cairn::cluster
