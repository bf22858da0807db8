// Write fences per actor subtree (Persistence::SetWriteFence): a
// persistent actor below a scope puts the scope's current fence into every
// AtomicWrite, delete of its events and snapshot save or delete, follows it
// when it changes, fails them while the scope holds none; one outside every
// scope sends none.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "actor/actor.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/messages.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/snapshot_store_wrapper.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using ::testing::HasSubstr;

constexpr char kJournal[] = "fence-recording-journal";
constexpr char kSnapshotStore[] = "fence-recording-snapshot-store";
constexpr char kConfig[] = R"(
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
)";

// What the journal and the snapshot store received: one entry per
// AtomicWrite, delete and snapshot save or delete: which it was, its
// fence's token (0: no fence) and lease.
struct Received {
  std::string call;
  int64_t token = 0;
  std::string lease;
};

// Records `call` with `fence` in `received`.
void Record(base::Mutex& mu, std::vector<Received>& received, std::string call,
            const std::optional<WriteFence>& fence) {
  base::MutexLock lock(&mu);
  received.push_back(fence.has_value()
                         ? Received{std::move(call), fence->token, fence->lease}
                         : Received{std::move(call), 0, ""});
}

class RecordingJournal final : public JournalWrapper {
 public:
  RecordingJournal(std::unique_ptr<Journal> target,
                   std::shared_ptr<base::Mutex> mu,
                   std::shared_ptr<std::vector<Received>> received)
      : JournalWrapper(std::move(target)),
        mu_(std::move(mu)),
        received_(std::move(received)) {}
  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    for (const AtomicWrite& w : writes) {
      Record(*mu_, *received_, "write", w.fence);
    }
    target().AsyncWriteMessages(std::move(writes), std::move(done));
  }
  void AsyncDeleteMessagesTo(std::string persistence_id, int64_t to_sequence_nr,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override {
    Record(*mu_, *received_, "delete events", fence);
    target().AsyncDeleteMessagesTo(std::move(persistence_id), to_sequence_nr,
                                   std::move(fence), std::move(done));
  }

 private:
  std::shared_ptr<base::Mutex> mu_;
  std::shared_ptr<std::vector<Received>> received_;
};

class RecordingSnapshotStore final : public SnapshotStoreWrapper {
 public:
  RecordingSnapshotStore(std::unique_ptr<SnapshotStore> target,
                         std::shared_ptr<base::Mutex> mu,
                         std::shared_ptr<std::vector<Received>> received)
      : SnapshotStoreWrapper(std::move(target)),
        mu_(std::move(mu)),
        received_(std::move(received)) {}
  void AsyncSave(SnapshotMetadata metadata, serialization::Payload snapshot,
                 std::optional<WriteFence> fence, DoneCallback done) override {
    Record(*mu_, *received_, "save snapshot", fence);
    target().AsyncSave(std::move(metadata), std::move(snapshot),
                       std::move(fence), std::move(done));
  }
  void AsyncDelete(SnapshotMetadata metadata, std::optional<WriteFence> fence,
                   DoneCallback done) override {
    Record(*mu_, *received_, "delete snapshot", fence);
    target().AsyncDelete(std::move(metadata), std::move(fence),
                         std::move(done));
  }
  void AsyncDeleteByCriteria(std::string persistence_id,
                             SnapshotSelectionCriteria criteria,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override {
    Record(*mu_, *received_, "delete snapshots", fence);
    target().AsyncDeleteByCriteria(std::move(persistence_id), criteria,
                                   std::move(fence), std::move(done));
  }

 private:
  std::shared_ptr<base::Mutex> mu_;
  std::shared_ptr<std::vector<Received>> received_;
};

// Persists each string it gets and answers "stored <text>"; reports a
// persist failure to `probe` as "failed: <message>". The commands "snap",
// "delete events", "delete snapshot" and "delete snapshots" save a
// snapshot, delete the events, the snapshot at the last sequence number,
// every snapshot; their outcomes go to `probe` as "<command>: ok" or
// "<command> failed: <message>".
class Writer final : public PersistentActor {
 public:
  Writer(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<std::string>([](const std::string&) {});
    Command<std::string>([this](const std::string& text) {
      if (text == "snap") {
        SaveSnapshot(std::string("state"));
      } else if (text == "delete events") {
        DeleteMessages(LastSequenceNr());
      } else if (text == "delete snapshot") {
        DeleteSnapshot(LastSequenceNr());
      } else if (text == "delete snapshots") {
        DeleteSnapshots(SnapshotSelectionCriteria::Latest());
      } else {
        Persist(text, [this](const std::string& t) {
          Sender().Tell(std::string("stored ") + t);
        });
      }
    });
    Command<SaveSnapshotSuccess>(
        [this](const SaveSnapshotSuccess&) { Report("snap", {}); });
    Command<SaveSnapshotFailure>(
        [this](const SaveSnapshotFailure& f) { Report("snap", f.cause); });
    Command<DeleteMessagesSuccess>(
        [this](const DeleteMessagesSuccess&) { Report("delete events", {}); });
    Command<DeleteMessagesFailure>([this](const DeleteMessagesFailure& f) {
      Report("delete events", f.cause);
    });
    Command<DeleteSnapshotSuccess>([this](const DeleteSnapshotSuccess&) {
      Report("delete snapshot", {});
    });
    Command<DeleteSnapshotFailure>([this](const DeleteSnapshotFailure& f) {
      Report("delete snapshot", f.cause);
    });
    Command<DeleteSnapshotsSuccess>([this](const DeleteSnapshotsSuccess&) {
      Report("delete snapshots", {});
    });
    Command<DeleteSnapshotsFailure>([this](const DeleteSnapshotsFailure& f) {
      Report("delete snapshots", f.cause);
    });
  }
  std::string PersistenceId() const override { return id_; }
  std::string JournalPluginId() const override { return kJournal; }
  std::string SnapshotPluginId() const override { return kSnapshotStore; }

