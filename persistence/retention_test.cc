// Snapshot retention (retention_criteria.h) and recovery past snapshots that
// cannot be loaded, at the actor level, over the persistence test kit: what
// the snapshot store and the journal hold afterwards, and what the actor
// recovers.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/persistent_actor.h"
#include "persistence/retention_criteria.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"
#include "persistence/testkit/persistence_test_kit.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testkit::PersistenceTestKit;

struct SaveState {};       // SaveSnapshot of the state
struct SaveUnreadable {};  // SaveSnapshot of a value that cannot be read back
struct DeleteEventsTo {
  int64_t to_sequence_nr;
};
struct Persisted {
  int64_t sequence_nr;
};
struct Offered {
  int64_t sequence_nr;
};
struct Recovered {
  std::string state;
  int64_t last_sequence_nr;
};
struct Failed {
  std::string what;
};

// Persists each string command; its state is the events joined by ';'. It
// reports what a test waits for to the probe.
class Retained final : public PersistentActor {
 public:
  Retained(std::string id, ActorRef probe,
           std::optional<RetentionCriteria> retention)
      : id_(std::move(id)),
        probe_(std::move(probe)),
        retention_(std::move(retention)) {
    Recover<std::string>([this](const std::string& e) { Apply(e); });
    Recover<SnapshotOffer>([this](const SnapshotOffer& offer) {
      state_ = *offer.snapshot.As<std::string>();
      probe_.Tell(Offered{offer.metadata.sequence_nr});
    });
    Recover<RecoveryCompleted>([this](const RecoveryCompleted&) {
      probe_.Tell(Recovered{state_, LastSequenceNr()});
    });
    Command<std::string>([this](const std::string& c) {
      Persist(c, [this](const std::string& e) {
        Apply(e);
        probe_.Tell(Persisted{LastSequenceNr()});
      });
    });
    Command<SaveState>([this](const SaveState&) { SaveSnapshot(state_); });
    Command<SaveUnreadable>([this](const SaveUnreadable&) {
      SaveSnapshot(testing::FailsToDecode{});
    });
    Command<DeleteEventsTo>(
        [this](const DeleteEventsTo& d) { DeleteMessages(d.to_sequence_nr); });
    Command<SaveSnapshotSuccess>(
        [this](const SaveSnapshotSuccess& s) { probe_.Tell(s); });
    Command<SaveSnapshotFailure>([this](const SaveSnapshotFailure& f) {
      probe_.Tell(Failed{"save: " + std::string(f.cause.message())});
    });
    Command<DeleteSnapshotsSuccess>(
        [this](const DeleteSnapshotsSuccess& s) { probe_.Tell(s); });
    Command<DeleteSnapshotsFailure>([this](const DeleteSnapshotsFailure& f) {
      probe_.Tell(
          Failed{"delete snapshots: " + std::string(f.cause.message())});
    });
    Command<DeleteMessagesSuccess>(
        [this](const DeleteMessagesSuccess& s) { probe_.Tell(s); });
    Command<DeleteMessagesFailure>([this](const DeleteMessagesFailure& f) {
      probe_.Tell(Failed{"delete events: " + std::string(f.cause.message())});
    });
  }

  std::string PersistenceId() const override { return id_; }
  std::optional<RetentionCriteria> GetRetention() const override {
    return retention_;
  }
  std::optional<serialization::Payload> RetentionSnapshot() const override {
    return serialization::Payload::Of(state_);
  }

 protected:
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override {
    probe_.Tell(Failed{"recovery: " + cause.ToString()});
  }

 private:
  void Apply(const std::string& e) { absl::StrAppend(&state_, e, ";"); }

  std::string id_;
  ActorRef probe_;
  std::optional<RetentionCriteria> retention_;
  std::string state_;
};

class RetentionTest : public ::testing::Test {
 protected:
  explicit RetentionTest(std::string_view config = "")
      : kit_(hocon::Config::ParseString(config).value().WithFallback(
            PersistenceTestKit::Config())) {
    PersistenceSetup setup;
    setup.serialization = testing::NewTestSerialization();
    auto made = PersistenceTestKit::Create(kit_.Sys(), std::move(setup));
    EXPECT_OK(made);
    persistence_ = *std::move(made);
  }

