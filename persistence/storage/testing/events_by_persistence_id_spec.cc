// Akka's CurrentEventsByPersistenceIdSpec and EventsByPersistenceIdSpec on
// cairn's ReadJournal: ranges inclusive at both ends, deleted events
// skipped, a current query ends at what was stored at its first Pull, a
// live one follows new commits and completes once it delivered `to`.
#include <memory>
#include <optional>
#include <vector>

#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "persistence/storage/testing/query_tck.h"

namespace cairn::persistence::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// ---- CurrentEventsByPersistenceId ----

TEST_P(CurrentEventsByPersistenceIdSpec, FindsExistingEvents) {
  PersistNumbered("a", 3);
  auto stream = queries_->CurrentEventsByPersistenceId("a", 0, kMaxSequenceNr);
  EXPECT_THAT(EventTexts(Drain(*stream, 2)), ElementsAre("a-1", "a-2", "a-3"));
}

TEST_P(CurrentEventsByPersistenceIdSpec, EnvelopesCarryTheEventsIdentity) {
  Persist("a", "a-1", {"x", "y"});
  auto stream = queries_->CurrentEventsByPersistenceId("a", 1, 1);
  std::vector<EventEnvelope> events = Drain(*stream, 10);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].persistence_id, "a");
  EXPECT_EQ(events[0].sequence_nr, 1);
  // By persistence id, the offset is the sequence number.
  EXPECT_EQ(events[0].offset, 1);
  EXPECT_EQ(events[0].timestamp, 1000);  // as sync_calls' Event stored it
  EXPECT_THAT(events[0].tags, ElementsAre("x", "y"));
}

TEST_P(CurrentEventsByPersistenceIdSpec, FindsEventsUpToASequenceNumber) {
  PersistNumbered("b", 3);
  auto stream = queries_->CurrentEventsByPersistenceId("b", 0, 2);
  EXPECT_THAT(EventTexts(Drain(*stream, 5)), ElementsAre("b-1", "b-2"));
}

TEST_P(CurrentEventsByPersistenceIdSpec, RangesIncludeBothEnds) {
  PersistNumbered("b", 5);
  auto middle = queries_->CurrentEventsByPersistenceId("b", 2, 4);
  EXPECT_THAT(EventTexts(Drain(*middle, 10)), ElementsAre("b-2", "b-3", "b-4"));
  auto one = queries_->CurrentEventsByPersistenceId("b", 3, 3);
  EXPECT_THAT(EventTexts(Drain(*one, 10)), ElementsAre("b-3"));
  auto tail = queries_->CurrentEventsByPersistenceId("b", 4, kMaxSequenceNr);
  EXPECT_THAT(EventTexts(Drain(*tail, 10)), ElementsAre("b-4", "b-5"));
}

TEST_P(CurrentEventsByPersistenceIdSpec, ToBeyondTheHighestGivesAllStored) {
  PersistNumbered("b", 3);
  auto stream = queries_->CurrentEventsByPersistenceId("b", 1, 10);
  EXPECT_THAT(EventTexts(Drain(*stream, 10)), ElementsAre("b-1", "b-2", "b-3"));
}

TEST_P(CurrentEventsByPersistenceIdSpec, EmptyRangesCompleteEmpty) {
  PersistNumbered("k", 3);
  auto zero = queries_->CurrentEventsByPersistenceId("k", 0, 0);
  EXPECT_THAT(Drain(*zero, 1), IsEmpty());
  auto reversed = queries_->CurrentEventsByPersistenceId("k", 3, 2);
  EXPECT_THAT(Drain(*reversed, 1), IsEmpty());
  auto above = queries_->CurrentEventsByPersistenceId("k", 4, kMaxSequenceNr);
  EXPECT_THAT(Drain(*above, 1), IsEmpty());
}

TEST_P(CurrentEventsByPersistenceIdSpec, AnUnknownIdCompletesEmpty) {
  PersistNumbered("other", 2);
  auto all = queries_->CurrentEventsByPersistenceId("i", 0, kMaxSequenceNr);
  EXPECT_THAT(Drain(*all, 1), IsEmpty());
  auto zero = queries_->CurrentEventsByPersistenceId("i", 0, 0);
  EXPECT_THAT(Drain(*zero, 1), IsEmpty());
}

TEST_P(CurrentEventsByPersistenceIdSpec, SkipsDeletedEvents) {
  PersistNumbered("h", 3);
  DeleteTo("h", 2);
  auto stream = queries_->CurrentEventsByPersistenceId("h", 0, kMaxSequenceNr);
  EXPECT_THAT(EventTexts(Drain(*stream, 1)), ElementsAre("h-3"));
}