 protected:
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload&, int64_t) override {
    probe_.Tell(std::string("failed: ") + std::string(cause.message()));
  }

 private:
  void Report(const std::string& command, const absl::Status& outcome) {
    probe_.Tell(outcome.ok()
                    ? command + ": ok"
                    : command + " failed: " + std::string(outcome.message()));
  }

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
      absl::Status registered = plugins.RegisterJournal(
          kJournal,
          [mu, received](const PluginContext& context)
              -> absl::StatusOr<std::unique_ptr<Journal>> {
            return std::unique_ptr<Journal>(std::make_unique<RecordingJournal>(
                NewInMemoryJournal(context.serialization), mu, received));
          });
      if (!registered.ok()) return registered;
      return plugins.RegisterSnapshotStore(
          kSnapshotStore,
          [mu, received](const PluginContext& context)
              -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
            return std::unique_ptr<SnapshotStore>(
                std::make_unique<RecordingSnapshotStore>(
                    NewInMemorySnapshotStore(context.serialization), mu,
                    received));
          });
    };
    EXPECT_OK(Persistence::Get(kit_.Sys()).Setup(std::move(setup)));
  }

  std::vector<Received> TakeReceived() {
    base::MutexLock lock(&*mu_);
    return std::exchange(*received_, {});
  }

  TestKit kit_{std::string_view(kConfig)};
  std::unique_ptr<actor::testkit::TestProbe> probe_ = kit_.CreateTestProbe();
  std::shared_ptr<base::Mutex> mu_ = std::make_shared<base::Mutex>();
  std::shared_ptr<std::vector<Received>> received_ =
      std::make_shared<std::vector<Received>>();
};

WriteFence Fence(int64_t token) { return WriteFence{"shard-1", "me", token}; }

// The commands of Writer that delete or save, in the order the tests send
// them.
const std::vector<std::string>& Changes() {
  static const auto* changes = new std::vector<std::string>{
      "snap", "delete events", "delete snapshot", "delete snapshots"};
  return *changes;
}

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

TEST_F(WriteFenceTest, DeletesAndSnapshotChangesBelowAScopeCarryItsFence) {
  Persistence& persistence = Persistence::Get(kit_.Sys());
  ActorRef scope = kit_.Sys().ActorOf(Props::Create<Scope>(probe_->Ref()), "s");
  persistence.SetWriteFence(scope, Fence(7));
  scope.Tell(std::string("start"));
  scope.Tell(std::string("a"), kit_.TestActor());
  kit_.ExpectMsg<std::string>("stored a");
  persistence.SetWriteFence(scope, Fence(8));
  for (const std::string& change : Changes()) {
    scope.Tell(change);
    probe_->ExpectMsg<std::string>(change + ": ok");
  }
  std::vector<Received> got = TakeReceived();
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0].call, "write");
  EXPECT_EQ(got[0].token, 7);
  for (size_t i = 1; i < got.size(); ++i) {
    EXPECT_EQ(got[i].token, 8) << got[i].call;
    EXPECT_EQ(got[i].lease, "shard-1") << got[i].call;
  }
  EXPECT_EQ(got[1].call, "save snapshot");
  EXPECT_EQ(got[2].call, "delete events");
  EXPECT_EQ(got[3].call, "delete snapshot");
  EXPECT_EQ(got[4].call, "delete snapshots");
}

TEST_F(WriteFenceTest, AScopeWithoutAFenceFailsTheDeletesAndSnapshotSaves) {
  Persistence& persistence = Persistence::Get(kit_.Sys());
  ActorRef scope = kit_.Sys().ActorOf(Props::Create<Scope>(probe_->Ref()), "s");
  persistence.SetWriteFence(scope, Fence(1));
  scope.Tell(std::string("start"));
  scope.Tell(std::string("a"), kit_.TestActor());
  kit_.ExpectMsg<std::string>("stored a");
  ASSERT_EQ(TakeReceived().size(), 1u);
  persistence.SetWriteFence(scope, std::nullopt);  // the lease is lost
  for (const std::string& change : Changes()) {
    scope.Tell(change);
    std::string failure = probe_->ExpectMsg<std::string>();
    EXPECT_THAT(failure, HasSubstr(change + " failed: "));
    EXPECT_THAT(failure, HasSubstr("/user/s holds no fence"));
  }
  // Nothing reached the journal or the snapshot store.
  EXPECT_TRUE(TakeReceived().empty());
  // The actor goes on: with a fence again, they are applied.
  persistence.SetWriteFence(scope, Fence(2));
  for (const std::string& change : Changes()) {
    scope.Tell(change);
    probe_->ExpectMsg<std::string>(change + ": ok");
  }
  EXPECT_EQ(TakeReceived().size(), Changes().size());
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
  for (const std::string& change : Changes()) {
    outside.Tell(change);
    probe_->ExpectMsg<std::string>(change + ": ok");
  }
  std::vector<Received> got = TakeReceived();
  ASSERT_EQ(got.size(), 1 + Changes().size());
  for (const Received& r : got) EXPECT_EQ(r.token, 0) << r.call;
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