  ActorRef Start(const std::string& id,
                 std::optional<RetentionCriteria> retention) {
    return kit_.Sys().ActorOf(
        Props::Create<Retained>(id, kit_.TestActor(), std::move(retention)));
  }
  ActorRef StartRecovered(const std::string& id,
                          std::optional<RetentionCriteria> retention) {
    ActorRef a = Start(id, std::move(retention));
    kit_.FishForMessage<Recovered>([](const Recovered&) { return true; });
    return a;
  }
  void Stop(const ActorRef& a) {
    kit_.Watch(a);
    kit_.Sys().Stop(a);
    kit_.ExpectTerminated(a);
  }

  // Persists events e<from> to e<to>, one command at a time.
  void PersistEvents(const ActorRef& a, int from, int to) {
    for (int i = from; i <= to; ++i) {
      a.Tell(absl::StrCat("e", i));
      kit_.FishForMessage<Persisted>([](const Persisted&) { return true; });
    }
  }

  // The sequence numbers of the snapshots the store holds for `id`, newest
  // first.
  std::vector<int64_t> SnapshotsHeld(const std::string& id) {
    SnapshotStore* store =
        *Persistence::Get(kit_.Sys())
             .SnapshotStoreFor(PersistenceTestKit::kSnapshotStorePluginId);
    std::vector<int64_t> held;
    SnapshotSelectionCriteria criteria = SnapshotSelectionCriteria::Latest();
    for (;;) {
      absl::StatusOr<LoadSnapshotResult> loaded =
          testing::LoadSnapshot(*store, id, criteria, kMaxSequenceNr);
      EXPECT_OK(loaded);
      if (!loaded.ok() || !loaded->snapshot.has_value()) return held;
      held.push_back(loaded->snapshot->metadata.sequence_nr);
      criteria.max_sequence_nr = held.back() - 1;
    }
  }

  // The events the journal holds for `id`.
  std::vector<std::string> EventsHeld(const std::string& id) {
    std::vector<std::string> texts;
    absl::StatusOr<std::vector<serialization::Payload>> events =
        persistence_->PersistedInStorage(id);
    EXPECT_OK(events);
    if (!events.ok()) return texts;
    for (const serialization::Payload& e : *events)
      texts.push_back(*e.As<std::string>());
    return texts;
  }

  TestKit kit_;
  std::unique_ptr<PersistenceTestKit> persistence_;
};

TEST_F(RetentionTest, SnapshotsEveryNEventsAndKeepsTheNewestK) {
  ActorRef a = StartRecovered("r", RetentionCriteria::SnapshotEvery(3, 2));
  PersistEvents(a, 1, 9);
  // Snapshots after events 3, 6 and 9, each of the state at that event.
  EXPECT_EQ(persistence_->ExpectNextSnapshot<std::string>("r"), "e1;e2;e3;");
  EXPECT_EQ(persistence_->ExpectNextSnapshot<std::string>("r"),
            "e1;e2;e3;e4;e5;e6;");
  EXPECT_EQ(persistence_->ExpectNextSnapshot<std::string>("r"),
            "e1;e2;e3;e4;e5;e6;e7;e8;e9;");
  // After the one at 9, those at or below 9 - 2 * 3 go.
  DeleteSnapshotsSuccess deleted = kit_.FishForMessage<DeleteSnapshotsSuccess>(
      [](const DeleteSnapshotsSuccess&) { return true; });
  EXPECT_EQ(deleted.criteria.max_sequence_nr, 3);
  EXPECT_THAT(SnapshotsHeld("r"), ElementsAre(9, 6));

  PersistEvents(a, 10, 12);
  deleted = kit_.FishForMessage<DeleteSnapshotsSuccess>(
      [](const DeleteSnapshotsSuccess&) { return true; });
  EXPECT_EQ(deleted.criteria.max_sequence_nr, 6);
  EXPECT_THAT(SnapshotsHeld("r"), ElementsAre(12, 9));
  // Without WithDeleteEventsOnSnapshot, every event stays.
  EXPECT_EQ(EventsHeld("r").size(), 12u);

  // The next incarnation starts from the newest.
  Stop(a);
  Start("r", RetentionCriteria::SnapshotEvery(3, 2));
  EXPECT_EQ(kit_.FishForMessage<Offered>([](const Offered&) { return true; })
                .sequence_nr,
            12);
  Recovered recovered = kit_.ExpectMsg<Recovered>();
  EXPECT_EQ(recovered.last_sequence_nr, 12);
  EXPECT_EQ(recovered.state, "e1;e2;e3;e4;e5;e6;e7;e8;e9;e10;e11;e12;");
}