TEST_P(CurrentEventsByPersistenceIdSpec, AllDeletedCompletesEmpty) {
  PersistNumbered("g", 3);
  DeleteTo("g", 3);
  auto all = queries_->CurrentEventsByPersistenceId("g", 0, kMaxSequenceNr);
  EXPECT_THAT(Drain(*all, 1), IsEmpty());
  auto zero = queries_->CurrentEventsByPersistenceId("g", 0, 0);
  EXPECT_THAT(Drain(*zero, 1), IsEmpty());
}

TEST_P(CurrentEventsByPersistenceIdSpec, EndsAtWhatWasStoredAtItsFirstPull) {
  PersistNumbered("f", 3);
  auto stream = queries_->CurrentEventsByPersistenceId("f", 0, kMaxSequenceNr);
  Pulled first = PullAtLeast(*stream, 2, 2);
  EXPECT_THAT(EventTexts(first.events), ElementsAre("f-1", "f-2"));
  EXPECT_FALSE(first.complete);
  Persist("f", "f-4");
  EXPECT_THAT(EventTexts(Drain(*stream, 5)), ElementsAre("f-3"));
  // A new query sees it.
  auto again = queries_->CurrentEventsByPersistenceId("f", 0, kMaxSequenceNr);
  EXPECT_THAT(EventTexts(Drain(*again, 5)),
              ElementsAre("f-1", "f-2", "f-3", "f-4"));
}

TEST_P(CurrentEventsByPersistenceIdSpec, APullDeliversAtMostMax) {
  PersistNumbered("m", 7);
  for (std::size_t max : {1, 2, 3, 7, 100}) {
    auto stream =
        queries_->CurrentEventsByPersistenceId("m", 1, kMaxSequenceNr);
    std::vector<std::size_t> sizes;
    absl::StatusOr<std::vector<EventEnvelope>> all =
        PullAll(*stream, max, &sizes);
    ASSERT_OK(all);
    EXPECT_EQ(all->size(), 7u) << "max " << max;
    for (std::size_t size : sizes) EXPECT_LE(size, max);
  }
}

