// The in-memory plugin's current and live queries (read_journal.h): tag
// offsets, "current" bounds, batches, deletes, decoding errors, waiting for
// commits, cancellation and stream life cycles.
#include "persistence/inmem/internal/in_memory_read_journal.h"

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/inmem/internal/in_memory_journal.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/testing/gate.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence::inmem_internal {
namespace {

using ::cairn::persistence::testing::DeleteMessagesTo;
using ::cairn::persistence::testing::Event;
using ::cairn::persistence::testing::FailsToDecode;
using ::cairn::persistence::testing::Gate;
using ::cairn::persistence::testing::kCallDeadline;
using ::cairn::persistence::testing::NewTestSerialization;
using ::cairn::persistence::testing::NotSerializable;
using ::cairn::persistence::testing::WriteMessages;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// One Pull's outcome handed from the plugin's thread to the test.
template <typename T>
class PullSlot {
 public:
  using Result = absl::StatusOr<typename QueryStream<T>::Batch>;

  void Set(Result result) {
    base::MutexLock lock(&mu_);
    result_ = std::move(result);
    thread_ = std::this_thread::get_id();
    ready_.SignalAll();
  }
  // The outcome; DeadlineExceeded if it did not come within kCallDeadline.
  Result Wait() {
    const absl::Time deadline = absl::Now() + kCallDeadline;
    base::MutexLock lock(&mu_);
    while (!result_.has_value()) {
      if (ready_.WaitWithDeadline(&mu_, deadline) && !result_.has_value()) {
        return absl::DeadlineExceededError("the query did not call back");
      }
    }
    return *std::move(result_);
  }
  std::thread::id thread() {
    base::MutexLock lock(&mu_);
    return thread_;
  }

 private:
  base::Mutex mu_;
  base::CondVar ready_;
  std::optional<Result> result_ ABSL_GUARDED_BY(mu_);
  std::thread::id thread_ ABSL_GUARDED_BY(mu_);
};

// Starts a Pull whose outcome lands in the returned slot.
template <typename T>
std::shared_ptr<PullSlot<T>> StartPull(QueryStream<T>& stream,
                                       std::size_t max) {
  auto slot = std::make_shared<PullSlot<T>>();
  stream.Pull(max, [slot](absl::StatusOr<typename QueryStream<T>::Batch> b) {
    slot->Set(std::move(b));
  });
  return slot;
}

template <typename T>
absl::StatusOr<typename QueryStream<T>::Batch> PullOnce(QueryStream<T>& stream,
                                                        std::size_t max) {
  std::shared_ptr<PullSlot<T>> slot = StartPull(stream, max);
  auto result = slot->Wait();
  EXPECT_NE(slot->thread(), std::this_thread::get_id())
      << "the callback ran inside Pull";
  return result;
}

// Every batch of a stream pulled with `max` until it completes or fails.
template <typename T>
struct Drained {
  std::vector<std::vector<T>> batches;
  absl::Status status;

  std::vector<T> All() const {
    std::vector<T> all;
    for (const auto& batch : batches)
      all.insert(all.end(), batch.begin(), batch.end());
    return all;
  }
};

template <typename T>
Drained<T> Drain(QueryStream<T>& stream, std::size_t max) {
  Drained<T> drained;
  while (true) {
    auto batch = PullOnce(stream, max);
    if (!batch.ok()) {
      drained.status = batch.status();
      return drained;
    }
    EXPECT_LE(batch->elements.size(), max);
    EXPECT_TRUE(!batch->elements.empty() || batch->complete)
        << "an empty batch that is not complete";
    if (!batch->elements.empty()) {
      drained.batches.push_back(std::move(batch->elements));
    }
    if (batch->complete) return drained;
  }
}

std::vector<int64_t> Offsets(const std::vector<EventEnvelope>& envelopes) {
  std::vector<int64_t> offsets;
  for (const EventEnvelope& e : envelopes) offsets.push_back(e.offset);
  return offsets;
}

std::vector<std::string> Texts(const std::vector<EventEnvelope>& envelopes) {
  std::vector<std::string> texts;
  for (const EventEnvelope& e : envelopes) {
    const std::string* text = e.event.As<std::string>();
    texts.push_back(text == nullptr ? std::string() : *text);
  }
  return texts;
}

std::vector<std::size_t> Sizes(
    const std::vector<std::vector<EventEnvelope>>& b) {
  std::vector<std::size_t> sizes;
  for (const auto& batch : b) sizes.push_back(batch.size());
  return sizes;
}

PersistentRepr Tagged(const std::string& persistence_id, int64_t sequence_nr,
                      std::vector<std::string> tags) {
  PersistentRepr event =
      Event(persistence_id, sequence_nr,
            serialization::Payload::Of(persistence_id + "-" +
                                       std::to_string(sequence_nr)));
  event.tags = std::move(tags);
  return event;
}

AtomicWrite Write(std::vector<PersistentRepr> events) {
  return AtomicWrite{std::move(events)};
}

class InMemoryReadJournalTest : public ::testing::Test {
 protected:
  InMemoryReadJournalTest()
      : journal_(std::make_unique<InMemoryJournal>(NewTestSerialization())) {
    absl::StatusOr<std::unique_ptr<ReadJournal>> queries =
        journal_->NewReadJournal();
    EXPECT_OK(queries);
    queries_ = *std::move(queries);
  }

  void Store(std::vector<AtomicWrite> writes) {
    testing::WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
    ASSERT_OK(outcome.batch);
    for (const absl::Status& s : outcome.per_write) ASSERT_OK(s);
  }

  Drained<EventEnvelope> ByTag(const std::string& tag, int64_t offset,
                               std::size_t max = 100) {
    auto stream = queries_->CurrentEventsByTag(tag, offset);
    return Drain(*stream, max);
  }

  std::unique_ptr<InMemoryJournal> journal_;
  std::unique_ptr<ReadJournal> queries_;
};

TEST_F(InMemoryReadJournalTest, TagsOfAnAtomicWriteGetConsecutiveOffsets) {
  Store({Write({Tagged("a", 1, {"t"})}),
         Write({Tagged("b", 1, {"t"}), Tagged("b", 2, {"t"}),
                Tagged("b", 3, {"t"})})});
  Drained<EventEnvelope> got = ByTag("t", 0);
  ASSERT_OK(got.status);
  std::vector<EventEnvelope> all = got.All();
  EXPECT_THAT(Offsets(all), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(Texts(all), ElementsAre("a-1", "b-1", "b-2", "b-3"));
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[2].persistence_id, "b");
  EXPECT_EQ(all[2].sequence_nr, 2);
  EXPECT_EQ(all[2].timestamp, 2000);
  EXPECT_THAT(all[2].tags, ElementsAre("t"));
}

TEST_F(InMemoryReadJournalTest, QueriesSeeAllOfAnAtomicWriteOrNone) {
  constexpr int kWrites = 200;
  std::atomic<bool> written{false};
  std::thread writer([this, &written] {
    for (int i = 0; i < kWrites; ++i) {
      int64_t first = 3 * i + 1;
      Store({Write({Tagged("w", first, {"t"}), Tagged("w", first + 1, {"t"}),
                    Tagged("w", first + 2, {"t"})})});
    }
    written = true;
  });
  // Queries while the writes go on; the last one starts after all of them.
  bool after_all = false;
  std::vector<int64_t> offsets;
  while (!after_all) {
    after_all = written;
    Drained<EventEnvelope> got = ByTag("t", 0, 7);
    offsets = Offsets(got.All());
    std::vector<int64_t> expected(offsets.size());
    std::iota(expected.begin(), expected.end(), 1);
    // Not ASSERT: the writer must be joined.
    if (!got.status.ok() || offsets.size() % 3 != 0 || offsets != expected) {
      ADD_FAILURE() << got.status << ", offsets "
                    << ::testing::PrintToString(offsets);
      break;
    }
  }
  writer.join();
  EXPECT_EQ(offsets.size(), 3u * kWrites);
}

TEST_F(InMemoryReadJournalTest, OffsetsAreGlobalAcrossTagsAndNeverReused) {
  Store({Write({Tagged("a", 1, {"x"})}), Write({Tagged("b", 1, {"y"})}),
         Write({Tagged("c", 1, {"x", "y"})}), Write({Tagged("d", 1, {})})});
  EXPECT_THAT(Offsets(ByTag("x", 0).All()), ElementsAre(1, 3));
  EXPECT_THAT(Offsets(ByTag("y", 0).All()), ElementsAre(2, 3));
  std::vector<EventEnvelope> both = ByTag("y", 0).All();
  ASSERT_EQ(both.size(), 2u);
  EXPECT_THAT(both[1].tags, ElementsAre("x", "y"));

  for (const char* id : {"a", "b", "c"}) {
    ASSERT_OK(DeleteMessagesTo(*journal_, id, kMaxSequenceNr));
  }
  EXPECT_THAT(ByTag("x", 0).All(), IsEmpty());
  Store({Write({Tagged("a", 2, {"x"})}), Write({Tagged("e", 1, {"y"})})});
  EXPECT_THAT(Offsets(ByTag("x", 0).All()), ElementsAre(4));
  EXPECT_THAT(Offsets(ByTag("y", 0).All()), ElementsAre(5));
}

TEST_F(InMemoryReadJournalTest, ResumesAfterTheOffsetGiven) {
  Store({Write({Tagged("a", 1, {"t"}), Tagged("a", 2, {"t"}),
                Tagged("a", 3, {"t"}), Tagged("a", 4, {"t"})})});
  EXPECT_THAT(Offsets(ByTag("t", 2).All()), ElementsAre(3, 4));
  EXPECT_THAT(Offsets(ByTag("t", 4).All()), IsEmpty());
  EXPECT_THAT(Offsets(ByTag("t", 0).All()), ElementsAre(1, 2, 3, 4));
}

TEST_F(InMemoryReadJournalTest, BatchesHoldAtMostMax) {
  std::vector<PersistentRepr> events;
  for (int64_t seq = 1; seq <= 7; ++seq)
    events.push_back(Tagged("a", seq, {"t"}));
  Store({Write(std::move(events))});

  Drained<EventEnvelope> by_tag = ByTag("t", 0, 3);
  ASSERT_OK(by_tag.status);
  EXPECT_THAT(Sizes(by_tag.batches), ElementsAre(3, 3, 1));
  EXPECT_THAT(Offsets(by_tag.All()), ElementsAre(1, 2, 3, 4, 5, 6, 7));

  auto stream = queries_->CurrentEventsByPersistenceId("a", 2, 6);
  Drained<EventEnvelope> by_id = Drain(*stream, 2);
  ASSERT_OK(by_id.status);
  EXPECT_THAT(Sizes(by_id.batches), ElementsAre(2, 2, 1));
  EXPECT_THAT(Offsets(by_id.All()), ElementsAre(2, 3, 4, 5, 6));
  EXPECT_THAT(Texts(by_id.All()),
              ElementsAre("a-2", "a-3", "a-4", "a-5", "a-6"));
}

TEST_F(InMemoryReadJournalTest,
       CurrentQueriesEndWhereTheStoreWasAtTheFirstPull) {
  Store({Write({Tagged("a", 1, {"t"}), Tagged("a", 2, {"t"})})});
  auto by_tag = queries_->CurrentEventsByTag("t", 0);
  auto by_id = queries_->CurrentEventsByPersistenceId("a", 1, kMaxSequenceNr);
  auto ids = queries_->CurrentPersistenceIds();
  // Nothing is read before the first Pull.
  Store({Write({Tagged("a", 3, {"t"})})});

  auto tag_first = PullOnce(*by_tag, 1);
  auto id_first = PullOnce(*by_id, 1);
  auto ids_first = PullOnce(*ids, 1);
  ASSERT_OK(tag_first);
  ASSERT_OK(id_first);
  ASSERT_OK(ids_first);
  EXPECT_FALSE(tag_first->complete);
  EXPECT_FALSE(id_first->complete);
  EXPECT_TRUE(ids_first->complete);
  EXPECT_THAT(ids_first->elements, ElementsAre("a"));

  Store({Write({Tagged("a", 4, {"t"})}), Write({Tagged("b", 1, {"t"})})});
  Drained<EventEnvelope> tag_rest = Drain(*by_tag, 10);
  Drained<EventEnvelope> id_rest = Drain(*by_id, 10);
  EXPECT_THAT(Offsets(tag_rest.All()), ElementsAre(2, 3));
  EXPECT_THAT(Offsets(id_rest.All()), ElementsAre(2, 3));
  // A query made now sees them.
  EXPECT_THAT(Offsets(ByTag("t", 0).All()), ElementsAre(1, 2, 3, 4, 5));
}

TEST_F(InMemoryReadJournalTest, DeletedEventsAreSkipped) {
  Store({Write({Tagged("a", 1, {"t"}), Tagged("a", 2, {"t"}),
                Tagged("a", 3, {"t"}), Tagged("a", 4, {"t"})}),
         Write({Tagged("b", 1, {"t"})})});
  ASSERT_OK(DeleteMessagesTo(*journal_, "a", 2));
  Drained<EventEnvelope> by_tag = ByTag("t", 0, 1);
  ASSERT_OK(by_tag.status);
  EXPECT_THAT(Offsets(by_tag.All()), ElementsAre(3, 4, 5));
  EXPECT_THAT(Texts(by_tag.All()), ElementsAre("a-3", "a-4", "b-1"));

  auto by_id = queries_->CurrentEventsByPersistenceId("a", 1, kMaxSequenceNr);
  EXPECT_THAT(Offsets(Drain(*by_id, 1).All()), ElementsAre(3, 4));

  // Deleted between two Pulls of one query.
  auto stream = queries_->CurrentEventsByTag("t", 0);
  auto first = PullOnce(*stream, 1);
  ASSERT_OK(first);
  EXPECT_THAT(Offsets(first->elements), ElementsAre(3));
  ASSERT_OK(DeleteMessagesTo(*journal_, "a", 4));
  EXPECT_THAT(Offsets(Drain(*stream, 10).All()), ElementsAre(5));
}

TEST_F(InMemoryReadJournalTest, PersistenceIdsEachOnceAlsoWhenDeleted) {
  Store({Write({Tagged("a", 1, {})}), Write({Tagged("b", 1, {})}),
         Write({Tagged("a", 2, {})}), Write({Tagged("c", 1, {"t"})})});
  Store({Write({Tagged("a", 3, {})})});
  ASSERT_OK(DeleteMessagesTo(*journal_, "c", kMaxSequenceNr));
  auto ids = queries_->CurrentPersistenceIds();
  Drained<std::string> got = Drain(*ids, 2);
  ASSERT_OK(got.status);
  EXPECT_EQ(got.batches.size(), 2u);
  EXPECT_THAT(got.All(), UnorderedElementsAre("a", "b", "c"));

  auto none = InMemoryJournal(NewTestSerialization()).NewReadJournal();
  ASSERT_OK(none);
  auto empty = (*none)->CurrentPersistenceIds();
  Drained<std::string> nothing = Drain(*empty, 2);
  EXPECT_OK(nothing.status);
  EXPECT_THAT(nothing.All(), IsEmpty());
}

TEST_F(InMemoryReadJournalTest, UnknownIdOrTagCompletesEmpty) {
  auto by_id = queries_->CurrentEventsByPersistenceId("nobody", 1, 10);
  auto by_tag = queries_->CurrentEventsByTag("nothing", 0);
  auto id_batch = PullOnce(*by_id, 5);
  auto tag_batch = PullOnce(*by_tag, 5);
  ASSERT_OK(id_batch);
  ASSERT_OK(tag_batch);
  EXPECT_TRUE(id_batch->complete);
  EXPECT_THAT(id_batch->elements, IsEmpty());
  EXPECT_TRUE(tag_batch->complete);
  EXPECT_THAT(tag_batch->elements, IsEmpty());
}

TEST_F(InMemoryReadJournalTest, UndecodableEventNamesIdAndSequenceNr) {
  PersistentRepr bad = Tagged("bad", 2, {"t"});
  bad.payload = serialization::Payload::Of(FailsToDecode{2});
  Store({Write({Tagged("bad", 1, {"t"}), std::move(bad)})});

  auto by_id = queries_->CurrentEventsByPersistenceId("bad", 1, 10);
  Drained<EventEnvelope> id_got = Drain(*by_id, 10);
  EXPECT_EQ(id_got.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(id_got.status.message(),
              HasSubstr("persistence id 'bad', sequence nr 2"));
  // The query is over: a further Pull gets the same error.
  auto again = PullOnce(*by_id, 10);
  EXPECT_EQ(again.status(), id_got.status);

  Drained<EventEnvelope> tag_got = ByTag("t", 0, 1);
  EXPECT_THAT(Offsets(tag_got.All()), ElementsAre(1));
  EXPECT_EQ(tag_got.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(tag_got.status.message(),
              HasSubstr("persistence id 'bad', sequence nr 2"));
}

TEST_F(InMemoryReadJournalTest, StreamDestroyedMidPullStillCallsBack) {
  Store({Write({Tagged("a", 1, {"t"})})});
  // The first Pull's callback holds the read journal's thread, so the
  // second Pull is still queued when its stream is destroyed.
  Gate gate;
  auto holder = queries_->CurrentEventsByTag("t", 0);
  holder->Pull(1, [&gate](auto) { gate.Wait(); });
  auto stream = queries_->CurrentEventsByTag("t", 0);
  std::shared_ptr<PullSlot<EventEnvelope>> slot = StartPull(*stream, 5);
  stream.reset();
  gate.Open();
  auto batch = slot->Wait();
  ASSERT_OK(batch);
  EXPECT_THAT(Offsets(batch->elements), ElementsAre(1));
  EXPECT_TRUE(batch->complete);
}

TEST_F(InMemoryReadJournalTest, DestroyingTheReadJournalRunsPendingPulls) {
  Store({Write({Tagged("a", 1, {"t"})})});
  auto stream = queries_->CurrentEventsByTag("t", 0);
  std::shared_ptr<PullSlot<EventEnvelope>> slot = StartPull(*stream, 5);
  queries_.reset();
  // Ran before the destructor returned: no waiting needed.
  auto batch = slot->Wait();
  ASSERT_OK(batch);
  EXPECT_THAT(Offsets(batch->elements), ElementsAre(1));
  stream.reset();  // after its read journal: allowed
}

TEST_F(InMemoryReadJournalTest, ReadJournalOutlivesTheJournal) {
  Store({Write({Tagged("a", 1, {"t"}), Tagged("a", 2, {})})});
  journal_.reset();
  EXPECT_THAT(Offsets(ByTag("t", 0).All()), ElementsAre(1));
  auto by_id = queries_->CurrentEventsByPersistenceId("a", 1, kMaxSequenceNr);
  EXPECT_THAT(Texts(Drain(*by_id, 5).All()), ElementsAre("a-1", "a-2"));
}

TEST_F(InMemoryReadJournalTest, CallbackMayPullAgain) {
  Store({Write(
      {Tagged("a", 1, {"t"}), Tagged("a", 2, {"t"}), Tagged("a", 3, {"t"})})});
  auto stream = queries_->CurrentEventsByTag("t", 0);
  struct Chain {
    QueryStream<EventEnvelope>* stream;
    std::vector<int64_t> offsets;
    PullSlot<EventEnvelope> done;
    void Next() {
      stream->Pull(
          1, [this](absl::StatusOr<QueryStream<EventEnvelope>::Batch> batch) {
            if (!batch.ok() || batch->complete) {
              if (batch.ok()) {
                for (const auto& e : batch->elements)
                  offsets.push_back(e.offset);
              }
              done.Set(std::move(batch));
              return;
            }
            for (const auto& e : batch->elements) offsets.push_back(e.offset);
            Next();
          });
    }
  };
  Chain chain{stream.get(), {}, {}};
  chain.Next();
  auto last = chain.done.Wait();
  ASSERT_OK(last);
  EXPECT_THAT(chain.offsets, ElementsAre(1, 2, 3));
}

// Live queries. That a Pull still waits after a commit is checked after
// the commit's callback and then one Pull of another stream of the same
// read journal: the journal notifies before it calls back, and the waiter
// posts the retry to the read journal's one thread at once, so that other
// Pull runs after the retry (Flush).

// A Pull's outcome and how often its callback ran.
struct CountedPull {
  std::atomic<int> calls{0};
  PullSlot<EventEnvelope> slot;
};

std::shared_ptr<CountedPull> StartCounted(QueryStream<EventEnvelope>& stream,
                                          std::size_t max) {
  auto pull = std::make_shared<CountedPull>();
  stream.Pull(max,
              [pull](absl::StatusOr<QueryStream<EventEnvelope>::Batch> batch) {
                pull->calls.fetch_add(1);
                pull->slot.Set(std::move(batch));
              });
  return pull;
}

std::vector<int64_t> SequenceNrs(const std::vector<EventEnvelope>& envelopes) {
  std::vector<int64_t> nrs;
  for (const EventEnvelope& e : envelopes) nrs.push_back(e.sequence_nr);
  return nrs;
}

class LiveQueryTest : public InMemoryReadJournalTest {
 protected:
  // Runs every task posted to the read journal's thread before it.
  void Flush() {
    auto ids = queries_->CurrentPersistenceIds();
    ASSERT_OK(PullOnce(*ids, 1));
  }
};

TEST_F(LiveQueryTest, ByTagDeliversWhatIsStoredThenWaitsForTheNextCommit) {
  Store({Write({Tagged("a", 1, {"t"}), Tagged("a", 2, {"t"})})});
  auto stream = queries_->EventsByTag("t", 0);
  auto first = PullOnce(*stream, 5);
  ASSERT_OK(first);
  EXPECT_THAT(Offsets(first->elements), ElementsAre(1, 2));
  EXPECT_FALSE(first->complete);

  std::shared_ptr<CountedPull> waiting = StartCounted(*stream, 5);
  Flush();
  EXPECT_EQ(waiting->calls.load(), 0) << "delivered with nothing new";
  Store({Write({Tagged("a", 3, {"t"})})});
  auto next = waiting->slot.Wait();
  ASSERT_OK(next);
  EXPECT_THAT(Offsets(next->elements), ElementsAre(3));
  EXPECT_THAT(Texts(next->elements), ElementsAre("a-3"));
  EXPECT_FALSE(next->complete);
  EXPECT_NE(waiting->slot.thread(), std::this_thread::get_id());
}

TEST_F(LiveQueryTest, ByTagDeliversACommitMadeBeforeThePullRead) {
  // The read journal's thread is held, so the Pull reads after the write.
  Gate gate;
  auto holder = queries_->CurrentPersistenceIds();
  holder->Pull(1, [&gate](auto) { gate.Wait(); });
  auto stream = queries_->EventsByTag("t", 0);
  std::shared_ptr<CountedPull> pull = StartCounted(*stream, 5);
  Store({Write({Tagged("a", 1, {"t"})})});
  gate.Open();
  auto batch = pull->slot.Wait();
  ASSERT_OK(batch);
  EXPECT_THAT(Offsets(batch->elements), ElementsAre(1));
  EXPECT_FALSE(batch->complete);
}

TEST_F(LiveQueryTest, OtherCommitsWakeButDoNotDeliver) {
  Store({Write({Tagged("b", 1, {"u"})})});
  auto by_tag = queries_->EventsByTag("t", 0);
  auto by_id = queries_->EventsByPersistenceId("a", 1, kMaxSequenceNr);
  std::shared_ptr<CountedPull> tag_pull = StartCounted(*by_tag, 5);
  std::shared_ptr<CountedPull> id_pull = StartCounted(*by_id, 5);
  Flush();
  Store({Write({Tagged("b", 2, {"u"})})});  // another tag, another id
  Flush();
  EXPECT_EQ(tag_pull->calls.load(), 0);
  EXPECT_EQ(id_pull->calls.load(), 0);
  ASSERT_OK(DeleteMessagesTo(*journal_, "b", 2));
  Flush();
  EXPECT_EQ(tag_pull->calls.load(), 0);
  EXPECT_EQ(id_pull->calls.load(), 0);

  Store({Write({Tagged("a", 1, {"t"})})});
  auto tag_batch = tag_pull->slot.Wait();
  ASSERT_OK(tag_batch);
  EXPECT_THAT(Offsets(tag_batch->elements), ElementsAre(3));
  EXPECT_THAT(Texts(tag_batch->elements), ElementsAre("a-1"));
  auto id_batch = id_pull->slot.Wait();
  ASSERT_OK(id_batch);
  EXPECT_THAT(SequenceNrs(id_batch->elements), ElementsAre(1));
  EXPECT_FALSE(id_batch->complete);
}

TEST_F(LiveQueryTest, ByIdBatchesHoldAtMostMaxAndCompleteAtTo) {
  Store({Write({Tagged("a", 1, {}), Tagged("a", 2, {}), Tagged("a", 3, {})})});
  auto stream = queries_->EventsByPersistenceId("a", 1, 5);
  auto first = PullOnce(*stream, 2);
  ASSERT_OK(first);
  EXPECT_THAT(SequenceNrs(first->elements), ElementsAre(1, 2));
  EXPECT_FALSE(first->complete);
  auto second = PullOnce(*stream, 2);
  ASSERT_OK(second);
  EXPECT_THAT(SequenceNrs(second->elements), ElementsAre(3));
  EXPECT_FALSE(second->complete) << "3 stored, to is 5";

  std::shared_ptr<CountedPull> waiting = StartCounted(*stream, 5);
  Flush();
  EXPECT_EQ(waiting->calls.load(), 0);
  Store({Write({Tagged("a", 4, {}), Tagged("a", 5, {}), Tagged("a", 6, {})})});
  auto last = waiting->slot.Wait();
  ASSERT_OK(last);
  EXPECT_THAT(SequenceNrs(last->elements), ElementsAre(4, 5));
  EXPECT_TRUE(last->complete);
  EXPECT_EQ(PullOnce(*stream, 5).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(LiveQueryTest, ByIdCompletesWhenToWasDeleted) {
  Store({Write({Tagged("a", 1, {}), Tagged("a", 2, {})})});
  ASSERT_OK(DeleteMessagesTo(*journal_, "a", 2));
  auto stream = queries_->EventsByPersistenceId("a", 1, 2);
  auto batch = PullOnce(*stream, 5);
  ASSERT_OK(batch);
  EXPECT_THAT(batch->elements, IsEmpty());
  EXPECT_TRUE(batch->complete);
}

TEST_F(LiveQueryTest, ARejectedWriteAtToWakesAndCompletesByPersistenceId) {
  Store({Write({Tagged("a", 1, {})})});
  auto stream = queries_->EventsByPersistenceId("a", 2, 2);
  std::shared_ptr<CountedPull> waiting = StartCounted(*stream, 5);
  Flush();
  EXPECT_EQ(waiting->calls.load(), 0);
  // Rejected: stores nothing, but uses sequence number 2.
  testing::WriteOutcome outcome = WriteMessages(
      *journal_,
      {Write({Event("a", 2, serialization::Payload::Of(NotSerializable{}))})});
  ASSERT_OK(outcome.batch);
  ASSERT_EQ(outcome.per_write.size(), 1u);
  EXPECT_FALSE(outcome.per_write[0].ok());
  auto batch = waiting->slot.Wait();
  ASSERT_OK(batch);
  EXPECT_THAT(batch->elements, IsEmpty());
  EXPECT_TRUE(batch->complete);
}

TEST_F(LiveQueryTest, DestroyingAStreamCancelsItsWaitingPullOnce) {
  auto stream = queries_->EventsByTag("t", 0);
  std::shared_ptr<CountedPull> waiting = StartCounted(*stream, 5);
  Flush();
  stream.reset();
  auto result = waiting->slot.Wait();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
  EXPECT_NE(waiting->slot.thread(), std::this_thread::get_id());
  // The waiter was cancelled: a matching commit calls back nothing more.
  Store({Write({Tagged("a", 1, {"t"})})});
  Flush();
  EXPECT_EQ(waiting->calls.load(), 1);
}

TEST_F(LiveQueryTest, DestroyingTheReadJournalCancelsWaitingPulls) {
  auto by_tag = queries_->EventsByTag("t", 0);
  auto by_id = queries_->EventsByPersistenceId("a", 1, kMaxSequenceNr);
  std::shared_ptr<CountedPull> tag_pull = StartCounted(*by_tag, 5);
  std::shared_ptr<CountedPull> id_pull = StartCounted(*by_id, 5);
  Flush();
  queries_.reset();
  // Called back before the destructor returned.
  EXPECT_EQ(tag_pull->calls.load(), 1);
  EXPECT_EQ(id_pull->calls.load(), 1);
  EXPECT_EQ(tag_pull->slot.Wait().status().code(),
            absl::StatusCode::kCancelled);
  EXPECT_EQ(id_pull->slot.Wait().status().code(), absl::StatusCode::kCancelled);
  Store({Write({Tagged("a", 1, {"t"})})});  // no waiter left to wake
  by_tag.reset();
  by_id.reset();
  EXPECT_EQ(tag_pull->calls.load(), 1);
  EXPECT_EQ(id_pull->calls.load(), 1);
}

TEST_F(LiveQueryTest, DestroyRacingACommitCallsBackOnce) {
  for (int i = 1; i <= 50; ++i) {
    auto stream = queries_->EventsByTag("t", i - 1);
    std::shared_ptr<CountedPull> pull = StartCounted(*stream, 5);
    Flush();
    std::thread writer([&] { Store({Write({Tagged("a", i, {"t"})})}); });
    stream.reset();
    writer.join();
    auto result = pull->slot.Wait();
    if (result.ok()) {
      EXPECT_THAT(Offsets(result->elements), ElementsAre(i));
    } else {
      EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
    }
    Flush();
    EXPECT_EQ(pull->calls.load(), 1) << "round " << i;
  }
}

TEST_F(LiveQueryTest, WritesRacingALiveQueryAreDeliveredOnceInOrder) {
  constexpr int kPerWriter = 50;
  auto by_tag = queries_->EventsByTag("t", 0);
  auto by_id = queries_->EventsByPersistenceId("a", 1, kPerWriter);
  auto write_all = [this](const std::string& id) {
    for (int i = 1; i <= kPerWriter; ++i) {
      testing::WriteOutcome outcome =
          WriteMessages(*journal_, {Write({Tagged(id, i, {"t"})})});
      EXPECT_OK(outcome.batch);
    }
  };
  std::thread writer_a(write_all, "a");
  std::thread writer_b(write_all, "b");
  std::vector<EventEnvelope> by_tag_got;
  while (by_tag_got.size() < 2 * kPerWriter) {
    auto batch = PullOnce(*by_tag, 7);
    ASSERT_OK(batch);
    ASSERT_FALSE(batch->elements.empty());
    ASSERT_LE(batch->elements.size(), 7u);
    ASSERT_FALSE(batch->complete);
    for (EventEnvelope& e : batch->elements) by_tag_got.push_back(e);
  }
  Drained<EventEnvelope> by_id_got = Drain(*by_id, 3);
  writer_a.join();
  writer_b.join();

  std::vector<int64_t> expected(2 * kPerWriter);
  std::iota(expected.begin(), expected.end(), 1);
  EXPECT_THAT(Offsets(by_tag_got), ::testing::ElementsAreArray(expected));
  std::map<std::string, std::vector<int64_t>> per_id;
  for (const EventEnvelope& e : by_tag_got) {
    per_id[e.persistence_id].push_back(e.sequence_nr);
  }
  std::vector<int64_t> one_to_n(kPerWriter);
  std::iota(one_to_n.begin(), one_to_n.end(), 1);
  EXPECT_THAT(per_id["a"], ::testing::ElementsAreArray(one_to_n));
  EXPECT_THAT(per_id["b"], ::testing::ElementsAreArray(one_to_n));
  ASSERT_OK(by_id_got.status);
  EXPECT_THAT(SequenceNrs(by_id_got.All()),
              ::testing::ElementsAreArray(one_to_n));
}

}  // namespace
}  // namespace cairn::persistence::inmem_internal