TEST_F(RetentionTest, DeletesEventsUpToTheBoundThenTheSnapshots) {
  ActorRef a = StartRecovered(
      "d", RetentionCriteria::SnapshotEvery(2, 2).WithDeleteEventsOnSnapshot());
  PersistEvents(a, 1, 6);
  // After the snapshot at 6: the events at or below 6 - 2 * 2 first, then
  // the snapshots.
  DeleteMessagesSuccess events_deleted =
      kit_.FishForMessage<DeleteMessagesSuccess>(
          [](const DeleteMessagesSuccess&) { return true; });
  EXPECT_EQ(events_deleted.to_sequence_nr, 2);
  DeleteSnapshotsSuccess snapshots_deleted =
      kit_.ExpectMsg<DeleteSnapshotsSuccess>();
  EXPECT_EQ(snapshots_deleted.criteria.max_sequence_nr, 2);
  EXPECT_THAT(SnapshotsHeld("d"), ElementsAre(6, 4));
  EXPECT_THAT(EventsHeld("d"), ElementsAre("e3", "e4", "e5", "e6"));

  Stop(a);
  Start("d", RetentionCriteria::SnapshotEvery(2, 2));
  EXPECT_EQ(kit_.ExpectMsg<Offered>().sequence_nr, 6);
  EXPECT_EQ(kit_.ExpectMsg<Recovered>().state, "e1;e2;e3;e4;e5;e6;");
}

TEST_F(RetentionTest, AFailedSnapshotSaveDeletesNothing) {
  ActorRef a = StartRecovered(
      "f", RetentionCriteria::SnapshotEvery(1, 1).WithDeleteEventsOnSnapshot());
  PersistEvents(a, 1, 1);
  kit_.FishForMessage<SaveSnapshotSuccess>(
      [](const SaveSnapshotSuccess&) { return true; });
  persistence_->snapshot_faults().FailNextSaves(1);
  PersistEvents(a, 2, 2);
  Failed failed =
      kit_.FishForMessage<Failed>([](const Failed&) { return true; });
  EXPECT_THAT(failed.what, HasSubstr("save: "));
  EXPECT_THAT(SnapshotsHeld("f"), ElementsAre(1));
  EXPECT_THAT(EventsHeld("f"), ElementsAre("e1", "e2"));
}

TEST_F(RetentionTest, AFailedDeleteReachesTheActorAndTheNextSnapshotCatchesUp) {
  ActorRef a = StartRecovered("x", RetentionCriteria::SnapshotEvery(1, 1));
  persistence_->snapshot_faults().FailNextDeletes(1);
  PersistEvents(a, 1, 2);
  // After the snapshot at 2, deleting those at or below 1 fails.
  Failed failed =
      kit_.FishForMessage<Failed>([](const Failed&) { return true; });
  EXPECT_THAT(failed.what, HasSubstr("delete snapshots: "));
  EXPECT_THAT(failed.what, HasSubstr("injected delete failure"));
  EXPECT_THAT(SnapshotsHeld("x"), ElementsAre(2, 1));
  PersistEvents(a, 3, 3);
  kit_.FishForMessage<DeleteSnapshotsSuccess>(
      [](const DeleteSnapshotsSuccess& d) {
        return d.criteria.max_sequence_nr == 2;
      });
  EXPECT_THAT(SnapshotsHeld("x"), ElementsAre(3));
}

