// Akka's CurrentEventsByTagSpec and EventsByTagSpec on cairn's ReadJournal:
// offsets from one counter per store, strictly ascending, exclusive when a
// query starts from one; a current query ends at what was stored at its
// first Pull; a live one follows every commit and never completes.
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "persistence/storage/testing/query_tck.h"

namespace cairn::persistence::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// A test failure unless the offsets strictly ascend.
void ExpectAscendingOffsets(const std::vector<EventEnvelope>& events) {
  for (std::size_t i = 1; i < events.size(); ++i) {
    EXPECT_LT(events[i - 1].offset, events[i].offset)
        << Positions(events)[i - 1] << " then " << Positions(events)[i];
  }
}

// ---- CurrentEventsByTag ----

TEST_P(CurrentEventsByTagSpec, FindsExistingEventsInOffsetOrder) {
  auto green = queries_->CurrentEventsByTag("green", 0);
  std::vector<EventEnvelope> events = Drain(*green, 2);
  EXPECT_THAT(Positions(events), ElementsAre("a:2", "a:4", "b:2"));
  EXPECT_THAT(EventTexts(events),
              ElementsAre("a green apple", "a green banana", "a green leaf"));
  ExpectAscendingOffsets(events);
  auto black = queries_->CurrentEventsByTag("black", 0);
  EXPECT_THAT(EventTexts(Drain(*black, 5)), ElementsAre("a black car"));
  auto apple = queries_->CurrentEventsByTag("apple", 0);
  EXPECT_THAT(EventTexts(Drain(*apple, 5)), ElementsAre("a green apple"));
}

TEST_P(CurrentEventsByTagSpec, EnvelopesCarryTheEventsIdentityAndTags) {
  auto green = queries_->CurrentEventsByTag("green", 0);
  std::vector<EventEnvelope> events = Drain(*green, 10);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_GT(events[0].offset, 0);  // offsets start at 1
  EXPECT_EQ(events[0].persistence_id, "a");
  EXPECT_EQ(events[0].sequence_nr, 2);
  EXPECT_EQ(events[0].timestamp, 2000);  // as sync_calls' Event stored it
  EXPECT_THAT(events[0].tags, UnorderedElementsAre("green", "apple"));
  EXPECT_THAT(events[2].tags, ElementsAre("green"));
}

// One offset per event, shared by its tags.
TEST_P(CurrentEventsByTagSpec, AnEventWithTwoTagsIsInBothWithOneOffset) {
  auto green = queries_->CurrentEventsByTag("green", 0);
  auto apple = queries_->CurrentEventsByTag("apple", 0);
  std::vector<EventEnvelope> greens = Drain(*green, 10);
  std::vector<EventEnvelope> apples = Drain(*apple, 10);
  ASSERT_FALSE(greens.empty());
  ASSERT_EQ(apples.size(), 1u);
  EXPECT_EQ(Positions(greens)[0], Positions(apples)[0]);
  EXPECT_EQ(greens[0].offset, apples[0].offset);
}

TEST_P(CurrentEventsByTagSpec, OtherTagsAreNotIncluded) {
  Persist("c", "a black cat", {"black"});
  Persist("c", "untagged");
  auto green = queries_->CurrentEventsByTag("green", 0);
  for (const EventEnvelope& e : Drain(*green, 10)) {
    EXPECT_THAT(e.tags, ::testing::Contains("green")) << e.persistence_id;
  }
  auto black = queries_->CurrentEventsByTag("black", 0);
  EXPECT_THAT(Positions(Drain(*black, 10)), ElementsAre("b:1", "c:1"));
}

TEST_P(CurrentEventsByTagSpec, CompletesEmptyForATagWithoutEvents) {
  auto pink = queries_->CurrentEventsByTag("pink", 0);
  EXPECT_THAT(Drain(*pink, 2), IsEmpty());
}

TEST_P(CurrentEventsByTagSpec, EndsAtWhatWasStoredAtItsFirstPull) {
  auto green = queries_->CurrentEventsByTag("green", 0);
  Pulled first = PullAtLeast(*green, 2, 2);
  EXPECT_THAT(EventTexts(first.events),
              ElementsAre("a green apple", "a green banana"));
  EXPECT_FALSE(first.complete);
  Persist("c", "a green cucumber", {"green"});
  EXPECT_THAT(EventTexts(Drain(*green, 5)), ElementsAre("a green leaf"));
  // A new query sees it.
  auto again = queries_->CurrentEventsByTag("green", 0);
  EXPECT_THAT(Positions(Drain(*again, 5)),
              ElementsAre("a:2", "a:4", "b:2", "c:1"));
}

