// The queries (read_journal.h) over every plugin with queries: tag offsets
// (global, in commit order, never reused), atomic indexing of an
// AtomicWrite, resuming from an offset, what "current" means, demand
// (batches of at most `max`), deleted events, persistence ids (current; the
// live query across a restart), records that cannot be read, and the live
// queries' waiting.

#include "persistence/storage/read_journal.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/inmem/testing/plugins_under_test.h"
#include "persistence/rocksdb/testing/plugins_under_test.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::PluginUnderTest;
using testing::PullAll;
using testing::PullOnce;
using testing::StartPull;
using ::testing::UnorderedElementsAre;
using testing::WriteMessages;
using testing::WriteOutcome;

constexpr int64_t kMax = kMaxSequenceNr;

PersistentRepr Tagged(const std::string& pid, int64_t n,
                      std::vector<std::string> tags) {
  PersistentRepr repr = testing::Event(
      pid, n, serialization::Payload::Of(absl::StrCat(pid, "-", n)));
  repr.tags = std::move(tags);
  return repr;
}

AtomicWrite One(PersistentRepr repr) {
  AtomicWrite write;
  write.events.push_back(std::move(repr));
  return write;
}

// "pid-n@offset" for each envelope.
std::vector<std::string> Described(const std::vector<EventEnvelope>& events) {
  std::vector<std::string> out;
  for (const EventEnvelope& e : events) {
    const std::string* text = e.event.As<std::string>();
    out.push_back(absl::StrCat(text ? *text : "?", "@", e.offset));
  }
  return out;
}

class ReadJournalTest : public ::testing::TestWithParam<PluginUnderTest> {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    ASSERT_OK(GetParam().register_plugins(plugins_, dir_->path()));
    MakeJournal();
  }

  void MakeJournal() {
    queries_.reset();
    journal_.reset();
    absl::StatusOr<std::unique_ptr<Journal>> journal = plugins_.CreateJournal(
        GetParam().journal_plugin_id, {testing::NewTestSerialization()});
    ASSERT_OK(journal);
    journal_ = *std::move(journal);
    absl::StatusOr<std::unique_ptr<ReadJournal>> queries =
        journal_->NewReadJournal();
    ASSERT_OK(queries);
    queries_ = *std::move(queries);
  }

  void Write(std::vector<AtomicWrite> writes) {
    WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
    ASSERT_OK(outcome.batch);
    for (const absl::Status& s : outcome.per_write) ASSERT_OK(s);
  }

  std::vector<std::string> ByTag(const std::string& tag, int64_t offset = 0,
                                 std::size_t max = 100) {
    auto stream = queries_->CurrentEventsByTag(tag, offset);
    absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(*stream, max);
    EXPECT_OK(all);
    return all.ok() ? Described(*all) : std::vector<std::string>{};
  }

  std::optional<testing::TempDir> dir_;
  PluginRegistry plugins_;
  std::unique_ptr<Journal> journal_;
  std::unique_ptr<ReadJournal> queries_;  // destroyed before the journal
};

TEST_P(ReadJournalTest, OffsetsAreGlobalAndFollowTheCommitOrder) {
  Write({One(Tagged("a", 1, {"x"}))});
  Write({One(Tagged("b", 1, {"x", "y"})), One(Tagged("c", 1, {}))});
  Write({One(Tagged("a", 2, {"y"}))});
  EXPECT_THAT(ByTag("x"), ElementsAre("a-1@1", "b-1@2"));
  EXPECT_THAT(ByTag("y"), ElementsAre("b-1@2", "a-2@3"));
  EXPECT_THAT(ByTag("z"), ElementsAre());
  // From an offset: the events after it.
  EXPECT_THAT(ByTag("y", 2), ElementsAre("a-2@3"));
  EXPECT_THAT(ByTag("x", 2), ElementsAre());
  // The envelope carries the event's identity and tags.
  auto stream = queries_->CurrentEventsByTag("x", 1);
  absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(*stream, 10);
  ASSERT_OK(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].persistence_id, "b");
  EXPECT_EQ((*all)[0].sequence_nr, 1);
  EXPECT_EQ((*all)[0].timestamp, 1000);
  EXPECT_THAT((*all)[0].tags, ElementsAre("x", "y"));
}

TEST_P(ReadJournalTest, AnAtomicWriteTakesConsecutiveOffsets) {
  AtomicWrite three;
  for (int64_t n = 1; n <= 3; ++n)
    three.events.push_back(Tagged("a", n, {"t"}));
  Write({One(Tagged("b", 1, {"t"})), std::move(three)});
  EXPECT_THAT(ByTag("t"), ElementsAre("b-1@1", "a-1@2", "a-2@3", "a-3@4"));
}

