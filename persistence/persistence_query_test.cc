// PersistenceQuery at the actor level: a persistent actor persists tagged
// events on RocksDB; the system's read journal finds them by tag and by
// persistence id, and lists the id.

#include "persistence/persistence_query.h"

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
#include "persistence/persistent_actor.h"
#include "persistence/storage/collect_query.h"
#include "persistence/storage/tagged.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using ::testing::ElementsAre;

// Persists each string command, tagged "odd" or "even" by its sequence
// number, and answers with the number.
class Numbered final : public PersistentActor {
 public:
  explicit Numbered(std::string id) : id_(std::move(id)) {
    Recover<std::string>([](const std::string&) {});
    Command<std::string>([this](const std::string& c) {
      const bool odd = LastSequenceNr() % 2 == 0;  // the next one is odd
      Persist(Tagged{serialization::Payload::Of(c), {odd ? "odd" : "even"}},
              [this](const Tagged&) { Sender().Tell(LastSequenceNr()); });
    });
  }
  std::string PersistenceId() const override { return id_; }

 private:
  std::string id_;
};

std::vector<std::string> Texts(absl::StatusOr<std::vector<EventEnvelope>> all) {
  EXPECT_OK(all);
  std::vector<std::string> out;
  if (!all.ok()) return out;
  for (const EventEnvelope& e : *all) {
    out.push_back(absl::StrCat(e.persistence_id, ":",
                               *e.event.As<std::string>(), "@", e.offset));
  }
  return out;
}

TEST(PersistenceQueryTest, FindsWhatActorsPersistedByTagAndById) {
  absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
  ASSERT_OK(dir);
  TestKit kit(absl::StrCat("akka.persistence.journal.rocksdb { dir = \"",
                           dir->path(), "/store\", fsync = off }"));
  for (const char* id : {"n1", "n2"}) {
    ActorRef a = kit.Sys().ActorOf(Props::Create<Numbered>(std::string(id)));
    for (const char* c : {"a", "b", "c"}) {
      a.Tell(std::string(c), kit.TestActor());
      kit.ExpectMsg<int64_t>();
    }
  }
  absl::StatusOr<ReadJournal*> queries =
      PersistenceQuery::Get(kit.Sys()).ReadJournalFor("");
  ASSERT_OK(queries);
  // The same read journal, whatever name chose the plugin.
  absl::StatusOr<ReadJournal*> again =
      PersistenceQuery::Get(kit.Sys()).ReadJournalFor(
          "akka.persistence.journal.rocksdb");
  ASSERT_OK(again);
  EXPECT_EQ(*again, *queries);
  {
    auto odd = (*queries)->CurrentEventsByTag("odd", 0);
    EXPECT_THAT(Texts(testing::PullAll(*odd, 10)),
                ElementsAre("n1:a@1", "n1:c@3", "n2:a@4", "n2:c@6"));
    auto n2 = (*queries)->CurrentEventsByPersistenceId("n2", 2, 3);
    EXPECT_THAT(Texts(testing::PullAll(*n2, 10)),
                ElementsAre("n2:b@2", "n2:c@3"));
    auto ids = (*queries)->CurrentPersistenceIds();
    absl::StatusOr<std::vector<std::string>> all = testing::PullAll(*ids, 10);
    ASSERT_OK(all);
    EXPECT_THAT(*all, ElementsAre("n1", "n2"));
  }
  EXPECT_EQ(PersistenceQuery::Get(kit.Sys())
                .ReadJournalFor("no.such.plugin")
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

// From code that is not an actor (here the test's thread, as main()), a
// current query is read to its end in one call; a live query, which never
// completes, ends at the timeout.
TEST(PersistenceQueryTest, CollectAllReadsAQueryFromOutsideTheActors) {
  absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
  ASSERT_OK(dir);
  TestKit kit(absl::StrCat("akka.persistence.journal.rocksdb { dir = \"",
                           dir->path(), "/store\", fsync = off }"));
  ActorRef a = kit.Sys().ActorOf(Props::Create<Numbered>(std::string("n1")));
  for (const char* c : {"a", "b", "c", "d", "e"}) {
    a.Tell(std::string(c), kit.TestActor());
    kit.ExpectMsg<int64_t>();
  }
  absl::StatusOr<ReadJournal*> queries =
      PersistenceQuery::Get(kit.Sys()).ReadJournalFor("");
  ASSERT_OK(queries);
  auto odd = (*queries)->CurrentEventsByTag("odd", 0);
  // Batches of 2: the query takes several Pulls.
  EXPECT_THAT(Texts(CollectAll(*odd, absl::Seconds(60), 2)),
              ElementsAre("n1:a@1", "n1:c@3", "n1:e@5"));
  auto live = (*queries)->EventsByTag("even", 0);
  absl::StatusOr<std::vector<EventEnvelope>> never =
      CollectAll(*live, absl::Milliseconds(100));
  EXPECT_EQ(never.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(never.status().message()),
              ::testing::HasSubstr("2 elements came"));
}

// A live query sees what an actor persists after the query began.
TEST(PersistenceQueryTest, ALiveQueryFollowsAnActorsPersists) {
  absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
  ASSERT_OK(dir);
  TestKit kit(absl::StrCat("akka.persistence.journal.rocksdb { dir = \"",
                           dir->path(), "/store\", fsync = off }"));
  absl::StatusOr<ReadJournal*> queries =
      PersistenceQuery::Get(kit.Sys()).ReadJournalFor("");
  ASSERT_OK(queries);
  auto odd = (*queries)->EventsByTag("odd", 0);
  using Batch = QueryStream<EventEnvelope>::Batch;
  auto next = std::make_shared<testing::Slot<absl::StatusOr<Batch>>>();
  odd->Pull(10, [next](absl::StatusOr<Batch> b) { next->Set(std::move(b)); });
  ActorRef a = kit.Sys().ActorOf(Props::Create<Numbered>(std::string("n1")));
  a.Tell(std::string("a"), kit.TestActor());
  kit.ExpectMsg<int64_t>();
  std::optional<absl::StatusOr<Batch>> got = next->Wait();
  ASSERT_TRUE(got.has_value());
  ASSERT_OK(*got);
  ASSERT_EQ((*got)->elements.size(), 1u);
  EXPECT_EQ(*(*got)->elements[0].event.As<std::string>(), "a");
  EXPECT_FALSE((*got)->complete);
}

}  // namespace
}  // namespace cairn::persistence