class ConfiguredRetentionTest : public RetentionTest {
 protected:
  ConfiguredRetentionTest()
      : RetentionTest(R"(
          cairn.persistence.testkit.journal.retention {
            snapshot-every = 2
            keep-n-snapshots = 1
            delete-events-on-snapshot = on
          })") {}
};

TEST_F(ConfiguredRetentionTest, AnActorWithoutRetentionInCodeUsesTheConfig) {
  ActorRef a = StartRecovered("c", std::nullopt);
  PersistEvents(a, 1, 4);
  kit_.FishForMessage<DeleteSnapshotsSuccess>(
      [](const DeleteSnapshotsSuccess& d) {
        return d.criteria.max_sequence_nr == 2;
      });
  EXPECT_THAT(SnapshotsHeld("c"), ElementsAre(4));
  EXPECT_THAT(EventsHeld("c"), ElementsAre("e3", "e4"));
}

TEST_F(ConfiguredRetentionTest, RetentionInCodeOverridesTheConfig) {
  ActorRef a = StartRecovered("o", RetentionCriteria::Disabled());
  PersistEvents(a, 1, 4);
  a.Tell(SaveState{});
  kit_.FishForMessage<SaveSnapshotSuccess>(
      [](const SaveSnapshotSuccess&) { return true; });
  EXPECT_THAT(SnapshotsHeld("o"), ElementsAre(4));
  EXPECT_EQ(EventsHeld("o").size(), 4u);
}

class BadRetentionConfigTest : public RetentionTest {
 protected:
  BadRetentionConfigTest()
      : RetentionTest(
            "akka.persistence.journal-plugin-fallback.retention."
            "snapshot-every = -1") {}
};

TEST_F(BadRetentionConfigTest, FailsTheRecoveryNamingTheKey) {
  Start("b", std::nullopt);
  Failed failed = kit_.ExpectMsg<Failed>();
  EXPECT_THAT(failed.what, HasSubstr("retention.snapshot-every = -1"));
  EXPECT_THAT(failed.what, HasSubstr("\"b\""));
}

TEST(RetentionCriteriaTest, FollowsAkkasRules) {
  EXPECT_THROW(RetentionCriteria::SnapshotEvery(0, 1), std::invalid_argument);
  EXPECT_THROW(RetentionCriteria::SnapshotEvery(1, 0), std::invalid_argument);
  const RetentionCriteria criteria = RetentionCriteria::SnapshotEvery(3, 2);
  EXPECT_FALSE(criteria.SnapshotWhen(2));
  EXPECT_TRUE(criteria.SnapshotWhen(3));
  EXPECT_TRUE(criteria.SnapshotWhen(6));
  EXPECT_EQ(criteria.DeleteUpperSequenceNr(6), 0);
  EXPECT_EQ(criteria.DeleteUpperSequenceNr(9), 3);
  EXPECT_FALSE(RetentionCriteria::Disabled().SnapshotWhen(3));
  EXPECT_EQ(RetentionCriteria::SnapshotEvery(kMaxSequenceNr, kMaxSequenceNr)
                .DeleteUpperSequenceNr(kMaxSequenceNr),
            0);
}

// --- Snapshots that cannot be loaded -----------------------------------------

TEST_F(RetentionTest, RecoveryFallsBackPastASnapshotThatCannotBeLoaded) {
  ActorRef a = StartRecovered("u", std::nullopt);
  PersistEvents(a, 1, 3);
  a.Tell(SaveState{});
  kit_.FishForMessage<SaveSnapshotSuccess>(
      [](const SaveSnapshotSuccess&) { return true; });
  PersistEvents(a, 4, 5);
  a.Tell(SaveUnreadable{});
  kit_.FishForMessage<SaveSnapshotSuccess>(
      [](const SaveSnapshotSuccess&) { return true; });
  Stop(a);

  // The newest (at 5) cannot be read: the one at 3, then events 4 and 5.
  Start("u", std::nullopt);
  EXPECT_EQ(kit_.ExpectMsg<Offered>().sequence_nr, 3);
  Recovered recovered = kit_.ExpectMsg<Recovered>();
  EXPECT_EQ(recovered.state, "e1;e2;e3;e4;e5;");
  EXPECT_EQ(recovered.last_sequence_nr, 5);
}

