// The example plugin in an actor system, as a program uses it: selected by
// config, linked by its :registration target alone (not
// //persistence:default_plugins), so no other plugin is there.

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/messages.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"

namespace cairn::examples::plugin {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using persistence::PersistentActor;
using persistence::RecoveryCompleted;
using persistence::SaveSnapshotSuccess;
using persistence::SnapshotOffer;
using ::testing::HasSubstr;

constexpr char kConfig[] = R"(
  akka.persistence.journal.plugin = "example.persistence.journal"
  akka.persistence.snapshot-store.plugin = "example.persistence.snapshot-store"
)";

// What a Log recovered: its text, and the snapshot it started from.
struct Recovered {
  std::string text;
  int64_t snapshot_sequence_nr = 0;  // 0: none
};

// Appends every string it is sent to its text and answers with the text;
// "snap" saves the text as a snapshot instead. Tells `probe` the sequence
// number of each snapshot saved and what it recovered.
class Log final : public PersistentActor {
 public:
  Log(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<SnapshotOffer>([this](const SnapshotOffer& offer) {
      text_ = *offer.snapshot.As<std::string>();
      snapshot_sequence_nr_ = offer.metadata.sequence_nr;
    });
    Recover<std::string>([this](const std::string& e) { text_ += e; });
    Recover<RecoveryCompleted>([this](const RecoveryCompleted&) {
      probe_.Tell(Recovered{text_, snapshot_sequence_nr_});
    });
    Command<std::string>([this](const std::string& c) {
      if (c == "snap") {
        SaveSnapshot(text_);
        return;
      }
      Persist(c, [this](const std::string& e) {
        text_ += e;
        Sender().Tell(text_);
      });
    });
    Command<SaveSnapshotSuccess>([this](const SaveSnapshotSuccess& s) {
      probe_.Tell(s.metadata.sequence_nr);
    });
  }
  std::string PersistenceId() const override { return id_; }

 private:
  std::string id_;
  ActorRef probe_;
  std::string text_;
  int64_t snapshot_sequence_nr_ = 0;
};

// Stops `actor` and waits until it has stopped.
void Stop(TestKit& kit, const ActorRef& actor) {
  kit.Watch(actor);
  kit.Sys().Stop(actor);
  kit.ExpectTerminated(actor);
}

TEST(ExamplePluginTest, PersistsAndRecoversFromASnapshotAndEvents) {
  TestKit kit(kConfig);
  ActorRef first =
      kit.Sys().ActorOf(Props::Create<Log>("log-1", kit.TestActor()), "first");
  EXPECT_EQ(kit.ExpectMsg<Recovered>().text, "");
  first.Tell(std::string("a"), kit.TestActor());
  kit.ExpectMsg<std::string>("a");
  first.Tell(std::string("b"), kit.TestActor());
  kit.ExpectMsg<std::string>("ab");
  first.Tell(std::string("snap"), kit.TestActor());
  kit.ExpectMsg<int64_t>(2);
  first.Tell(std::string("c"), kit.TestActor());
  kit.ExpectMsg<std::string>("abc");
  Stop(kit, first);

  // A new incarnation: the snapshot at 2, then event 3.
  ActorRef second =
      kit.Sys().ActorOf(Props::Create<Log>("log-1", kit.TestActor()), "second");
  Recovered recovered = kit.ExpectMsg<Recovered>();
  EXPECT_EQ(recovered.text, "abc");
  EXPECT_EQ(recovered.snapshot_sequence_nr, 2);
  second.Tell(std::string("d"), kit.TestActor());
  kit.ExpectMsg<std::string>("abcd");
}

// Only the example plugin is linked: the in-memory one is not registered.
TEST(ExamplePluginTest, NoOtherPluginIsLinked) {
  TestKit kit(kConfig);
  persistence::Persistence& persistence =
      persistence::Persistence::Get(kit.Sys());
  EXPECT_TRUE(persistence.JournalFor("").ok());
  EXPECT_TRUE(persistence.SnapshotStoreFor("").ok());
  absl::StatusOr<persistence::Journal*> inmem =
      persistence.JournalFor("akka.persistence.journal.inmem");
  EXPECT_EQ(inmem.status().code(), absl::StatusCode::kNotFound);
}

// The provider reads max-events from the system's settings: past it, a
// write fails and the actor stops; what was stored before stays.
TEST(ExamplePluginTest, MaxEventsFromTheConfigBlockLimitsTheJournal) {
  TestKit kit(std::string(kConfig) +
              "example.persistence.journal.max-events = 2\n");
  ActorRef first =
      kit.Sys().ActorOf(Props::Create<Log>("log-2", kit.TestActor()), "first");
  kit.ExpectMsg<Recovered>();
  first.Tell(std::string("a"), kit.TestActor());
  kit.ExpectMsg<std::string>("a");
  first.Tell(std::string("b"), kit.TestActor());
  kit.ExpectMsg<std::string>("ab");
  kit.Watch(first);
  first.Tell(std::string("c"), kit.TestActor());
  kit.ExpectTerminated(first);

  ActorRef second =
      kit.Sys().ActorOf(Props::Create<Log>("log-2", kit.TestActor()), "second");
  EXPECT_EQ(kit.ExpectMsg<Recovered>().text, "ab");
}

// A bad value in the block fails every store of the system, naming the key.
TEST(ExamplePluginTest, ABadMaxEventsFailsTheSystemsStoresNamingTheKey) {
  TestKit kit(std::string(kConfig) +
              "example.persistence.journal.max-events = 0\n");
  absl::StatusOr<persistence::Journal*> journal =
      persistence::Persistence::Get(kit.Sys()).JournalFor("");
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(journal.status().message()),
              HasSubstr("example.persistence.journal.max-events"));
}

}  // namespace
}  // namespace cairn::examples::plugin