TEST_P(CurrentEventsByTagSpec, FindsEventsFromAnOffsetExclusive) {
  Persist("c", "a green cucumber", {"green"});
  auto first = queries_->CurrentEventsByTag("green", 0);
  Pulled two = PullAtLeast(*first, 2, 1);
  ASSERT_THAT(EventTexts(two.events),
              ElementsAre("a green apple", "a green banana"));
  first.reset();
  const int64_t banana = two.events[1].offset;
  auto rest = queries_->CurrentEventsByTag("green", banana);
  EXPECT_THAT(EventTexts(Drain(*rest, 10)),
              ElementsAre("a green leaf", "a green cucumber"));
  auto all = queries_->CurrentEventsByTag("green", 0);
  std::vector<EventEnvelope> greens = Drain(*all, 10);
  ASSERT_EQ(greens.size(), 4u);
  auto none = queries_->CurrentEventsByTag("green", greens.back().offset);
  EXPECT_THAT(Drain(*none, 10), IsEmpty());
}

TEST_P(CurrentEventsByTagSpec, SkipsDeletedEvents) {
  DeleteTo("a", 2);
  auto green = queries_->CurrentEventsByTag("green", 0);
  EXPECT_THAT(Positions(Drain(*green, 10)), ElementsAre("a:4", "b:2"));
  DeleteTo("b", 2);
  auto black = queries_->CurrentEventsByTag("black", 0);
  EXPECT_THAT(Drain(*black, 10), IsEmpty());
}

TEST_P(CurrentEventsByTagSpec, SeesAll150EventsInBatchesOfAtMostMax) {
  std::vector<AtomicWrite> writes;
  for (int64_t n = 1; n <= 150; ++n) {
    PersistentRepr event =
        Event("z", n, serialization::Payload::Of(absl::StrCat("z-", n)));
    event.tags = {"many"};
    AtomicWrite& write = writes.emplace_back();
    write.events.push_back(std::move(event));
  }
  WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
  ASSERT_OK(outcome.batch);
  for (std::size_t max : {7, 100, 150}) {
    auto stream = queries_->CurrentEventsByTag("many", 0);
    std::vector<std::size_t> sizes;
    absl::StatusOr<std::vector<EventEnvelope>> all =
        PullAll(*stream, max, &sizes);
    ASSERT_OK(all);
    ASSERT_EQ(all->size(), 150u) << "max " << max;
    for (std::size_t size : sizes) EXPECT_LE(size, max);
    for (int64_t n = 1; n <= 150; ++n) {
      EXPECT_EQ((*all)[n - 1].sequence_nr, n) << "max " << max;
    }
    ExpectAscendingOffsets(*all);
  }
}

// ---- EventsByTag (live) ----

TEST_P(EventsByTagSpec, FindsNewEvents) {
  auto black = queries_->EventsByTag("black", 0);
  Pulled stored = PullAtLeast(*black, 1, 2);
  EXPECT_THAT(Positions(stored.events), ElementsAre("b:1"));
  EXPECT_FALSE(stored.complete);
  std::shared_ptr<PullSlot<EventEnvelope>> next = StartPull(*black, 2);
  Persist("d", "a black dog", {"black"});
  Persist("d", "a black night", {"black"});
  EnvelopeBatch got = Await(*next);
  EXPECT_FALSE(got.complete);
  std::vector<EventEnvelope> added = std::move(got.elements);
  if (added.size() < 2) {
    Pulled more = PullAtLeast(*black, 2 - added.size(), 10);
    EXPECT_FALSE(more.complete);
    for (EventEnvelope& e : more.events) added.push_back(std::move(e));
  }
  EXPECT_THAT(EventTexts(added), ElementsAre("a black dog", "a black night"));
  EXPECT_LT(stored.events[0].offset, added[0].offset);
}

TEST_P(EventsByTagSpec, FindsEventsFromAnOffsetExclusive) {
  Persist("c", "a green cucumber", {"green"});
  auto first = queries_->EventsByTag("green", 0);
  Pulled two = PullAtLeast(*first, 2, 1);
  ASSERT_THAT(EventTexts(two.events),
              ElementsAre("a green apple", "a green banana"));
  first.reset();
  auto rest = queries_->EventsByTag("green", two.events[1].offset);
  Pulled stored = PullAtLeast(*rest, 2, 10);
  EXPECT_THAT(EventTexts(stored.events),
              ElementsAre("a green leaf", "a green cucumber"));
  EXPECT_FALSE(stored.complete);
  Persist("b", "a green frog", {"green"});
  EXPECT_THAT(EventTexts(PullAtLeast(*rest, 1, 10).events),
              ElementsAre("a green frog"));
}