TEST_F(RetentionTest, FailsWhenTheFallbackNeedsDeletedEvents) {
  ActorRef a = StartRecovered("g", std::nullopt);
  PersistEvents(a, 1, 3);
  a.Tell(SaveState{});
  kit_.FishForMessage<SaveSnapshotSuccess>(
      [](const SaveSnapshotSuccess&) { return true; });
  PersistEvents(a, 4, 6);
  a.Tell(SaveUnreadable{});
  kit_.FishForMessage<SaveSnapshotSuccess>(
      [](const SaveSnapshotSuccess&) { return true; });
  a.Tell(DeleteEventsTo{4});
  kit_.FishForMessage<DeleteMessagesSuccess>(
      [](const DeleteMessagesSuccess&) { return true; });
  Stop(a);

  // From the snapshot at 3 it would need event 4, which is gone.
  ActorRef b = Start("g", std::nullopt);
  kit_.Watch(b);
  EXPECT_EQ(kit_.ExpectMsg<Offered>().sequence_nr, 3);
  Failed failed = kit_.ExpectMsg<Failed>();
  EXPECT_THAT(failed.what, HasSubstr("DATA_LOSS"));
  EXPECT_THAT(failed.what, HasSubstr("persistence id \"g\""));
  EXPECT_THAT(failed.what, HasSubstr("persistence id 'g', sequence nr 6"));
  EXPECT_THAT(failed.what, HasSubstr("snapshot at sequence nr 3"));
  EXPECT_THAT(failed.what, HasSubstr("events from sequence nr 4"));
  EXPECT_THAT(failed.what, HasSubstr("replay starts at sequence nr 5"));
  kit_.ExpectTerminated(b);
}

TEST_F(RetentionTest, FailsWhenNoSnapshotLoadsAndTheEventsAreDeleted) {
  ActorRef a = StartRecovered("n", std::nullopt);
  PersistEvents(a, 1, 3);
  a.Tell(SaveUnreadable{});
  kit_.FishForMessage<SaveSnapshotSuccess>(
      [](const SaveSnapshotSuccess&) { return true; });
  a.Tell(DeleteEventsTo{3});
  kit_.FishForMessage<DeleteMessagesSuccess>(
      [](const DeleteMessagesSuccess&) { return true; });
  Stop(a);

  ActorRef b = Start("n", std::nullopt);
  kit_.Watch(b);
  Failed failed = kit_.ExpectMsg<Failed>();
  EXPECT_THAT(failed.what, HasSubstr("persistence id \"n\""));
  EXPECT_THAT(failed.what, HasSubstr("persistence id 'n', sequence nr 3"));
  EXPECT_THAT(failed.what, HasSubstr("no older snapshot could be loaded"));
  EXPECT_THAT(failed.what, HasSubstr("none is left"));
  kit_.ExpectTerminated(b);
}

TEST_F(RetentionTest, WithoutDeletedEventsNoSnapshotLoadingMeansAFullReplay) {
  ActorRef a = StartRecovered("w", std::nullopt);
  PersistEvents(a, 1, 2);
  a.Tell(SaveUnreadable{});
  kit_.FishForMessage<SaveSnapshotSuccess>(
      [](const SaveSnapshotSuccess&) { return true; });
  Stop(a);

  Start("w", std::nullopt);
  Recovered recovered = kit_.ExpectMsg<Recovered>();
  EXPECT_EQ(recovered.state, "e1;e2;");
  EXPECT_EQ(recovered.last_sequence_nr, 2);
}

}  // namespace
}  // namespace cairn::persistence