TEST_P(CurrentEventsByPersistenceIdSpec, APullAfterCompletionOrOfNothingFails) {
  PersistNumbered("a", 1);
  auto stream = queries_->CurrentEventsByPersistenceId("a", 0, kMaxSequenceNr);
  EXPECT_EQ(PullOnce(*stream, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto fresh = queries_->CurrentEventsByPersistenceId("a", 0, kMaxSequenceNr);
  EXPECT_EQ(Drain(*fresh, 10).size(), 1u);
  EXPECT_EQ(PullOnce(*fresh, 10).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// ---- EventsByPersistenceId (live) ----

TEST_P(EventsByPersistenceIdSpec, FindsNewEvents) {
  PersistNumbered("c", 3);
  auto stream = queries_->EventsByPersistenceId("c", 0, kMaxSequenceNr);
  Pulled stored = PullAtLeast(*stream, 3, 5);
  EXPECT_THAT(EventTexts(stored.events), ElementsAre("c-1", "c-2", "c-3"));
  EXPECT_FALSE(stored.complete);
  Persist("c", "c-4");
  Pulled added = PullAtLeast(*stream, 1, 5);
  EXPECT_THAT(EventTexts(added.events), ElementsAre("c-4"));
  EXPECT_FALSE(added.complete);
}

TEST_P(EventsByPersistenceIdSpec, FindsNewEventsUpToASequenceNumber) {
  PersistNumbered("d", 3);
  auto stream = queries_->EventsByPersistenceId("d", 0, 4);
  Pulled stored = PullAtLeast(*stream, 3, 5);
  EXPECT_THAT(EventTexts(stored.events), ElementsAre("d-1", "d-2", "d-3"));
  EXPECT_FALSE(stored.complete);
  std::shared_ptr<PullSlot<EventEnvelope>> next = StartPull(*stream, 5);
  PersistNumbered("d", 2);  // d-4, then d-5 beyond `to`
  EnvelopeBatch last = Await(*next);
  EXPECT_THAT(EventTexts(last.elements), ElementsAre("d-4"));
  EXPECT_TRUE(last.complete);
  EXPECT_EQ(PullOnce(*stream, 5).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_P(EventsByPersistenceIdSpec, FindsNewEventsAfterDemandRequest) {
  PersistNumbered("e", 3);
  auto stream = queries_->EventsByPersistenceId("e", 0, kMaxSequenceNr);
  Pulled first = PullAtLeast(*stream, 2, 2);
  EXPECT_THAT(EventTexts(first.events), ElementsAre("e-1", "e-2"));
  Persist("e", "e-4");
  Pulled rest = PullAtLeast(*stream, 2, 5);
  EXPECT_THAT(EventTexts(rest.events), ElementsAre("e-3", "e-4"));
  EXPECT_FALSE(rest.complete);
}

TEST_P(EventsByPersistenceIdSpec, AWaitingPullCompletesOnTheNextCommit) {
  auto stream = queries_->EventsByPersistenceId("w", 1, kMaxSequenceNr);
  std::shared_ptr<PullSlot<EventEnvelope>> waiting = StartPull(*stream, 10);
  // A commit of another id wakes the Pull, which then waits again.
  Persist("other", "other-1");
  Persist("w", "w-1");
  EnvelopeBatch got = Await(*waiting);
  EXPECT_THAT(EventTexts(got.elements), ElementsAre("w-1"));
  EXPECT_FALSE(got.complete);
}

TEST_P(EventsByPersistenceIdSpec, FollowsARangeAndCompletesAtItsEnd) {
  PersistNumbered("r", 2);
  auto stream = queries_->EventsByPersistenceId("r", 2, 3);
  Pulled stored = PullAtLeast(*stream, 1, 10);
  EXPECT_THAT(EventTexts(stored.events), ElementsAre("r-2"));
  EXPECT_FALSE(stored.complete);
  std::shared_ptr<PullSlot<EventEnvelope>> next = StartPull(*stream, 10);
  PersistNumbered("r", 2);
  EnvelopeBatch last = Await(*next);
  EXPECT_THAT(EventTexts(last.elements), ElementsAre("r-3"));
  EXPECT_TRUE(last.complete);
}

TEST_P(EventsByPersistenceIdSpec, CompletesAtOnceWhenToIsStored) {
  PersistNumbered("s", 3);
  auto stream = queries_->EventsByPersistenceId("s", 1, 3);
  std::vector<EventEnvelope> all = Drain(*stream, 2);
  EXPECT_THAT(EventTexts(all), ElementsAre("s-1", "s-2", "s-3"));
}

// Nothing in the range can ever be delivered: the query has nothing to
// wait for (Akka's live query completes once its next number passed `to`).
TEST_P(EventsByPersistenceIdSpec, AnEmptyRangeCompletesAtOnce) {
  auto unknown = queries_->EventsByPersistenceId("u", 0, 0);
  EXPECT_THAT(Drain(*unknown, 10), IsEmpty());
  PersistNumbered("k", 1);
  auto reversed = queries_->EventsByPersistenceId("k", 3, 2);
  EXPECT_THAT(Drain(*reversed, 10), IsEmpty());
}

// `to` will never be delivered: the query completes once the stream
// reached it.
TEST_P(EventsByPersistenceIdSpec, CompletesWhenToIsDeleted) {
  PersistNumbered("t", 3);
  DeleteTo("t", 2);
  auto stream = queries_->EventsByPersistenceId("t", 1, 2);
  EXPECT_THAT(Drain(*stream, 10), IsEmpty());
}

TEST_P(EventsByPersistenceIdSpec, SkipsDeletedEvents) {
  PersistNumbered("h", 3);
  DeleteTo("h", 2);
  auto stream = queries_->EventsByPersistenceId("h", 0, kMaxSequenceNr);
  Pulled stored = PullAtLeast(*stream, 1, 10);
  EXPECT_THAT(EventTexts(stored.events), ElementsAre("h-3"));
  Persist("h", "h-4");
  EXPECT_THAT(EventTexts(PullAtLeast(*stream, 1, 10).events),
              ElementsAre("h-4"));
}

TEST_P(EventsByPersistenceIdSpec, APullDeliversAtMostMax) {
  PersistNumbered("m", 7);
  auto stream = queries_->EventsByPersistenceId("m", 1, 7);
  std::vector<std::size_t> sizes;
  absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(*stream, 3, &sizes);
  ASSERT_OK(all);
  EXPECT_EQ(all->size(), 7u);
  for (std::size_t size : sizes) EXPECT_LE(size, 3u);
}

TEST_P(EventsByPersistenceIdSpec, DestroyingTheStreamCancelsItsWaitingPull) {
  auto stream = queries_->EventsByPersistenceId("x", 1, kMaxSequenceNr);
  std::shared_ptr<PullSlot<EventEnvelope>> waiting = StartPull(*stream, 10);
  stream.reset();
  std::optional<absl::StatusOr<EnvelopeBatch>> got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
}

TEST_P(EventsByPersistenceIdSpec, DestroyingTheReadJournalCancelsAWaitingPull) {
  auto stream = queries_->EventsByPersistenceId("x", 1, kMaxSequenceNr);
  std::shared_ptr<PullSlot<EventEnvelope>> waiting = StartPull(*stream, 10);
  queries_.reset();
  std::optional<absl::StatusOr<EnvelopeBatch>> got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace cairn::persistence::testing
