// Akka's CurrentPersistenceIdsSpec on cairn's ReadJournal: every id with a
// highest sequence number, each once, in no particular order.
#include <string>
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

TEST_P(CurrentPersistenceIdsSpec, CompletesEmptyForAnEmptyJournal) {
  auto stream = queries_->CurrentPersistenceIds();
  EXPECT_THAT(DrainIds(*stream, 10), IsEmpty());
}

}  // namespace
}  // namespace cairn::persistence::testing
