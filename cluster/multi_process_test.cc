// The cluster between real OS processes on PostgreSQL: the test's own
// member and nodes (//cluster:cluster_node) in processes of their own, all
// on one schema. What a user relies on: members see each other up; a
// process killed with SIGKILL is removed within the member's time to live; one
// that shuts down leaves without being unreachable; one paused past its time to
// live is removed, and when it wakes it learns so and shuts itself down. Skips
// without a server (CAIRN_TEST_POSTGRES_URL; docs/POSTGRESQL.md).
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
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
#include "remote/testing/node_process.h"

namespace cairn::cluster {
namespace {

using actor::ActorSystem;
using actor::testkit::TestProbe;
using remote::testing::NodeProcess;

constexpr absl::Duration kTimeout = absl::Seconds(30);

// Short, for the test: a member not renewed for 2 s is down.
constexpr char kIntervals[] = R"(
  akka.cluster.membership {
    member-ttl = 2s
    renew-interval = 400ms
    refresh-interval = 200ms
  }
)";

std::string NodeBinary() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir == nullptr ? "." : srcdir, "/",
                      workspace == nullptr ? "cairn" : workspace,
                      "/cluster/testing/cluster_node");
}

class ClusterAcrossProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
    options_.connection_string = db_->url();
    options_.schema = db_->schema();
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<persistence::PostgresMembers> members,
                         persistence::PostgresMembers::Open(options_));
    ASSERT_OK_AND_ASSIGN(hocon::Config config,
                         hocon::Config::ParseString(absl::StrCat(R"(
          akka.loglevel = ERROR
          akka.actor.provider = cluster
          akka.remote.artery.canonical.hostname = "127.0.0.1"
          akka.remote.artery.canonical.port = 0
        )",
                                                                 kIntervals)));
    actor::ActorSystemOptions options;
    options.setup = actor::ActorSystemSetup().With(ClusterSetup{
        std::shared_ptr<persistence::MemberStore>(std::move(members))});
    ASSERT_OK_AND_ASSIGN(
        system_, ActorSystem::Create("tester", config, std::move(options)));
    events_ = std::make_unique<TestProbe>(*system_);
    Cluster::Get(*system_).Subscribe(events_->Ref(),
                                     InitialStateMode::kAsEvents);
  }
  void TearDown() override {
    for (NodeProcess& node : nodes_) {
      if (!node.running()) continue;
      node.Resume();
      EXPECT_EQ(node.Terminate(absl::Now() + kTimeout), 0) << node.address();
    }
    events_.reset();
    if (system_ != nullptr) system_->Terminate().wait();
  }

  // A node started, listening and joining. Kept until the test's end.
  absl::StatusOr<NodeProcess*> StartNode(const std::string& name) {
    absl::StatusOr<NodeProcess> node = NodeProcess::StartProgram(
        NodeBinary(),
        {name, options_.connection_string, options_.schema, kIntervals},
        absl::Now() + kTimeout);
    if (!node.ok()) return node.status();
    nodes_.push_back(*std::move(node));
    return &nodes_.back();
  }

  // Waits until the test's member is told `T` of the member at `address`.
  template <typename T>
  T Expect(const std::string& address) {
    return events_->FishForMessage<T>(
        [&](const T& e) { return e.member.address().ToString() == address; },
        kTimeout);
  }

  std::optional<persistence::testing::TestDatabase> db_;
  persistence::PostgresOptions options_;
  std::unique_ptr<ActorSystem> system_;
  std::unique_ptr<TestProbe> events_;
  std::deque<NodeProcess> nodes_;  // StartNode's pointers stay valid
};

TEST_F(ClusterAcrossProcessesTest, AKilledProcessIsRemoved) {
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  ASSERT_OK_AND_ASSIGN(NodeProcess * gamma, StartNode("gamma"));
  Expect<MemberUp>(beta->address());
  Expect<MemberUp>(gamma->address());

  const std::string killed = beta->address();
  beta->Kill();  // no goodbye: its row just stops being renewed
  // Removed by whichever member saw its row run out first: this one is
  // told UnreachableMember before only if it was that member (events are
  // the differences between reads).
  MemberRemoved removed = Expect<MemberRemoved>(killed);
  EXPECT_EQ(removed.previous_status, MemberStatus::kUp);
  // The others stay.
  CurrentClusterState state = Cluster::Get(*system_).State();
  EXPECT_EQ(state.members.size(), 2u);
  EXPECT_TRUE(state.unreachable.empty());
}

TEST_F(ClusterAcrossProcessesTest, AProcessThatShutsDownLeaves) {
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  Expect<MemberUp>(beta->address());
  const std::string leaving = beta->address();
  ASSERT_EQ(beta->Terminate(absl::Now() + kTimeout), 0);  // SIGTERM
  // Its row is gone before it could run out: removed, never unreachable.
  while (true) {
    actor::AnyMessage m = events_->ReceiveOne(kTimeout);
    if (const auto* u = m.As<UnreachableMember>();
        u != nullptr && u->member.address().ToString() == leaving) {
      ADD_FAILURE() << leaving << " was told unreachable";
    }
    if (const auto* r = m.As<MemberRemoved>();
        r != nullptr && r->member.address().ToString() == leaving) {
      break;
    }
  }
}

TEST_F(ClusterAcrossProcessesTest,
       APausedProcessIsRemovedAndShutsDownOnWaking) {
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  Expect<MemberUp>(beta->address());
  beta->Pause();  // SIGSTOP past member-ttl
  Expect<UnreachableMember>(beta->address());
  Expect<MemberRemoved>(beta->address());
  beta->Resume();
  // Its renewal finds its row gone: it was removed, and does not come
  // back under its uid; it shuts its system down and the process ends.
  EXPECT_EQ(beta->AwaitExit(absl::Now() + kTimeout), 0);
  EXPECT_EQ(Cluster::Get(*system_).State().members.size(), 1u);
}

}  // namespace
}  // namespace cairn::cluster
