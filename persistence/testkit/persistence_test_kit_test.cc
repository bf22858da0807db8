// PersistenceTestKit: what persistent actors persist is expected event by
// event, and the kit's journal and snapshot store fail or reject on command
// with the outcomes a persistent actor defines (OnPersistFailure,
// OnPersistRejected, OnRecoveryFailure, SaveSnapshotFailure,
// DeleteSnapshot(s)Failure).

#include "persistence/testkit/persistence_test_kit.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/persistent_actor.h"

namespace cairn::persistence::testkit {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using actor::testkit::TestKitAssertion;

struct Snap {};
struct DropSnapshot {
  int64_t sequence_nr;
};
struct DropSnapshots {};
struct Get {};
struct Nothing {};  // a command that persists nothing
struct Many {
  std::vector<std::string> events;
};
struct State {
  std::vector<std::string> events;
  bool operator==(const State&) const = default;
};
struct Failed {
  std::string what;
};

// Persists each string command as an event; reports every outcome to the
// probe.
class Journaled final : public PersistentActor {
 public:
  Journaled(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<std::string>(
        [this](const std::string& e) { state_.events.push_back(e); });
    Recover<SnapshotOffer>([this](const SnapshotOffer& offer) {
      state_ = *offer.snapshot.As<State>();
    });
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
    Command<std::string>([this](const std::string& c) {
      Persist(c, [this](const std::string& e) {
        state_.events.push_back(e);
        probe_.Tell(LastSequenceNr());
      });
    });
    Command<Many>([this](const Many& m) {
      PersistAll(m.events,
                 [this](const std::string& e) { state_.events.push_back(e); });
    });
    Command<Nothing>([this](const Nothing&) { probe_.Tell(Nothing{}); });
    Command<Get>([this](const Get&) { probe_.Tell(state_); });
    Command<Snap>([this](const Snap&) { SaveSnapshot(state_); });
    Command<DropSnapshot>(
        [this](const DropSnapshot& d) { DeleteSnapshot(d.sequence_nr); });
    Command<DropSnapshots>([this](const DropSnapshots&) {
      DeleteSnapshots(SnapshotSelectionCriteria::Latest());
    });
    Command<SaveSnapshotSuccess>(
        [this](const SaveSnapshotSuccess& s) { probe_.Tell(s); });
    Command<SaveSnapshotFailure>([this](const SaveSnapshotFailure& f) {
      probe_.Tell(Failed{"save: " + std::string(f.cause.message())});
    });
    Command<DeleteSnapshotFailure>([this](const DeleteSnapshotFailure& f) {
      probe_.Tell(Failed{"delete: " + std::string(f.cause.message())});
    });
    Command<DeleteSnapshotsFailure>([this](const DeleteSnapshotsFailure& f) {
      probe_.Tell(Failed{"delete all: " + std::string(f.cause.message())});
    });
  }
  std::string PersistenceId() const override { return id_; }

 protected:
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload&, int64_t) override {
    probe_.Tell(Failed{"persist: " + std::string(cause.message())});
  }
  void OnPersistRejected(const absl::Status& cause,
                         const serialization::Payload&,
                         int64_t sequence_nr) override {
    probe_.Tell(
        Failed{absl::StrCat("rejected ", sequence_nr, ": ", cause.message())});
  }
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override {
    probe_.Tell(Failed{"recovery: " + std::string(cause.message())});
  }

 private:
  std::string id_;
  ActorRef probe_;
  State state_;
};

std::shared_ptr<serialization::SerializationRegistry> Registry() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  absl::Status registered = registry->Register<State>(
      "test.State",
      [](const State& s) -> absl::StatusOr<std::string> {
        return absl::StrJoin(s.events, "\n");
      },
      [](std::string_view bytes) -> absl::StatusOr<State> {
        State s;
        if (!bytes.empty()) s.events = absl::StrSplit(std::string(bytes), '\n');
        return s;
      });
  EXPECT_OK(registered);
  return registry;
}

