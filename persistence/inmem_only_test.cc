// A program that links only the in-memory plugin's registration: its
// persistent actors work, and a plugin it did not link is NotFound naming
// what to link. plugin_linking_test checks, from the build graph, that
// this test links neither RocksDB nor libpq.

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using ::testing::HasSubstr;

// Persists every string it is sent and answers with the count it has.
class Counter final : public PersistentActor {
 public:
  explicit Counter(std::string id) : id_(std::move(id)) {
    Recover<std::string>([this](const std::string&) { ++count_; });
    Command<std::string>([this](const std::string& c) {
      Persist(c, [this](const std::string&) {
        ++count_;
        Sender().Tell(count_);
      });
    });
  }
  std::string PersistenceId() const override { return id_; }

 private:
  std::string id_;
  int count_ = 0;
};

TEST(InMemoryOnlyTest, PersistentActorsWorkAndRecover) {
  TestKit kit(R"(
    akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
    akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
  )");
  ActorRef first = kit.Sys().ActorOf(Props::Create<Counter>("c"), "first");
  first.Tell(std::string("a"), kit.TestActor());
  first.Tell(std::string("b"), kit.TestActor());
  kit.ExpectMsg<int>(1);
  kit.ExpectMsg<int>(2);
  kit.Watch(first);
  kit.Sys().Stop(first);
  kit.ExpectTerminated(first);
  ActorRef second = kit.Sys().ActorOf(Props::Create<Counter>("c"), "second");
  second.Tell(std::string("c"), kit.TestActor());
  kit.ExpectMsg<int>(3);
}

TEST(InMemoryOnlyTest, APluginNotLinkedIsNotFoundNamingWhatToLink) {
  TestKit kit;  // the default journal: RocksDB, not linked here
  absl::StatusOr<Journal*> journal = Persistence::Get(kit.Sys()).JournalFor("");
  ASSERT_EQ(journal.status().code(), absl::StatusCode::kNotFound);
  const std::string message(journal.status().message());
  EXPECT_THAT(message, HasSubstr("akka.persistence.journal.rocksdb"));
  EXPECT_THAT(message, HasSubstr("akka.persistence.journal.inmem"));
  EXPECT_THAT(message, HasSubstr("//persistence:default_plugins"));
  absl::StatusOr<SnapshotStore*> store =
      Persistence::Get(kit.Sys()).SnapshotStoreFor("");
  EXPECT_EQ(store.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace cairn::persistence
