// Akka's CurrentPersistenceIdsSpec and PersistenceIdsSpec on cairn's
// ReadJournal. Current: every id with a highest sequence number, each once,
// in no particular order, as stored at the first Pull. Live: those ids,
// then each id created later, once each, in the order the ids were
// created; never completes.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
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
      *journal_,
      {Single("rejected", 1, serialization::Payload::Of(NotSerializable{}))});
  ASSERT_OK(rejected.batch);
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
  ASSERT_OK(first);
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

// The ids there at the first Pull, then each new one once: an id is new
// when it gets its first highest sequence number, from an event stored or
// from a rejected write (as CurrentPersistenceIds lists it); a commit that
// creates no id wakes a waiting Pull, which waits again.
TEST_P(PersistenceIdsSpec, ListsTheIdsThenEachNewOneOnce) {
  for (const char* id : {"b", "a"}) PersistNumbered(id, 1);
  auto stream = queries_->PersistenceIds();
  absl::StatusOr<IdBatch> first = PullOnce(*stream, 10);
  ASSERT_OK(first);
  EXPECT_THAT(first->elements, UnorderedElementsAre("a", "b"));
  EXPECT_FALSE(first->complete);
  std::shared_ptr<PullSlot<std::string>> next = StartPull(*stream, 10);
  PersistNumbered("a", 1);
  PersistNumbered("c", 2);
  IdBatch got = Await(*next);
  EXPECT_THAT(got.elements, ElementsAre("c"));
  EXPECT_FALSE(got.complete);
  next = StartPull(*stream, 10);
  WriteOutcome rejected = WriteMessages(
      *journal_,
      {Single("r", 1, serialization::Payload::Of(NotSerializable{}))});
  ASSERT_OK(rejected.batch);
  ASSERT_EQ(rejected.per_write.size(), 1u);
  ASSERT_FALSE(rejected.per_write[0].ok());
  highest_["r"] = 1;  // the rejected write used its number
  EXPECT_THAT(Await(*next).elements, ElementsAre("r"));
  // Deleting events creates no id, and a later write to "r" is no new id.
  next = StartPull(*stream, 10);
  DeleteTo("a", kMaxSequenceNr);
  PersistNumbered("r", 1);
  PersistNumbered("d", 1);
  EXPECT_THAT(Await(*next).elements, ElementsAre("d"));
}

// Ids created while the query delivers the ones there at its start: each
// once, none lost, whatever the batch sizes.
TEST_P(PersistenceIdsSpec, RepeatsNoIdAcrossItsStart) {
  for (const char* id : {"a", "b", "c"}) PersistNumbered(id, 1);
  auto stream = queries_->PersistenceIds();
  absl::StatusOr<IdBatch> first = PullOnce(*stream, 1);
  ASSERT_OK(first);
  ASSERT_EQ(first->elements.size(), 1u);
  std::vector<std::string> ids = first->elements;
  PersistNumbered("d", 1);
  PersistNumbered("a", 1);
  PersistNumbered("e", 1);
  while (ids.size() < 5) {
    absl::StatusOr<IdBatch> batch = PullOnce(*stream, 2);
    ASSERT_OK(batch);
    ASSERT_FALSE(batch->elements.empty());
    ASSERT_LE(batch->elements.size(), 2u);
    ids.insert(ids.end(), batch->elements.begin(), batch->elements.end());
  }
  EXPECT_THAT(ids, UnorderedElementsAre("a", "b", "c", "d", "e"));
  // Nothing more: the next Pull waits.
  std::shared_ptr<PullSlot<std::string>> next = StartPull(*stream, 10);
  PersistNumbered("f", 1);
  EXPECT_THAT(Await(*next).elements, ElementsAre("f"));
}

// A writer creating ids (each in a call that also writes to an older id)
// while the query runs from an empty journal: every id once, in the order
// the ids were created.
TEST_P(PersistenceIdsSpec, GetsEveryIdOfRacingWritesOnceInOrder) {
  constexpr int kIds = 60;
  auto stream = queries_->PersistenceIds();
  std::thread writer([this] {
    for (int n = 1; n <= kIds; ++n) {
      const std::string id = absl::StrCat("p", n);
      WriteOutcome outcome = WriteMessages(
          *journal_,
          {Single(id, 1, serialization::Payload::Of(absl::StrCat(id, "-1"))),
           Single("p1", n + 1,
                  serialization::Payload::Of(absl::StrCat("p1-", n + 1)))});
      EXPECT_OK(outcome.batch);
    }
  });
  std::vector<std::string> ids;
  while (ids.size() < static_cast<std::size_t>(kIds)) {
    absl::StatusOr<IdBatch> batch = PullOnce(*stream, 7);
    EXPECT_OK(batch);
    if (!batch.ok() || batch->elements.empty()) break;  // join, then fail
    ids.insert(ids.end(), batch->elements.begin(), batch->elements.end());
  }
  writer.join();
  ASSERT_EQ(ids.size(), static_cast<std::size_t>(kIds));
  for (int n = 1; n <= kIds; ++n) EXPECT_EQ(ids[n - 1], absl::StrCat("p", n));
}

TEST_P(PersistenceIdsSpec, DestroyingTheStreamCancelsItsWaitingPull) {
  PersistNumbered("a", 1);
  auto stream = queries_->PersistenceIds();
  ASSERT_OK(PullOnce(*stream, 10));
  std::shared_ptr<PullSlot<std::string>> waiting = StartPull(*stream, 10);
  stream.reset();
  std::optional<absl::StatusOr<IdBatch>> got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
  // The journal writes on, with nothing waiting for the commit.
  PersistNumbered("b", 1);
}

TEST_P(PersistenceIdsSpec, DestroyingTheReadJournalCancelsAWaitingPull) {
  PersistNumbered("a", 1);
  auto stream = queries_->PersistenceIds();
  ASSERT_OK(PullOnce(*stream, 10));
  std::shared_ptr<PullSlot<std::string>> waiting = StartPull(*stream, 10);
  queries_.reset();
  std::optional<absl::StatusOr<IdBatch>> got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
  stream.reset();
  PersistNumbered("b", 1);
}

}  // namespace
}  // namespace cairn::persistence::testing