class PersistenceTestKitTest : public ::testing::Test {
 protected:
  PersistenceTestKitTest() : kit_(PersistenceTestKit::Config()) {
    PersistenceSetup setup;
    setup.serialization = Registry();
    auto made = PersistenceTestKit::Create(kit_.Sys(), std::move(setup));
    EXPECT_OK(made);
    persistence_ = *std::move(made);
  }

  ActorRef Start(const std::string& id) {
    ActorRef a =
        kit_.Sys().ActorOf(Props::Create<Journaled>(id, kit_.TestActor()));
    kit_.ExpectMsg<RecoveryCompleted>();
    return a;
  }

  TestKit kit_;
  std::unique_ptr<PersistenceTestKit> persistence_;
};

TEST_F(PersistenceTestKitTest, ExpectsWhatWasPersistedInOrderPerId) {
  ActorRef a = Start("a");
  ActorRef b = Start("b");
  a.Tell(std::string("a1"));
  b.Tell(std::string("b1"));
  a.Tell(Many{{"a2", "a3"}});
  kit_.ExpectMsg<int64_t>();
  kit_.ExpectMsg<int64_t>();
  EXPECT_EQ(persistence_->ExpectNextPersisted<std::string>("b"), "b1");
  EXPECT_EQ(persistence_->ExpectNextPersisted<std::string>("a"), "a1");
  persistence_->ExpectNextPersisted<std::string>("a", std::string("a2"));
  persistence_->ExpectNextPersisted<std::string>("a", std::string("a3"));
  a.Tell(Nothing{});
  kit_.ExpectMsg<Nothing>();
  persistence_->ExpectNothingPersisted("a", absl::ZeroDuration());
}

TEST_F(PersistenceTestKitTest, AWrongEventOrNoneFailsTheExpectation) {
  ActorRef a = Start("a");
  a.Tell(std::string("a1"));
  kit_.ExpectMsg<int64_t>(1);
  EXPECT_THROW(persistence_->ExpectNextPersisted<int>("a"), TestKitAssertion);
  a.Tell(std::string("a2"));
  kit_.ExpectMsg<int64_t>(2);
  EXPECT_THROW(
      persistence_->ExpectNextPersisted<std::string>("a", std::string("x")),
      TestKitAssertion);
  EXPECT_THROW(persistence_->ExpectNextPersisted<std::string>(
                   "a", absl::Milliseconds(1)),
               TestKitAssertion);
  a.Tell(std::string("a3"));
  kit_.ExpectMsg<int64_t>(3);
  EXPECT_THROW(persistence_->ExpectNothingPersisted("a", absl::ZeroDuration()),
               TestKitAssertion);
}

TEST_F(PersistenceTestKitTest, AFailedWriteStopsTheActorAndRecordsNothing) {
  ActorRef a = Start("a");
  kit_.Watch(a);
  persistence_->FailNextPersisted();
  a.Tell(std::string("a1"));
  Failed failed = kit_.ExpectMsg<Failed>();
  EXPECT_NE(failed.what.find("persist: "), std::string::npos) << failed.what;
  EXPECT_NE(failed.what.find("injected write failure"), std::string::npos)
      << failed.what;
  kit_.ExpectTerminated(a);
  persistence_->ExpectNothingPersisted("a", absl::ZeroDuration());
  EXPECT_TRUE(persistence_->PersistedInStorage("a")->empty());
}

TEST_F(PersistenceTestKitTest, ARejectedWriteIsSkippedAndTheActorGoesOn) {
  ActorRef a = Start("a");
  persistence_->RejectNextPersisted();
  a.Tell(std::string("a1"));
  Failed rejected = kit_.ExpectMsg<Failed>();
  EXPECT_NE(rejected.what.find("rejected 1"), std::string::npos)
      << rejected.what;
  a.Tell(std::string("a2"));
  kit_.ExpectMsg<int64_t>(2);
  persistence_->ExpectNextPersisted<std::string>("a", std::string("a2"));
  absl::StatusOr<std::vector<serialization::Payload>> stored =
      persistence_->PersistedInStorage("a");
  ASSERT_OK(stored);
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_EQ(*stored->front().As<std::string>(), "a2");
}

