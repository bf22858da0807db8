// Akka's CurrentPersistenceIdsSpec on cairn's ReadJournal: every id with a
// highest sequence number, each once, in no particular order, as stored at
// the first Pull.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "persistence/storage/testing/query_tck.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

TEST_P(CurrentPersistenceIdsSpec, FindsEveryIdWithEvents) {
  for (const char* id : {"a", "b", "c"}) PersistNumbered(id, 1);
  for (std::size_t max : {1, 2, 4}) {
    auto stream = queries_->CurrentPersistenceIds();
    EXPECT_THAT(DrainIds(*stream, max), UnorderedElementsAre("a", "b", "c"))
        << "max " << max;
  }
}

TEST_P(CurrentPersistenceIdsSpec, DeliversAnIdOnlyOnce) {
  PersistNumbered("d", 100);
  auto stream = queries_->CurrentPersistenceIds();
  EXPECT_THAT(DrainIds(*stream, 10), ElementsAre("d"));
}

TEST_P(CurrentPersistenceIdsSpec, IncludesAnIdWhoseEventsAreAllDeleted) {
  PersistNumbered("kept", 2);
  PersistNumbered("gone", 2);
  DeleteTo("gone", kMaxSequenceNr);
  auto stream = queries_->CurrentPersistenceIds();
  EXPECT_THAT(DrainIds(*stream, 1), UnorderedElementsAre("gone", "kept"));
}

// A rejected write used its sequence numbers (journal.h): its id has a
// highest sequence number, and is listed.
TEST_P(CurrentPersistenceIdsSpec, IncludesAnIdWhoseOnlyWriteWasRejected) {
  PersistNumbered("kept", 1);
  WriteOutcome rejected = WriteMessages(
      *journal_, {Single("rejected", 1, Payload::Of(NotSerializable{}))});
  ASSERT_TRUE(rejected.batch.ok()) << rejected.batch;
  ASSERT_EQ(rejected.per_write.size(), 1u);
  ASSERT_FALSE(rejected.per_write[0].ok());
  auto stream = queries_->CurrentPersistenceIds();
  EXPECT_THAT(DrainIds(*stream, 10), UnorderedElementsAre("kept", "rejected"));
}

// Akka's "should not see new events after complete": what was stored at
// the first Pull, also with ids written later that sort before, between
// and after the ones there.
TEST_P(CurrentPersistenceIdsSpec, DoesNotSeeIdsCreatedAfterItsFirstPull) {
  for (const char* id : {"b", "d"}) PersistNumbered(id, 1);
  auto stream = queries_->CurrentPersistenceIds();
  absl::StatusOr<IdBatch> first = PullOnce(*stream, 1);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->elements.size(), 1u);
  ASSERT_FALSE(first->complete);
  for (const char* id : {"a", "c", "e"}) PersistNumbered(id, 1);
  std::vector<std::string> ids = first->elements;
  for (std::string& id : DrainIds(*stream, 1)) ids.push_back(std::move(id));
  EXPECT_THAT(ids, UnorderedElementsAre("b", "d"));
}

TEST_P(CurrentPersistenceIdsSpec, CompletesEmptyForAnEmptyJournal) {
  auto stream = queries_->CurrentPersistenceIds();
  EXPECT_THAT(DrainIds(*stream, 10), IsEmpty());
}

}  // namespace
}  // namespace cairn::persistence::testing