TEST_P(EventsByTagSpec, CommitsOfOtherTagsDoNotDeliver) {
  auto green = queries_->EventsByTag("green", 0);
  EXPECT_EQ(PullAtLeast(*green, 3, 10).events.size(), 3u);
  std::shared_ptr<PullSlot<EventEnvelope>> next = StartPull(*green, 10);
  Persist("c", "a black cat", {"black"});
  Persist("c", "untagged");
  Persist("c", "a green cucumber", {"green"});
  EnvelopeBatch got = Await(*next);
  EXPECT_THAT(EventTexts(got.elements), ElementsAre("a green cucumber"));
  EXPECT_FALSE(got.complete);
}

// Writers of several persistence ids racing the query: every event comes
// once, by ascending offset, each id's in sequence order, and a current
// query afterwards agrees on every position and offset (none was skipped).
TEST_P(EventsByTagSpec, InterleavedWritesOfSeveralIdsComeInOffsetOrder) {
  constexpr int kIds = 3;
  constexpr int kEach = 30;
  auto live = queries_->EventsByTag("race", 0);
  std::vector<std::thread> writers;
  for (int w = 0; w < kIds; ++w) {
    writers.emplace_back([this, w] {
      const std::string id = absl::StrCat("p", w);
      for (int64_t n = 1; n <= kEach; ++n) {
        PersistentRepr event =
            Event(id, n, serialization::Payload::Of(absl::StrCat(id, "-", n)));
        event.tags = {"race"};
        AtomicWrite write;
        write.events.push_back(std::move(event));
        WriteOutcome outcome = WriteMessages(*journal_, {std::move(write)});
        EXPECT_OK(outcome.batch) << id;
      }
    });
  }
  Pulled pulled = PullAtLeast(*live, kIds * kEach, 7);
  for (std::thread& writer : writers) writer.join();
  EXPECT_FALSE(pulled.complete);
  ASSERT_EQ(pulled.events.size(), static_cast<std::size_t>(kIds * kEach));
  ExpectAscendingOffsets(pulled.events);
  std::vector<int64_t> next(kIds, 1);
  for (const EventEnvelope& e : pulled.events) {
    const int w = e.persistence_id.back() - '0';
    ASSERT_GE(w, 0);
    ASSERT_LT(w, kIds);
    EXPECT_EQ(e.sequence_nr, next[w]++) << e.persistence_id;
  }
  auto current = queries_->CurrentEventsByTag("race", 0);
  std::vector<EventEnvelope> stored = Drain(*current, 100);
  EXPECT_EQ(Positions(stored), Positions(pulled.events));
  for (std::size_t i = 0; i < stored.size() && i < pulled.events.size(); ++i) {
    EXPECT_EQ(stored[i].offset, pulled.events[i].offset);
  }
}

// A consumer that stops and starts again from the last offset it handled
// gets exactly the events after it: none again, none lost.
TEST_P(EventsByTagSpec, ResumingFromTheLastOffsetSeenGivesExactlyTheRest) {
  for (int i = 0; i < 5; ++i) {
    Persist("x", "x", {"resume"});
    Persist("y", "y", {"resume"});
  }
  auto first = queries_->EventsByTag("resume", 0);
  std::vector<EventEnvelope> seen;
  for (int i = 0; i < 4; ++i) {
    Pulled one = PullAtLeast(*first, 1, 1);
    ASSERT_EQ(one.events.size(), 1u);
    seen.push_back(std::move(one.events[0]));
  }
  first.reset();
  for (int i = 0; i < 3; ++i) Persist("z", "z", {"resume"});
  auto again = queries_->EventsByTag("resume", seen.back().offset);
  Pulled rest = PullAtLeast(*again, 9, 4);
  for (EventEnvelope& e : rest.events) seen.push_back(std::move(e));
  auto current = queries_->CurrentEventsByTag("resume", 0);
  std::vector<EventEnvelope> all = Drain(*current, 100);
  ASSERT_EQ(all.size(), 13u);
  EXPECT_EQ(Positions(seen), Positions(all));
  // Nothing more was pending: the next Pull gets the next commit alone.
  Persist("x", "x", {"resume"});
  EXPECT_THAT(Positions(PullAtLeast(*again, 1, 10).events), ElementsAre("x:6"));
}

TEST_P(EventsByTagSpec, DestroyingTheStreamCancelsItsWaitingPull) {
  auto pink = queries_->EventsByTag("pink", 0);
  std::shared_ptr<PullSlot<EventEnvelope>> waiting = StartPull(*pink, 10);
  pink.reset();
  std::optional<absl::StatusOr<EnvelopeBatch>> got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
}

TEST_P(EventsByTagSpec, DestroyingTheReadJournalCancelsAWaitingPull) {
  auto pink = queries_->EventsByTag("pink", 0);
  std::shared_ptr<PullSlot<EventEnvelope>> waiting = StartPull(*pink, 10);
  queries_.reset();
  std::optional<absl::StatusOr<EnvelopeBatch>> got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace cairn::persistence::testing
