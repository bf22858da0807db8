// A persistent actor recovers from a store written by event format version
// 1 (persistence/rocksdb/testdata/format1; the plugin-level checks are
// //persistence/rocksdb:format1_store_test): it is offered the newest
// snapshot and replays the events after it, persists the next event, and
// its next incarnation recovers the old and the new events together.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "persistence/rocksdb/testing/format1_testdata.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using testing::Amount;
using ::testing::ElementsAreArray;
using testing::TempDir;
using testing::TestEventT;

// A deadline, not an expected duration: opening the store and replaying
// 150 events under a sanitizer on a busy machine may take seconds.
constexpr absl::Duration kRecoveryDeadline = absl::Seconds(60);

// What a recovery saw, in order, and where it ended.
struct Recovered {
  std::vector<std::string> seen;
  int64_t last_sequence_nr = 0;
};

// The stream "long" of the store: a snapshot at 450 (a TestEvent), events
// that are strings (odd sequence numbers) or Amounts (even ones).
class LongStream final : public PersistentActor {
 public:
  explicit LongStream(ActorRef probe) : probe_(std::move(probe)) {
    Recover<SnapshotOffer>([this](const SnapshotOffer& offer) {
      const TestEventT* state = offer.snapshot.As<TestEventT>();
      seen_.push_back(absl::StrCat(
          "snapshot ", offer.metadata.persistence_id, " ",
          offer.metadata.sequence_nr, " ", offer.metadata.timestamp, " ",
          state == nullptr ? "(not a TestEvent)"
                           : absl::StrCat(state->name, " ", state->value, " ",
                                          absl::StrJoin(state->labels, ","))));
    });
    Recover<std::string>([this](const std::string& e) { seen_.push_back(e); });
    Recover<Amount>([this](const Amount& e) {
      seen_.push_back(absl::StrCat("Amount ", e.value));
    });
    Recover<RecoveryCompleted>([this](const RecoveryCompleted&) {
      probe_.Tell(Recovered{seen_, LastSequenceNr()});
    });
    Command<std::string>([this](const std::string& c) {
      Persist(c,
              [this](const std::string&) { Sender().Tell(LastSequenceNr()); });
    });
  }
  std::string PersistenceId() const override { return "long"; }

 private:
  ActorRef probe_;
  std::vector<std::string> seen_;
};

TEST(Format1RecoveryTest, APersistentActorRecoversAndGoesOnWriting) {
  absl::StatusOr<TempDir> dir = TempDir::Make("format1");
  ASSERT_OK(dir);
  const std::string path = dir->path() + "/store";
  absl::Status copied = testing::CopyFormat1Store(path);
  ASSERT_OK(copied);

  TestKit kit(
      absl::StrCat("akka.persistence.journal.rocksdb.dir = \"", path, "\""));
  PersistenceSetup setup;
  setup.serialization = testing::NewTestSerialization();
  ASSERT_OK(Persistence::Get(kit.Sys()).Setup(std::move(setup)));

  std::vector<std::string> expected = {
      "snapshot long 450 1700001000450 long-state 450 a,b"};
  for (int64_t n = 451; n <= 600; ++n) {
    expected.push_back(n % 2 == 1 ? absl::StrCat("long-", n)
                                  : absl::StrCat("Amount ", 10 * n));
  }
  ActorRef first =
      kit.Sys().ActorOf(Props::Create<LongStream>(kit.TestActor()));
  Recovered recovered = kit.ExpectMsg<Recovered>(kRecoveryDeadline);
  EXPECT_THAT(recovered.seen, ElementsAreArray(expected));
  EXPECT_EQ(recovered.last_sequence_nr, 600);

  first.Tell(std::string("new-601"));
  EXPECT_EQ(kit.ExpectMsg<int64_t>(kRecoveryDeadline), 601);
  kit.Watch(first);
  kit.Sys().Stop(first);
  kit.ExpectTerminated(first, kRecoveryDeadline);

  kit.Sys().ActorOf(Props::Create<LongStream>(kit.TestActor()));
  recovered = kit.ExpectMsg<Recovered>(kRecoveryDeadline);
  expected.push_back("new-601");
  EXPECT_THAT(recovered.seen, ElementsAreArray(expected));
  EXPECT_EQ(recovered.last_sequence_nr, 601);
}

}  // namespace
}  // namespace cairn::persistence
