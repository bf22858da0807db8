// Persistent actors whose store takes long to open (RocksDB replaying a
// large write-ahead log after a crash) hold up no dispatcher thread: other
// actors go on, and the persistent actors recover once the store is open.

#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/testing/gate.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using testing::Gate;

struct Recovered {
  std::string id;
};

class Recovering final : public PersistentActor {
 public:
  Recovering(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(Recovered{id_}); });
  }
  std::string PersistenceId() const override { return id_; }
  std::string JournalPluginId() const override { return "slow-to-open"; }

 private:
  std::string id_;
  ActorRef probe_;
};

class Echo final : public actor::Actor {
 public:
  Echo() {
    Receive<int>([this](int n) { Sender().Tell(n); });
  }
};

TEST(StoreOpenTest, ASlowOpenHoldsUpNoDispatcherThread) {
  // More persistent actors than the dispatcher has threads: if each waited
  // for the open on its thread, nothing else could run.
  Gate gate;  // outlives the system, whose journal may wait at it
  TestKit kit(R"(
    akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
    akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
    akka.actor.default-dispatcher.fork-join-executor {
      parallelism-min = 2
      parallelism-max = 2
    }
  )");
  // Whatever happens below, the open ends before the system is torn down.
  struct OpenAtExit {
    Gate& gate;
    ~OpenAtExit() { gate.Open(); }
  } open_at_exit{gate};
  PersistenceSetup setup;
  setup.register_plugins = [&gate](PluginRegistry& plugins) {
    return plugins.RegisterJournal(
        "slow-to-open",
        [&gate](const PluginContext& context)
            -> absl::StatusOr<std::unique_ptr<Journal>> {
          gate.Wait();
          return NewInMemoryJournal(context.serialization);
        });
  };
  ASSERT_OK(Persistence::Get(kit.Sys()).Setup(std::move(setup)));

  std::set<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    ids.insert(absl::StrCat("slow-", i));
    kit.Sys().ActorOf(
        Props::Create<Recovering>(absl::StrCat("slow-", i), kit.TestActor()));
  }
  ActorRef echo = kit.Sys().ActorOf(Props::Create<Echo>());
  for (int n = 0; n < 10; ++n) {
    echo.Tell(n);
    kit.ExpectMsg<int>(n);
  }
  kit.ExpectNoMsg(absl::Milliseconds(50));  // nobody has recovered

  gate.Open();
  std::set<std::string> recovered;
  for (int i = 0; i < 4; ++i) recovered.insert(kit.ExpectMsg<Recovered>().id);
  EXPECT_EQ(recovered, ids);
}

}  // namespace
}  // namespace cairn::persistence