TEST_P(ReadJournalTest, BatchesHoldAtMostWhatWasAskedFor) {
  for (int64_t n = 1; n <= 5; ++n) Write({One(Tagged("a", n, {"t"}))});
  std::vector<std::size_t> sizes;
  auto stream = queries_->CurrentEventsByTag("t", 0);
  absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(*stream, 2, &sizes);
  ASSERT_OK(all);
  EXPECT_EQ(all->size(), 5u);
  for (std::size_t size : sizes) EXPECT_LE(size, 2u);
  auto by_id = queries_->CurrentEventsByPersistenceId("a", 1, kMax);
  sizes.clear();
  all = PullAll(*by_id, 2, &sizes);
  ASSERT_OK(all);
  EXPECT_EQ(all->size(), 5u);
  for (std::size_t size : sizes) EXPECT_LE(size, 2u);
}

TEST_P(ReadJournalTest, ACurrentQueryEndsAtWhatWasStoredAtItsFirstPull) {
  Write({One(Tagged("a", 1, {"t"})), One(Tagged("a", 2, {"t"}))});
  auto by_tag = queries_->CurrentEventsByTag("t", 0);
  auto by_id = queries_->CurrentEventsByPersistenceId("a", 1, kMax);
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> first =
      PullOnce(*by_tag, 1);
  ASSERT_OK(first);
  ASSERT_EQ(first->elements.size(), 1u);
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> first_by_id =
      PullOnce(*by_id, 1);
  ASSERT_OK(first_by_id);
  Write({One(Tagged("a", 3, {"t"}))});
  absl::StatusOr<std::vector<EventEnvelope>> rest = PullAll(*by_tag, 10);
  ASSERT_OK(rest);
  EXPECT_THAT(Described(*rest), ElementsAre("a-2@2"));
  rest = PullAll(*by_id, 10);
  ASSERT_OK(rest);
  EXPECT_THAT(Described(*rest), ElementsAre("a-2@2"));
  // A new query sees the new event.
  EXPECT_THAT(ByTag("t"), ElementsAre("a-1@1", "a-2@2", "a-3@3"));
}

TEST_P(ReadJournalTest, OffsetsNeverRepeatAcrossDeletesAndRestarts) {
  Write({One(Tagged("a", 1, {"t"})), One(Tagged("a", 2, {"t"}))});
  ASSERT_OK(testing::DeleteMessagesTo(*journal_, "a", 2));
  Write({One(Tagged("a", 3, {"t"}))});
  // Deleted events are skipped; the new one did not take a freed offset.
  EXPECT_THAT(ByTag("t"), ElementsAre("a-3@3"));
  if (GetParam().persistent) {
    MakeJournal();
    Write({One(Tagged("b", 1, {"t"}))});
    EXPECT_THAT(ByTag("t"), ElementsAre("a-3@3", "b-1@4"));
  }
}

TEST_P(ReadJournalTest, EventsByPersistenceIdReadARangeAndSkipDeleted) {
  for (int64_t n = 1; n <= 6; ++n) Write({One(Tagged("a", n, {}))});
  Write({One(Tagged("b", 1, {}))});
  ASSERT_OK(testing::DeleteMessagesTo(*journal_, "a", 2));
  auto stream = queries_->CurrentEventsByPersistenceId("a", 1, 5);
  absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(*stream, 10);
  ASSERT_OK(all);
  EXPECT_THAT(Described(*all), ElementsAre("a-3@3", "a-4@4", "a-5@5"));
  auto none = queries_->CurrentEventsByPersistenceId("nobody", 1, kMax);
  all = PullAll(*none, 10);
  ASSERT_OK(all);
  EXPECT_TRUE(all->empty());
}

TEST_P(ReadJournalTest, PersistenceIdsListEveryStreamOnce) {
  for (const char* id : {"b", "a", "ab", "c"}) {
    Write({One(Tagged(id, 1, {})), One(Tagged(id, 2, {}))});
  }
  ASSERT_OK(testing::DeleteMessagesTo(*journal_, "c", kMax));
  ASSERT_OK(testing::DeleteMessagesTo(*journal_, "a", 1));
  // A stream whose only write was rejected has a highest sequence number.
  WriteOutcome rejected = WriteMessages(
      *journal_,
      {testing::Single(
          "r", 1, serialization::Payload::Of(testing::NotSerializable{}))});
  ASSERT_OK(rejected.batch);
  ASSERT_FALSE(rejected.per_write.at(0).ok());
  for (std::size_t max : {1, 3, 100}) {
    auto stream = queries_->CurrentPersistenceIds();
    absl::StatusOr<std::vector<std::string>> ids = PullAll(*stream, max);
    ASSERT_OK(ids);
    EXPECT_THAT(*ids, UnorderedElementsAre("a", "ab", "b", "c", "r")) << max;
  }
}