TEST_F(PersistenceTestKitTest, AFailedReadFailsTheRecovery) {
  persistence_->FailNextRead();
  ActorRef a =
      kit_.Sys().ActorOf(Props::Create<Journaled>("a", kit_.TestActor()));
  kit_.Watch(a);
  Failed failed = kit_.ExpectMsg<Failed>();
  EXPECT_NE(failed.what.find("recovery: "), std::string::npos) << failed.what;
  EXPECT_NE(failed.what.find("injected replay failure"), std::string::npos)
      << failed.what;
  kit_.ExpectTerminated(a);
  Start("a");  // the next recovery reads again
}

TEST_F(PersistenceTestKitTest, EventsStoredForRecoveryAreRecovered) {
  ASSERT_OK(persistence_->PersistForRecovery(
      "a", {serialization::Payload::Of(std::string("x")),
            serialization::Payload::Of(std::string("y"))}));
  ActorRef a = Start("a");
  a.Tell(Get{});
  EXPECT_EQ(kit_.ExpectMsg<State>(), (State{{"x", "y"}}));
  // Not persisted by an actor: nothing to expect.
  persistence_->ExpectNothingPersisted("a", absl::ZeroDuration());
  a.Tell(std::string("z"));
  kit_.ExpectMsg<int64_t>(3);
  persistence_->ExpectNextPersisted<std::string>("a", std::string("z"));
}

TEST_F(PersistenceTestKitTest, SnapshotsAreExpectedAndFailOnCommand) {
  ActorRef a = Start("a");
  a.Tell(std::string("a1"));
  kit_.ExpectMsg<int64_t>(1);
  a.Tell(Snap{});
  kit_.ExpectMsg<SaveSnapshotSuccess>();
  EXPECT_EQ(persistence_->ExpectNextSnapshot<State>("a"), (State{{"a1"}}));

  persistence_->snapshot_faults().FailNextSaves(1);
  a.Tell(Snap{});
  Failed save = kit_.ExpectMsg<Failed>();
  EXPECT_NE(save.what.find("save: injected save failure"), std::string::npos)
      << save.what;
  EXPECT_THROW(
      persistence_->ExpectNextSnapshot<State>("a", absl::ZeroDuration()),
      TestKitAssertion);

  persistence_->snapshot_faults().FailNextDeletes(2);
  a.Tell(DropSnapshot{1});
  Failed drop = kit_.ExpectMsg<Failed>();
  EXPECT_NE(drop.what.find("delete: injected delete failure"),
            std::string::npos)
      << drop.what;
  a.Tell(DropSnapshots{});
  Failed drop_all = kit_.ExpectMsg<Failed>();
  EXPECT_NE(drop_all.what.find("delete all: injected delete failure"),
            std::string::npos)
      << drop_all.what;

  // A snapshot that cannot be loaded fails the recovery.
  kit_.Watch(a);
  a.Tell(actor::PoisonPill{});
  kit_.ExpectTerminated(a);
  persistence_->snapshot_faults().FailNextLoads(1);
  ActorRef again =
      kit_.Sys().ActorOf(Props::Create<Journaled>("a", kit_.TestActor()));
  kit_.Watch(again);
  Failed load = kit_.ExpectMsg<Failed>();
  EXPECT_NE(load.what.find("recovery: "), std::string::npos) << load.what;
  EXPECT_NE(load.what.find("injected load failure"), std::string::npos)
      << load.what;
  kit_.ExpectTerminated(again);
  // Then it loads, with the snapshot that was kept.
  ActorRef third = Start("a");
  third.Tell(Get{});
  EXPECT_EQ(kit_.ExpectMsg<State>(), (State{{"a1"}}));
}

}  // namespace
}  // namespace cairn::persistence::testkit
