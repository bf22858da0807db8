// Write fences per actor subtree (Persistence::SetWriteFence): a
// persistent actor below a scope puts the scope's current fence into every
// AtomicWrite, follows it when it changes, fails its writes while the
// scope holds none; one outside every scope sends none.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "actor/actor.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/plugin_registry.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using ::testing::HasSubstr;

constexpr char kJournal[] = "fence-recording-journal";
constexpr char kConfig[] = R"(
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
)";

// What the journal received: one entry per AtomicWrite, its fence's token
// (0: no fence) and lease.
struct Received {
  int64_t token = 0;
  std::string lease;
};

class RecordingJournal final : public JournalWrapper {
 public:
  RecordingJournal(std::unique_ptr<Journal> target,
                   std::shared_ptr<std::mutex> mu,
                   std::shared_ptr<std::vector<Received>> received)
      : JournalWrapper(std::move(target)),
        mu_(std::move(mu)),
        received_(std::move(received)) {}
  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    {
      std::lock_guard<std::mutex> lock(*mu_);
      for (const AtomicWrite& w : writes) {
        received_->push_back(w.fence.has_value()
                                 ? Received{w.fence->token, w.fence->lease}
                                 : Received{});
      }
    }
    target().AsyncWriteMessages(std::move(writes), std::move(done));
  }

 private:
  std::shared_ptr<std::mutex> mu_;
  std::shared_ptr<std::vector<Received>> received_;
};

// Persists each string it gets and answers "stored <text>"; reports a
// persist failure to `probe` as "failed: <message>".
class Writer final : public PersistentActor {
 public:
  Writer(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<std::string>([](const std::string&) {});
    Command<std::string>([this](const std::string& text) {
      Persist(text, [this](const std::string& t) {
        Sender().Tell(std::string("stored ") + t);
      });
    });
  }
  std::string PersistenceId() const override { return id_; }
  std::string JournalPluginId() const override { return kJournal; }

 protected:
  void OnPersistFailure(const absl::Status& cause, const Payload&,
                        int64_t) override {
    probe_.Tell(std::string("failed: ") + std::string(cause.message()));
  }

 private:
  std::string id_;
  ActorRef probe_;
};

// A scope: starts a Writer child "w" on "start", forwards strings to it.
class Scope final : public actor::Actor {
 public:
  explicit Scope(ActorRef probe) : probe_(std::move(probe)) {
    Receive<std::string>([this](const std::string& text) {
      if (text == "start") {
        child_ = Context().ActorOf(
            Props::Create<Writer>(std::string("in-scope"), probe_), "w");
        return;
      }
      child_.Forward(text);
    });
  }

 private:
  ActorRef probe_;
  ActorRef child_;
};

class WriteFenceTest : public ::testing::Test {
 protected:
  WriteFenceTest() {
    PersistenceSetup setup;
    setup.register_plugins = [mu = mu_,
                              received = received_](PluginRegistry& plugins) {
      return plugins.RegisterJournal(
          kJournal,
          [mu, received](const PluginContext& context)
              -> absl::StatusOr<std::unique_ptr<Journal>> {
            return std::unique_ptr<Journal>(std::make_unique<RecordingJournal>(
                NewInMemoryJournal(context.serialization), mu, received));
          });
    };
    EXPECT_TRUE(Persistence::Get(kit_.Sys()).Setup(std::move(setup)).ok());
  }

  std::vector<Received> TakeReceived() {
    std::lock_guard<std::mutex> lock(*mu_);
    return std::exchange(*received_, {});
  }

  TestKit kit_{std::string_view(kConfig)};
  std::unique_ptr<actor::testkit::TestProbe> probe_ = kit_.CreateTestProbe();
  std::shared_ptr<std::mutex> mu_ = std::make_shared<std::mutex>();
  std::shared_ptr<std::vector<Received>> received_ =
      std::make_shared<std::vector<Received>>();
};

WriteFence Fence(int64_t token) { return WriteFence{"shard-1", "me", token}; }

TEST_F(WriteFenceTest, WritesBelowAScopeCarryItsCurrentFence) {
  Persistence& persistence = Persistence::Get(kit_.Sys());
  ActorRef scope = kit_.Sys().ActorOf(Props::Create<Scope>(probe_->Ref()), "s");
  persistence.SetWriteFence(scope, Fence(7));
  scope.Tell(std::string("start"));
  scope.Tell(std::string("a"), kit_.TestActor());
  kit_.ExpectMsg<std::string>("stored a");
  std::vector<Received> got = TakeReceived();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].token, 7);
  EXPECT_EQ(got[0].lease, "shard-1");

  // A new fence: the running actor's next write carries it.
  persistence.SetWriteFence(scope, Fence(9));
  scope.Tell(std::string("b"), kit_.TestActor());
  kit_.ExpectMsg<std::string>("stored b");
  got = TakeReceived();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].token, 9);
}

TEST_F(WriteFenceTest, AScopeWithoutAFenceFailsTheWritesBelowIt) {
  Persistence& persistence = Persistence::Get(kit_.Sys());
  ActorRef scope = kit_.Sys().ActorOf(Props::Create<Scope>(probe_->Ref()), "s");
  persistence.SetWriteFence(scope, Fence(1));
  scope.Tell(std::string("start"));
  persistence.SetWriteFence(scope, std::nullopt);  // the lease is lost
  scope.Tell(std::string("a"), kit_.TestActor());
  std::string failure = probe_->ExpectMsg<std::string>();
  EXPECT_THAT(failure, HasSubstr("failed: "));
  EXPECT_THAT(failure, HasSubstr("/user/s holds no fence"));
  EXPECT_TRUE(TakeReceived().empty());  // nothing reached the journal
}

TEST_F(WriteFenceTest, AnActorOutsideEveryScopeWritesWithoutAFence) {
  Persistence& persistence = Persistence::Get(kit_.Sys());
  ActorRef scope = kit_.Sys().ActorOf(Props::Create<Scope>(probe_->Ref()), "s");
  persistence.SetWriteFence(scope, Fence(3));
  // A sibling of the scope, and one whose name merely starts like it.
  ActorRef outside = kit_.Sys().ActorOf(
      Props::Create<Writer>(std::string("outside"), probe_->Ref()), "s2");
  outside.Tell(std::string("x"), kit_.TestActor());
  kit_.ExpectMsg<std::string>("stored x");
  std::vector<Received> got = TakeReceived();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].token, 0);
}

TEST_F(WriteFenceTest, ARemovedScopeIsNoScopeForActorsStartedAfter) {
  Persistence& persistence = Persistence::Get(kit_.Sys());
  ActorRef scope = kit_.Sys().ActorOf(Props::Create<Scope>(probe_->Ref()), "s");
  persistence.SetWriteFence(scope, Fence(3));
  persistence.RemoveWriteFenceScope(scope);
  EXPECT_EQ(persistence.WriteFenceScopeOf(ActorRef()), nullptr);
  scope.Tell(std::string("start"));
  scope.Tell(std::string("a"), kit_.TestActor());
  kit_.ExpectMsg<std::string>("stored a");
  std::vector<Received> got = TakeReceived();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].token, 0);
}

}  // namespace
}  // namespace cairn::persistence