TEST_P(ReadJournalTest, ARecordThatCannotBeReadFailsTheQueryNamingIt) {
  PersistentRepr bad = testing::Event(
      "a", 2, serialization::Payload::Of(testing::FailsToDecode{}));
  bad.tags = {"t"};
  Write({One(Tagged("a", 1, {"t"}))});
  Write({One(std::move(bad))});
  auto stream = queries_->CurrentEventsByTag("t", 0);
  absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(*stream, 10);
  ASSERT_FALSE(all.ok());
  EXPECT_THAT(std::string(all.status().message()),
              HasSubstr("persistence id 'a', sequence nr 2"));
}

TEST_P(ReadJournalTest, PullsAfterTheEndOrOfNothingFail) {
  Write({One(Tagged("a", 1, {"t"}))});
  auto stream = queries_->CurrentEventsByTag("t", 0);
  EXPECT_EQ(PullOnce(*stream, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(*stream, 10);
  ASSERT_OK(all);
  EXPECT_EQ(PullOnce(*stream, 10).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_P(ReadJournalTest, AnEmptyTagFailsTheWholeCall) {
  WriteOutcome outcome = WriteMessages(
      *journal_, {One(Tagged("a", 1, {"t"})), One(Tagged("b", 1, {""}))});
  EXPECT_EQ(outcome.batch.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ByTag("t"), ElementsAre());
}

TEST_P(ReadJournalTest, AStreamDestroyedWithAPullInFlightStillCallsBack) {
  Write({One(Tagged("a", 1, {"t"}))});
  auto slot = std::make_shared<
      testing::Slot<absl::StatusOr<QueryStream<EventEnvelope>::Batch>>>();
  {
    auto stream = queries_->CurrentEventsByTag("t", 0);
    stream->Pull(10, [slot](auto batch) { slot->Set(std::move(batch)); });
  }
  auto batch = slot->Wait();
  ASSERT_TRUE(batch.has_value());
  ASSERT_OK(*batch);
  EXPECT_EQ((*batch)->elements.size(), 1u);
}

using PullSlot = testing::PullSlot<EventEnvelope>;

TEST_P(ReadJournalTest, ALiveQueryByTagWaitsForTheNextMatchingCommit) {
  Write({One(Tagged("a", 1, {"t"}))});
  auto stream = queries_->EventsByTag("t", 0);
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> first =
      PullOnce(*stream, 10);
  ASSERT_OK(first);
  EXPECT_THAT(Described(first->elements), ElementsAre("a-1@1"));
  EXPECT_FALSE(first->complete);
  std::shared_ptr<PullSlot> next = StartPull(*stream, 10);
  // Commits that add nothing to the query wake it, and it waits again.
  Write({One(Tagged("b", 1, {"other"})), One(Tagged("c", 1, {}))});
  Write({One(Tagged("a", 2, {"t"}))});
  std::optional<absl::StatusOr<QueryStream<EventEnvelope>::Batch>> got =
      next->Wait();
  ASSERT_TRUE(got.has_value());
  ASSERT_OK(*got);
  EXPECT_THAT(Described((*got)->elements), ElementsAre("a-2@3"));
  EXPECT_FALSE((*got)->complete);
}

TEST_P(ReadJournalTest, ALiveQueryByIdCompletesAtItsLastSequenceNumber) {
  Write({One(Tagged("a", 1, {}))});
  auto stream = queries_->EventsByPersistenceId("a", 1, 2);
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> first =
      PullOnce(*stream, 10);
  ASSERT_OK(first);
  EXPECT_THAT(Described(first->elements), ElementsAre("a-1@1"));
  EXPECT_FALSE(first->complete);
  std::shared_ptr<PullSlot> next = StartPull(*stream, 10);
  Write({One(Tagged("a", 2, {})), One(Tagged("a", 3, {}))});
  auto got = next->Wait();
  ASSERT_TRUE(got.has_value());
  ASSERT_OK(*got);
  EXPECT_THAT(Described((*got)->elements), ElementsAre("a-2@2"));
  EXPECT_TRUE((*got)->complete);
}

// `to` rejected (or deleted): it will never be delivered, and the query
// completes once the stream has reached it.
TEST_P(ReadJournalTest, ALiveQueryByIdCompletesWhenItsLastNumberIsRejected) {
  Write({One(Tagged("a", 1, {}))});
  auto stream = queries_->EventsByPersistenceId("a", 1, 2);
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> first =
      PullOnce(*stream, 10);
  ASSERT_OK(first);
  EXPECT_FALSE(first->complete);
  std::shared_ptr<PullSlot> next = StartPull(*stream, 10);
  WriteOutcome rejected = WriteMessages(
      *journal_,
      {testing::Single(
          "a", 2, serialization::Payload::Of(testing::NotSerializable{}))});
  ASSERT_OK(rejected.batch);
  ASSERT_FALSE(rejected.per_write.at(0).ok());
  auto got = next->Wait();
  ASSERT_TRUE(got.has_value());
  ASSERT_OK(*got);
  EXPECT_TRUE((*got)->elements.empty());
  EXPECT_TRUE((*got)->complete);
}

TEST_P(ReadJournalTest, DestroyingALiveStreamCancelsItsWaitingPull) {
  auto stream = queries_->EventsByTag("t", 0);
  std::shared_ptr<PullSlot> waiting = StartPull(*stream, 10);
  stream.reset();
  auto got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
  // A commit after does not call it again (the slot would be overwritten
  // with a batch).
  Write({One(Tagged("a", 1, {"t"}))});
}

TEST_P(ReadJournalTest, DestroyingTheReadJournalCancelsWaitingPulls) {
  auto stream = queries_->EventsByTag("t", 0);
  std::shared_ptr<PullSlot> waiting = StartPull(*stream, 10);
  queries_.reset();
  auto got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
  stream.reset();
  Write({One(Tagged("a", 1, {"t"}))});
}

TEST_P(ReadJournalTest, ALiveQueryGetsEveryEventOfRacingWritesOnceInOrder) {
  constexpr int kEvents = 100;
  auto stream = queries_->EventsByTag("t", 0);
  std::thread writer([this] {
    for (int64_t n = 1; n <= kEvents; ++n) {
      WriteOutcome outcome =
          WriteMessages(*journal_, {One(Tagged("a", n, {"t"}))});
      EXPECT_OK(outcome.batch);
    }
  });
  std::vector<int64_t> offsets;
  while (offsets.size() < static_cast<std::size_t>(kEvents)) {
    absl::StatusOr<QueryStream<EventEnvelope>::Batch> batch =
        PullOnce(*stream, 7);
    ASSERT_OK(batch);
    ASSERT_FALSE(batch->elements.empty());
    ASSERT_LE(batch->elements.size(), 7u);
    for (const EventEnvelope& e : batch->elements) offsets.push_back(e.offset);
  }
  writer.join();
  for (int i = 0; i < kEvents; ++i) EXPECT_EQ(offsets[i], i + 1);
}

using IdsBatch = QueryStream<std::string>::Batch;
using IdsSlot = testing::PullSlot<std::string>;

// The waiting Pull's batch; a failed assertion (and an empty batch) if it
// failed.
IdsBatch WaitForIds(IdsSlot& slot) {
  std::optional<absl::StatusOr<IdsBatch>> got = slot.Wait();
  EXPECT_TRUE(got.has_value());
  if (!got.has_value()) return {};
  EXPECT_OK(*got);
  return got->ok() ? **got : IdsBatch{};
}

// The live PersistenceIds cases every plugin passes are in the query TCK
// (persistence/storage/testing/persistence_ids_spec.cc).

TEST_P(ReadJournalTest, LivePersistenceIdsSurviveARestart) {
  if (!GetParam().persistent) GTEST_SKIP() << "nothing survives a restart";
  Write({One(Tagged("b", 1, {})), One(Tagged("a", 1, {}))});
  MakeJournal();
  Write({One(Tagged("c", 1, {})), One(Tagged("a", 2, {}))});
  auto stream = queries_->PersistenceIds();
  std::vector<std::string> all;
  while (all.size() < 3) {
    absl::StatusOr<IdsBatch> batch = PullOnce(*stream, 2);
    ASSERT_OK(batch);
    ASSERT_FALSE(batch->elements.empty());
    all.insert(all.end(), batch->elements.begin(), batch->elements.end());
  }
  EXPECT_THAT(all, ElementsAre("b", "a", "c"));
  std::shared_ptr<IdsSlot> next = StartPull(*stream, 10);
  Write({One(Tagged("d", 1, {}))});
  EXPECT_THAT(WaitForIds(*next).elements, ElementsAre("d"));
}

INSTANTIATE_TEST_SUITE_P(Plugin, ReadJournalTest,
                         ::testing::Values(testing::InMemoryPlugins(),
                                           testing::RocksDbPlugins()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace cairn::persistence
