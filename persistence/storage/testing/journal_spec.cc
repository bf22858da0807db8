// JournalSpec: the Akka persistence TCK's journal scenarios, then the
// threading contract of journal.h, then cases the TCK leaves out (AtomicWrite
// rules, stream isolation, sequence-number extremes, unreadable records).
// Each case starts with "a-1" to "a-5" stored for pid_ (tck.h).

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/callback_probe.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/tck.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int64_t kMax = kMaxSequenceNr;

// Events "<prefix><n>" for n in [from, to], as one AtomicWrite. Counts
// rather than compares, so that `to` may be kMaxSequenceNr.
AtomicWrite Batch(const std::string& persistence_id, int64_t from, int64_t to,
                  const std::string& prefix = "a-") {
  AtomicWrite write;
  for (int64_t i = 0; i <= to - from; ++i) {
    PersistentRepr event;
    event.persistence_id = persistence_id;
    event.sequence_nr = from + i;
    event.payload = serialization::Payload::Of(absl::StrCat(prefix, from + i));
    event.writer_uuid = "writer-1";
    event.timestamp = 1000 + i;
    write.events.push_back(std::move(event));
  }
  return write;
}

std::vector<std::string> Expected(int64_t from, int64_t to) {
  std::vector<std::string> texts;
  for (int64_t n = from; n <= to; ++n) texts.push_back(absl::StrCat("a-", n));
  return texts;
}

// --- Akka JournalSpec -------------------------------------------------------

TEST_P(JournalSpec, ReplaysAllMessages) {
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAreArray(Expected(1, 5)));
}

TEST_P(JournalSpec, ReplaysMessagesUsingALowerSequenceNrBound) {
  EXPECT_THAT(Replay(3, kMax, kMax), ElementsAre("a-3", "a-4", "a-5"));
}

TEST_P(JournalSpec, ReplaysMessagesUsingAnUpperSequenceNrBound) {
  EXPECT_THAT(Replay(1, 3, kMax), ElementsAre("a-1", "a-2", "a-3"));
}

TEST_P(JournalSpec, ReplaysMessagesUsingACountLimit) {
  EXPECT_THAT(Replay(1, kMax, 3), ElementsAre("a-1", "a-2", "a-3"));
}

TEST_P(JournalSpec, ReplaysMessagesUsingALowerAndUpperSequenceNrBound) {
  EXPECT_THAT(Replay(2, 3, kMax), ElementsAre("a-2", "a-3"));
}

TEST_P(JournalSpec, ReplaysMessagesUsingALowerAndUpperBoundAndACountLimit) {
  EXPECT_THAT(Replay(2, 5, 2), ElementsAre("a-2", "a-3"));
}

TEST_P(JournalSpec, ReplaysASingleMessageIfLowerBoundEqualsUpperBound) {
  EXPECT_THAT(Replay(2, 2, kMax), ElementsAre("a-2"));
}

TEST_P(JournalSpec, ReplaysASingleMessageIfCountLimitIsOne) {
  EXPECT_THAT(Replay(2, 4, 1), ElementsAre("a-2"));
}

TEST_P(JournalSpec, ReplaysNoMessagesIfCountLimitIsZero) {
  EXPECT_THAT(Replay(2, 4, 0), IsEmpty());
}

TEST_P(JournalSpec, ReplaysNoMessagesIfLowerBoundIsAboveUpperBound) {
  EXPECT_THAT(Replay(3, 2, kMax), IsEmpty());
}

TEST_P(JournalSpec, ReplaysNoMessagesForAnUnknownPersistenceId) {
  ReplayOutcome outcome =
      ReplayMessages(*journal_, "non-existing-pid", 1, kMax, kMax);
  EXPECT_OK(outcome.status);
  EXPECT_THAT(outcome.events, IsEmpty());
  absl::StatusOr<int64_t> highest =
      ReadHighestSequenceNr(*journal_, "non-existing-pid");
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 0);
}

// Akka's "return a highest seq number > 0 if the persistent actor has
// already written messages": a replay with to == 0 delivers nothing, and
// the highest sequence number is read without one.
TEST_P(JournalSpec, ReturnsTheHighestSequenceNrWithoutReplay) {
  EXPECT_THAT(Replay(0, 0, kMax), IsEmpty());
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 5);
}

TEST_P(JournalSpec, DoesNotReplayDeletedMessages) {
  absl::Status deleted = DeleteMessagesTo(*journal_, pid_, 3);
  ASSERT_OK(deleted);
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAre("a-4", "a-5"));
}

TEST_P(JournalSpec, KeepsTheHighestSequenceNrAfterDeletingMessages) {
  absl::Status deleted = DeleteMessagesTo(*journal_, pid_, 3);
  ASSERT_OK(deleted);
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 5);
}

TEST_P(JournalSpec, KeepsTheHighestSequenceNrAfterDeletingAllMessages) {
  absl::Status deleted = DeleteMessagesTo(*journal_, pid_, kMax);
  ASSERT_OK(deleted);
  EXPECT_THAT(Replay(1, kMax, kMax), IsEmpty());
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 5);

  if (!GetParam().persistent) return;
  // A journal made again on the same store (a restarted process) still
  // knows it.
  journal_.reset();
  journal_ = NewJournal();
  ASSERT_NE(journal_, nullptr);
  highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 5);
  EXPECT_THAT(Replay(1, kMax, kMax), IsEmpty());
}

// Akka's "reject non-serializable events": the write that cannot be
// serialized is rejected, the others of the call are stored.
TEST_P(JournalSpec, RejectsANonSerializableEventAloneInABatch) {
  std::vector<AtomicWrite> writes;
  writes.push_back(
      Single(pid_, 6, serialization::Payload::Of(std::string("a-6"))));
  writes.push_back(
      Single(pid_, 7, serialization::Payload::Of(NotSerializable{7})));
  writes.push_back(
      Single(pid_, 8, serialization::Payload::Of(std::string("a-8"))));
  WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
  ASSERT_OK(outcome.batch);
  ASSERT_EQ(outcome.per_write.size(), 3u);
  EXPECT_OK(outcome.per_write[0]);
  EXPECT_EQ(outcome.per_write[1].code(), absl::StatusCode::kInvalidArgument)
      << outcome.per_write[1];
  EXPECT_THAT(std::string(outcome.per_write[1].message()),
              HasSubstr("persistence id 'p-1', sequence nr 7"));
  EXPECT_OK(outcome.per_write[2]);
  EXPECT_THAT(Replay(6, kMax, kMax), ElementsAre("a-6", "a-8"));
}

// Akka's "serialize events", for every envelope field.
TEST_P(JournalSpec, RoundTripsThePayloadAndEveryEnvelopeField) {
  TestEventT value;
  value.name = std::string("name\0with a NUL", 15);
  value.value = -42;
  value.labels = {"x", "", "y"};
  PersistentRepr flat = Event(pid_, 6, serialization::Payload::Of(value));
  flat.manifest = "ignored on write";
  flat.writer_uuid = "0b7e1f0a-writer";
  flat.timestamp = 1700000000123;
  flat.tags = {"tag-a", "tag-b"};
  flat.adapter_manifest = "adapter-v2";
  PersistentRepr amount =
      Event(pid_, 7, serialization::Payload::Of(Amount{-7}));
  amount.tags = {"only"};
  const std::string binary("bin\0\xff\x80 end", 9);
  PersistentRepr text = Event(pid_, 8, serialization::Payload::Of(binary));
  text.writer_uuid = "";
  text.timestamp = 0;
  PersistentRepr empty =
      Event(pid_, 9, serialization::Payload::Of(std::string()));
  empty.timestamp = std::numeric_limits<int64_t>::min();

  std::vector<AtomicWrite> writes(2);
  writes[0].events = {flat, amount};
  writes[1].events = {text, empty};
  WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
  ASSERT_OK(outcome.batch);
  for (const absl::Status& status : outcome.per_write) {
    ASSERT_OK(status);
  }

  ReplayOutcome replay = ReplayMessages(*journal_, pid_, 6, kMax, kMax);
  ASSERT_OK(replay.status);
  ASSERT_EQ(replay.events.size(), 4u);

  const PersistentRepr& got_flat = replay.events[0];
  EXPECT_EQ(got_flat.persistence_id, pid_);
  EXPECT_EQ(got_flat.sequence_nr, 6);
  EXPECT_EQ(got_flat.manifest, kTestEventManifest);
  EXPECT_EQ(got_flat.writer_uuid, "0b7e1f0a-writer");
  EXPECT_EQ(got_flat.timestamp, 1700000000123);
  EXPECT_THAT(got_flat.tags, ElementsAre("tag-a", "tag-b"));
  EXPECT_EQ(got_flat.adapter_manifest, "adapter-v2");
  const TestEventT* got_value = got_flat.payload.As<TestEventT>();
  ASSERT_NE(got_value, nullptr) << got_flat.payload.TypeName();
  EXPECT_EQ(got_value->name, value.name);
  EXPECT_EQ(got_value->value, -42);
  EXPECT_THAT(got_value->labels, ElementsAre("x", "", "y"));

  const PersistentRepr& got_amount = replay.events[1];
  EXPECT_EQ(got_amount.sequence_nr, 7);
  EXPECT_EQ(got_amount.manifest, kAmountManifest);
  EXPECT_EQ(got_amount.writer_uuid, "writer-1");
  EXPECT_EQ(got_amount.timestamp, 7000);
  EXPECT_THAT(got_amount.tags, ElementsAre("only"));
  EXPECT_EQ(got_amount.adapter_manifest, "");
  ASSERT_NE(got_amount.payload.As<Amount>(), nullptr);
  EXPECT_EQ(*got_amount.payload.As<Amount>(), Amount{-7});

  const PersistentRepr& got_text = replay.events[2];
  EXPECT_EQ(got_text.sequence_nr, 8);
  EXPECT_EQ(got_text.manifest, "");
  EXPECT_EQ(got_text.writer_uuid, "");
  EXPECT_EQ(got_text.timestamp, 0);
  EXPECT_THAT(got_text.tags, IsEmpty());
  ASSERT_NE(got_text.payload.As<std::string>(), nullptr);
  EXPECT_EQ(*got_text.payload.As<std::string>(), binary);

  const PersistentRepr& got_empty = replay.events[3];
  EXPECT_EQ(got_empty.sequence_nr, 9);
  EXPECT_EQ(got_empty.timestamp, std::numeric_limits<int64_t>::min());
  ASSERT_NE(got_empty.payload.As<std::string>(), nullptr);
  EXPECT_EQ(*got_empty.payload.As<std::string>(), "");
}

// --- The threading contract (journal.h) -------------------------------------

TEST_P(JournalSpec, RunsCallbacksOnAPluginThreadNotTheCallers) {
  auto probe = std::make_shared<CallbackProbe>();
  std::vector<AtomicWrite> writes;
  writes.push_back(
      Single(pid_, 6, serialization::Payload::Of(std::string("a-6"))));
  journal_->AsyncWriteMessages(
      std::move(writes),
      [probe](absl::Status batch, std::vector<absl::Status> per_write) {
        probe->Ran(0, batch.ok() && per_write.size() == 1 && per_write[0].ok());
      });
  journal_->AsyncWriteMessages(
      {}, [probe](absl::Status batch, std::vector<absl::Status> per_write) {
        probe->Ran(1, batch.ok() && per_write.empty());
      });
  // on_event runs on a plugin thread too.
  journal_->AsyncReplayMessages(
      pid_, 1, kMax, kMax,
      [probe](const PersistentRepr&) { probe->Ran(-1, true); },
      [probe](absl::Status status) { probe->Ran(2, status.ok()); });
  journal_->AsyncReadHighestSequenceNr(
      pid_, 0, [probe](absl::StatusOr<int64_t> highest) {
        probe->Ran(3, highest.ok());
      });
  journal_->AsyncDeleteMessagesTo(
      pid_, 1, std::nullopt,
      [probe](absl::Status status) { probe->Ran(4, status.ok()); });
  // 5 final callbacks, and at least the 5 events stored before the replay.
  ASSERT_TRUE(probe->WaitFor(10)) << probe->ran() << " callbacks ran";
  EXPECT_EQ(probe->on_caller(), 0);
  EXPECT_EQ(probe->failed(), 0);
}

// The contract runs callbacks under no plugin lock, so a callback may call
// the journal again; a plugin that broke that rule would deadlock here.
TEST_P(JournalSpec, LetsACallbackCallTheJournalAgain) {
  auto probe = std::make_shared<CallbackProbe>();
  Journal* journal = journal_.get();
  const std::string pid = pid_;
  journal->AsyncWriteMessages(
      {Single(pid, 6, serialization::Payload::Of(std::string("a-6")))},
      [probe, journal, pid](absl::Status batch, std::vector<absl::Status>) {
        probe->Ran(0, batch.ok());
        journal->AsyncReadHighestSequenceNr(
            pid, 0, [probe, journal, pid](absl::StatusOr<int64_t> highest) {
              probe->Ran(1, highest.ok() && *highest == 6);
              journal->AsyncWriteMessages(
                  {Single(pid, 7,
                          serialization::Payload::Of(std::string("a-7")))},
                  [probe](absl::Status batch, std::vector<absl::Status>) {
                    probe->Ran(2, batch.ok());
                  });
            });
        journal->AsyncReplayMessages(
            pid, 6, kMax, kMax, [](const PersistentRepr&) {},
            [probe, journal, pid](absl::Status status) {
              probe->Ran(3, status.ok());
              journal->AsyncDeleteMessagesTo(
                  pid, 1, std::nullopt,
                  [probe](absl::Status s) { probe->Ran(4, s.ok()); });
            });
      });
  ASSERT_TRUE(probe->WaitFor(5)) << probe->ran() << " callbacks ran";
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_THAT(Replay(1, kMax, kMax),
              ElementsAre("a-2", "a-3", "a-4", "a-5", "a-6", "a-7"));
}

TEST_P(JournalSpec, CompletesWritesAndDeletesInSubmissionOrder) {
  auto probe = std::make_shared<CallbackProbe>();
  const std::string other = "p-2";
  int64_t next[2] = {6, 1};  // of pid_ and of other
  int tag = 0;
  for (int i = 0; i < 40; ++i) {
    // Alternating streams: the order holds across persistence ids.
    const std::string& pid = i % 2 == 0 ? pid_ : other;
    const int64_t n = next[i % 2]++;
    journal_->AsyncWriteMessages(
        {Single(pid, n, serialization::Payload::Of(absl::StrCat("a-", n)))},
        [probe, tag](absl::Status batch, std::vector<absl::Status> per_write) {
          probe->Ran(tag, batch.ok() && per_write[0].ok());
        });
    ++tag;
    if (i % 10 == 9) {  // keeps the last two of pid_
      journal_->AsyncDeleteMessagesTo(
          pid_, next[0] - 3, std::nullopt,
          [probe, tag](absl::Status status) { probe->Ran(tag, status.ok()); });
      ++tag;
    }
  }
  ASSERT_TRUE(probe->WaitFor(tag)) << probe->ran() << " of " << tag;
  EXPECT_EQ(probe->failed(), 0);
  std::vector<int> in_order(tag);
  for (int i = 0; i < tag; ++i) in_order[i] = i;
  EXPECT_EQ(probe->order(), in_order);
  // The last delete (to 23) ran after the writes before it.
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAre("a-24", "a-25"));
}

// A read submitted after a write's callback ran sees the write.
TEST_P(JournalSpec, SeesAWriteOnceItsCallbackRan) {
  for (int64_t n = 6; n <= 25; ++n) {
    WriteOutcome outcome = WriteMessages(
        *journal_,
        {Single(pid_, n, serialization::Payload::Of(absl::StrCat("a-", n)))});
    ASSERT_OK(outcome.batch);
    absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
    ASSERT_OK(highest);
    ASSERT_EQ(*highest, n);
    ASSERT_THAT(Replay(n, n, 1), ElementsAre(absl::StrCat("a-", n)));
  }
}

// journal.h's read-after-write rule: a replay or highest-sequence-number
// read submitted after a write or delete of its stream was submitted (not
// waited for) sees that write or delete. A persistent actor restarted
// while its write is in flight recovers this way; a journal that let the
// read overtake the write would have it reuse, and overwrite, the write's
// sequence numbers. A plugin breaks the rule only when a read overtakes a
// commit, which this may miss by luck; rocksdb_journal_test holds a commit
// open to show it deterministically for RocksDB.
TEST_P(JournalSpec, ReadsSeeTheWritesAndDeletesSubmittedBeforeThem) {
  auto probe = std::make_shared<CallbackProbe>();
  int tag = 0;
  for (int64_t n = 6; n <= 25; ++n) {
    journal_->AsyncWriteMessages(
        {Single(pid_, n, serialization::Payload::Of(absl::StrCat("a-", n)))},
        [probe, tag](absl::Status batch, std::vector<absl::Status> per_write) {
          probe->Ran(tag, batch.ok() && per_write[0].ok());
        });
    ++tag;
    absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
    ASSERT_OK(highest);
    ASSERT_EQ(*highest, n);
    ASSERT_THAT(Replay(n, n, 1), ElementsAre(absl::StrCat("a-", n)));
  }
  for (int64_t to = 10; to <= 25; to += 5) {
    journal_->AsyncDeleteMessagesTo(
        pid_, to, std::nullopt,
        [probe, tag](absl::Status status) { probe->Ran(tag, status.ok()); });
    ++tag;
    ASSERT_THAT(Replay(1, kMax, kMax), ElementsAreArray(Expected(to + 1, 25)));
  }
  ASSERT_TRUE(probe->WaitFor(tag)) << probe->ran() << " of " << tag;
  EXPECT_EQ(probe->failed(), 0);
}

TEST_P(JournalSpec, DestructorCompletesSubmittedOperations) {
  auto probe = std::make_shared<CallbackProbe>();
  constexpr int kWrites = 60;
  for (int i = 0; i < kWrites; ++i) {
    const int64_t n = 6 + i;
    journal_->AsyncWriteMessages(
        {Single(pid_, n, serialization::Payload::Of(absl::StrCat("a-", n)))},
        [probe, i](absl::Status batch, std::vector<absl::Status> per_write) {
          probe->Ran(i, batch.ok() && per_write[0].ok());
        });
  }
  journal_->AsyncReplayMessages(
      pid_, 1, kMax, kMax, [](const PersistentRepr&) {},
      [probe](absl::Status status) { probe->Ran(kWrites, status.ok()); });
  journal_->AsyncReadHighestSequenceNr(
      pid_, 0, [probe](absl::StatusOr<int64_t> highest) {
        probe->Ran(kWrites + 1, highest.ok());
      });
  journal_->AsyncDeleteMessagesTo(
      pid_, 2, std::nullopt,
      [probe](absl::Status status) { probe->Ran(kWrites + 2, status.ok()); });

  journal_.reset();
  // No waiting: the destructor has run every callback before returning.
  EXPECT_EQ(probe->ran(), kWrites + 3u);
  EXPECT_EQ(probe->failed(), 0);

  if (!GetParam().persistent) return;
  journal_ = NewJournal();
  ASSERT_NE(journal_, nullptr);
  EXPECT_THAT(Replay(1, kMax, kMax),
              ElementsAreArray(Expected(3, 5 + kWrites)));
}

TEST_P(JournalSpec, StoresConcurrentWritesFromManyThreadsWithoutGaps) {
  constexpr int kThreads = 4;
  constexpr int kWritesPerThread = 100;
  auto probe = std::make_shared<CallbackProbe>();
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      const std::string pid = absl::StrCat("writer-", t);
      // Submitted without waiting: the journal orders them per caller.
      for (int64_t n = 1; n <= kWritesPerThread; ++n) {
        journal_->AsyncWriteMessages(
            {Single(pid, n,
                    serialization::Payload::Of(absl::StrCat(pid, "-", n)))},
            [probe](absl::Status batch, std::vector<absl::Status> per_write) {
              probe->Ran(0, batch.ok() && per_write[0].ok());
            });
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  ASSERT_TRUE(probe->WaitFor(kThreads * kWritesPerThread)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  for (int t = 0; t < kThreads; ++t) {
    const std::string pid = absl::StrCat("writer-", t);
    ReplayOutcome replay = ReplayMessages(*journal_, pid, 1, kMax, kMax);
    ASSERT_OK(replay.status);
    std::vector<int64_t> expected(kWritesPerThread);
    for (int i = 0; i < kWritesPerThread; ++i) expected[i] = i + 1;
    EXPECT_EQ(SequenceNrs(replay.events), expected) << pid;
    absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid);
    ASSERT_OK(highest);
    EXPECT_EQ(*highest, kWritesPerThread);
  }
}

// --- Beyond the TCK
// -----------------------------------------------------------

TEST_P(JournalSpec, CompletesAnEmptyWriteWithNoOutcomes) {
  WriteOutcome outcome = WriteMessages(*journal_, {});
  EXPECT_OK(outcome.batch);
  EXPECT_THAT(outcome.per_write, IsEmpty());
}

TEST_P(JournalSpec, StoresAnAtomicWriteOfManyEvents) {
  WriteOutcome outcome = WriteMessages(*journal_, {Batch(pid_, 6, 9)});
  ASSERT_OK(outcome.batch);
  ASSERT_EQ(outcome.per_write.size(), 1u);
  EXPECT_OK(outcome.per_write[0]);
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAreArray(Expected(1, 9)));
}

// One event that cannot be serialized rejects its whole AtomicWrite.
TEST_P(JournalSpec, RejectsAnAtomicWriteWithANonSerializableEventAsAWhole) {
  AtomicWrite write = Batch(pid_, 6, 8);
  write.events[1].payload = serialization::Payload::Of(NotSerializable{});
  std::vector<AtomicWrite> writes;
  writes.push_back(std::move(write));
  writes.push_back(
      Single("p-2", 1, serialization::Payload::Of(std::string("b-1"))));
  WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
  ASSERT_OK(outcome.batch);
  ASSERT_EQ(outcome.per_write.size(), 2u);
  EXPECT_EQ(outcome.per_write[0].code(), absl::StatusCode::kInvalidArgument);
  EXPECT_OK(outcome.per_write[1]);
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAreArray(Expected(1, 5)));
  EXPECT_THAT(Texts(ReplayMessages(*journal_, "p-2", 1, kMax, kMax).events),
              ElementsAre("b-1"));
  // Its numbers are used up (journal.h): the stream goes on after them.
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 8);
  EXPECT_FALSE(WriteMessages(*journal_, {Batch(pid_, 6, 6)}).batch.ok());
  WriteTexts(9, 9);
  EXPECT_THAT(Replay(1, kMax, kMax),
              ElementsAre("a-1", "a-2", "a-3", "a-4", "a-5", "a-9"));
  if (!GetParam().persistent) return;
  journal_.reset();  // and a restarted process knows it too
  journal_ = NewJournal();
  ASSERT_NE(journal_, nullptr);
  WriteMessages(
      *journal_,
      {Single(pid_, 10, serialization::Payload::Of(NotSerializable{}))});
  journal_.reset();
  journal_ = NewJournal();
  ASSERT_NE(journal_, nullptr);
  highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 10);
}

// persistent_repr.h: one persistence id, contiguous ascending sequence
// numbers from 1 up; a call holding a write that breaks the rules fails as
// a whole and stores nothing, not even its good writes.
TEST_P(JournalSpec, FailsACallWithAnAtomicWriteThatBreaksTheRules) {
  std::vector<AtomicWrite> malformed;
  AtomicWrite mixed = Batch(pid_, 7, 8);
  mixed.events[1].persistence_id = "p-2";
  malformed.push_back(std::move(mixed));
  AtomicWrite gap = Batch(pid_, 7, 8);
  gap.events[1].sequence_nr = 9;
  malformed.push_back(std::move(gap));
  AtomicWrite descending = Batch(pid_, 7, 8);
  std::swap(descending.events[0], descending.events[1]);
  malformed.push_back(std::move(descending));
  malformed.push_back(
      Single(pid_, 0, serialization::Payload::Of(std::string("a-0"))));
  malformed.push_back(
      Single(pid_, -1, serialization::Payload::Of(std::string("a--1"))));
  malformed.push_back(AtomicWrite{});
  malformed.push_back(
      Single("", 1, serialization::Payload::Of(std::string("no id"))));

  for (size_t i = 0; i < malformed.size(); ++i) {
    std::vector<AtomicWrite> writes;
    writes.push_back(
        Single(pid_, 6, serialization::Payload::Of(std::string("a-6"))));
    writes.push_back(std::move(malformed[i]));
    WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
    EXPECT_EQ(outcome.batch.code(), absl::StatusCode::kInvalidArgument)
        << "write " << i << ": " << outcome.batch;
    ASSERT_EQ(outcome.per_write.size(), 2u);
    EXPECT_EQ(outcome.per_write[1], outcome.batch);
  }
  EXPECT_THAT(Replay(0, kMax, kMax), ElementsAreArray(Expected(1, 5)));
  EXPECT_THAT(ReplayMessages(*journal_, "p-2", 1, kMax, kMax).events,
              IsEmpty());
  EXPECT_THAT(ReplayMessages(*journal_, "", 0, kMax, kMax).events, IsEmpty());
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 5);
  WriteTexts(6, 7);
}

// journal.h: a write's first sequence number must follow the stream's
// highest, or the call fails, naming the id and the expected and offered
// numbers, and overwrites nothing: what keeps two writers of one stream
// from overwriting each other's events.
TEST_P(JournalSpec, FailsAWriteThatDoesNotFollowTheStreamsHighest) {
  struct Case {
    int64_t from, to;
  };
  for (Case c :
       {Case{5, 5}, Case{3, 6}, Case{1, 1}, Case{7, 8}, Case{100, 100}}) {
    AtomicWrite write = Batch(pid_, c.from, c.to, "other-");
    for (PersistentRepr& event : write.events) event.writer_uuid = "writer-2";
    WriteOutcome outcome = WriteMessages(*journal_, {std::move(write)});
    EXPECT_EQ(outcome.batch.code(), absl::StatusCode::kFailedPrecondition)
        << c.from << ": " << outcome.batch;
    EXPECT_THAT(std::string(outcome.batch.message()),
                HasSubstr(absl::StrCat("persistence id 'p-1': a write of "
                                       "sequence numbers ",
                                       c.from, " to ", c.to)));
    EXPECT_THAT(std::string(outcome.batch.message()), HasSubstr("expected 6"));
  }
  ReplayOutcome replay = ReplayMessages(*journal_, pid_, 1, kMax, kMax);
  ASSERT_OK(replay.status);
  EXPECT_THAT(Texts(replay.events), ElementsAreArray(Expected(1, 5)));
  for (const PersistentRepr& event : replay.events) {
    EXPECT_EQ(event.writer_uuid, "writer-1");
  }
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 5);
  WriteTexts(6, 6);
}

// Two writers recovered to the same highest both write its next number:
// the first write submitted wins, the second fails. Within one call, and
// across calls submitted back to back (so that a batching plugin commits
// them together).
TEST_P(JournalSpec, TwoWritersOfOneStreamCannotBothWriteANumber) {
  std::vector<AtomicWrite> writes;
  writes.push_back(
      Single(pid_, 6, serialization::Payload::Of(std::string("a-6"))));
  writes.push_back(
      Single(pid_, 6, serialization::Payload::Of(std::string("b-6"))));
  WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
  EXPECT_EQ(outcome.batch.code(), absl::StatusCode::kFailedPrecondition)
      << outcome.batch;
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAreArray(Expected(1, 5)));

  auto probe = std::make_shared<CallbackProbe>();
  for (int writer = 0; writer < 2; ++writer) {
    journal_->AsyncWriteMessages(
        {Batch(pid_, 6, 7, writer == 0 ? "a-" : "b-")},
        [probe, writer](absl::Status batch, std::vector<absl::Status>) {
          probe->Ran(writer, batch.ok());
        });
  }
  journal_->AsyncWriteMessages(
      {Single("p-2", 1, serialization::Payload::Of(std::string("c-1")))},
      [probe](absl::Status batch, std::vector<absl::Status>) {
        probe->Ran(2, batch.ok());
      });
  ASSERT_TRUE(probe->WaitFor(3));
  EXPECT_EQ(probe->failed(), 1);  // the second writer's, alone
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAreArray(Expected(1, 7)));
  EXPECT_THAT(Texts(ReplayMessages(*journal_, "p-2", 1, kMax, kMax).events),
              ElementsAre("c-1"));
}

// Ids that are prefixes of one another, or hold a NUL byte or a separator,
// are separate streams.
TEST_P(JournalSpec, KeepsStreamsApart) {
  std::vector<std::string> ids = {"a", "ab", "a/b", "b", std::string(300, 'x')};
  if (GetParam().ids_may_hold_nul) ids.push_back(std::string("a\0b", 3));
  std::vector<AtomicWrite> writes;
  for (size_t i = 0; i < ids.size(); ++i) {
    writes.push_back(Batch(ids[i], 1, 1 + i, absl::StrCat(i, "-")));
  }
  WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
  ASSERT_OK(outcome.batch);
  ASSERT_OK(DeleteMessagesTo(*journal_, "ab", kMax));
  for (size_t i = 0; i < ids.size(); ++i) {
    ReplayOutcome replay = ReplayMessages(*journal_, ids[i], 1, kMax, kMax);
    ASSERT_OK(replay.status);
    std::vector<std::string> expected;
    if (ids[i] != "ab") {
      for (size_t n = 1; n <= 1 + i; ++n) {
        expected.push_back(absl::StrCat(i, "-", n));
      }
    }
    EXPECT_EQ(Texts(replay.events), expected) << "stream " << i;
    for (const PersistentRepr& event : replay.events) {
      EXPECT_EQ(event.persistence_id, ids[i]);
    }
    absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, ids[i]);
    ASSERT_OK(highest);
    EXPECT_EQ(*highest, static_cast<int64_t>(1 + i)) << "stream " << i;
  }
}

// A plugin that cannot store a NUL in an id refuses it everywhere, rather
// than truncating it to another stream's id ("a").
TEST_P(JournalSpec, RefusesAnIdItCannotHold) {
  if (GetParam().ids_may_hold_nul) GTEST_SKIP() << "ids may hold NUL here";
  const std::string id("a\0b", 3);
  ASSERT_OK(WriteMessages(*journal_, {Batch("a", 1, 2, "a-")}).batch);
  WriteOutcome outcome = WriteMessages(*journal_, {Batch(id, 1, 1, "x-")});
  EXPECT_EQ(outcome.batch.code(), absl::StatusCode::kInvalidArgument)
      << outcome.batch;
  EXPECT_EQ(ReplayMessages(*journal_, id, 1, kMax, kMax).status.code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadHighestSequenceNr(*journal_, id).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DeleteMessagesTo(*journal_, id, kMax).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Texts(ReplayMessages(*journal_, "a", 1, kMax, kMax).events),
              ElementsAre("a-1", "a-2"));
}

// Bounds at the top of the range: no overflow in from + 1, to + 1 or
// counts. (A stream cannot reach such numbers: its writes start at 1.)
TEST_P(JournalSpec, HandlesTheHighestSequenceNumbersAsBounds) {
  EXPECT_THAT(Replay(kMax, kMax, kMax), IsEmpty());
  EXPECT_THAT(Replay(5, kMax, kMax), ElementsAre("a-5"));
  EXPECT_THAT(Replay(1, kMax, kMax - 1), ElementsAreArray(Expected(1, 5)));
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 5);
  ASSERT_OK(DeleteMessagesTo(*journal_, pid_, kMax - 1));
  EXPECT_THAT(Replay(1, kMax, kMax), IsEmpty());
  highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 5);
}

// Long streams, read past any internal chunking, with limits inside it.
TEST_P(JournalSpec, ReplaysLongStreamsWithBoundsAndLimits) {
  std::vector<AtomicWrite> writes;
  for (int64_t from = 6; from <= 1000; from += 5) {
    writes.push_back(Batch(pid_, from, from + 4));
  }
  WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
  ASSERT_OK(outcome.batch);
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAreArray(Expected(1, 1000)));
  EXPECT_THAT(Replay(1, kMax, 300), ElementsAreArray(Expected(1, 300)));
  EXPECT_THAT(Replay(250, 520, kMax), ElementsAreArray(Expected(250, 520)));
  EXPECT_THAT(Replay(255, kMax, 257), ElementsAreArray(Expected(255, 511)));
  EXPECT_THAT(Replay(990, 2000, kMax), ElementsAreArray(Expected(990, 1000)));
}

TEST_P(JournalSpec, DeletesNothingBelowTheFirstSequenceNr) {
  ASSERT_OK(DeleteMessagesTo(*journal_, pid_, 0));
  ASSERT_OK(DeleteMessagesTo(*journal_, pid_, -5));
  ASSERT_OK(DeleteMessagesTo(*journal_, "non-existing-pid", kMax));
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAreArray(Expected(1, 5)));
  absl::StatusOr<int64_t> highest =
      ReadHighestSequenceNr(*journal_, "non-existing-pid");
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 0);
}

TEST_P(JournalSpec, ContinuesAStreamAfterDeletingAllOfIt) {
  ASSERT_OK(DeleteMessagesTo(*journal_, pid_, kMax));
  WriteTexts(6, 7);
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAre("a-6", "a-7"));
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 7);
  // Deleting to below the highest keeps the highest, whichever record
  // holds it.
  ASSERT_OK(DeleteMessagesTo(*journal_, pid_, 6));
  EXPECT_THAT(Replay(1, kMax, kMax), ElementsAre("a-7"));
  highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 7);
}

// journal.h: a record that cannot be decoded fails the replay, naming the
// persistence id and sequence number; the events before it are delivered.
TEST_P(JournalSpec, FailsAReplayAtARecordThatCannotBeDecoded) {
  WriteOutcome outcome = WriteMessages(
      *journal_,
      {Single(pid_, 6, serialization::Payload::Of(FailsToDecode{6}))});
  ASSERT_OK(outcome.batch);
  ASSERT_OK(outcome.per_write[0]);
  WriteTexts(7, 7);

  ReplayOutcome replay = ReplayMessages(*journal_, pid_, 1, kMax, kMax);
  EXPECT_EQ(replay.status.code(), absl::StatusCode::kDataLoss) << replay.status;
  EXPECT_THAT(std::string(replay.status.message()),
              HasSubstr("persistence id 'p-1', sequence nr 6"));
  EXPECT_THAT(Texts(replay.events), ElementsAreArray(Expected(1, 5)));
  // Reads that avoid it work, and so does the highest sequence number.
  EXPECT_THAT(Replay(7, kMax, kMax), ElementsAre("a-7"));
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid_);
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 7);
}

// --- AsyncReplayPage (journal.h) ---------------------------------------------

// A page holds what the replay delivers, with the same bounds and limits,
// whether the journal left the payloads serialized or not.
TEST_P(JournalSpec, ReplaysAPageAsItReplaysMessages) {
  std::vector<AtomicWrite> writes;
  for (int64_t from = 6; from <= 1500; from += 5) {
    writes.push_back(Batch(pid_, from, from + 4));
  }
  ASSERT_OK(WriteMessages(*journal_, std::move(writes)).batch);
  struct Bounds {
    int64_t from, to, max;
  };
  for (const Bounds& b :
       {Bounds{1, kMax, kMax}, Bounds{1, kMax, 300}, Bounds{250, 520, kMax},
        Bounds{255, kMax, 257}, Bounds{1490, 2000, kMax}, Bounds{3, 2, kMax},
        Bounds{1, kMax, 0}}) {
    SCOPED_TRACE(absl::StrCat("from ", b.from, " to ", b.to, " max ", b.max));
    ReplayPageOutcome page = ReplayPageOf(*journal_, pid_, b.from, b.to, b.max);
    ASSERT_OK(page.status);
    ASSERT_OK(page.read);
    EXPECT_THAT(Texts(page.events),
                ElementsAreArray(Replay(b.from, b.to, b.max)));
    for (const PersistentRepr& event : page.events) {
      EXPECT_EQ(Texts({event}), std::vector<std::string>{
                                    absl::StrCat("a-", event.sequence_nr)});
    }
  }
  ReplayPageOutcome none =
      ReplayPageOf(*journal_, "non-existing-pid", 1, kMax, kMax);
  ASSERT_OK(none.status);
  EXPECT_THAT(none.events, IsEmpty());
}

// A record that cannot be decoded fails the page as it fails the replay,
// in the journal's status or when the page is read: the events before it
// come along, and the error names the record.
TEST_P(JournalSpec, FailsAPageAtARecordThatCannotBeDecoded) {
  WriteOutcome outcome = WriteMessages(
      *journal_,
      {Single(pid_, 6, serialization::Payload::Of(FailsToDecode{6}))});
  ASSERT_OK(outcome.batch);
  ASSERT_OK(outcome.per_write[0]);
  WriteTexts(7, 7);

  ReplayPageOutcome page = ReplayPageOf(*journal_, pid_, 1, kMax, kMax);
  const absl::Status failed = page.status.ok() ? page.read : page.status;
  EXPECT_EQ(failed.code(), absl::StatusCode::kDataLoss) << failed;
  EXPECT_THAT(std::string(failed.message()),
              HasSubstr("persistence id 'p-1', sequence nr 6"));
  EXPECT_THAT(Texts(page.events), ElementsAreArray(Expected(1, 5)));
  ReplayPageOutcome after = ReplayPageOf(*journal_, pid_, 7, kMax, kMax);
  ASSERT_OK(after.status);
  ASSERT_OK(after.read);
  EXPECT_THAT(Texts(after.events), ElementsAre("a-7"));
}

// --- AsyncStartRecovery (journal.h) ------------------------------------------

// A request for pid_'s recovery from `snapshots`: the newest snapshot, the
// whole stream, a page of at most `page_max`.
RecoveryStartRequest StartOf(const std::string& pid, SnapshotStore* snapshots,
                             int64_t page_max) {
  RecoveryStartRequest request;
  request.persistence_id = pid;
  request.snapshots = snapshots;
  request.page_max = page_max;
  return request;
}

// Each part is what its own call gives; the page, where the journal reads
// it, starts right after the snapshot.
TEST_P(JournalSpec, StartsARecoveryFromTheNewestSnapshot) {
  std::unique_ptr<SnapshotStore> snapshots = NewSnapshotStore();
  ASSERT_NE(snapshots, nullptr);
  ASSERT_OK(SaveSnapshot(*snapshots, {pid_, 2, 100},
                         serialization::Payload::Of(std::string("s-2"))));
  ASSERT_OK(SaveSnapshot(*snapshots, {pid_, 3, 200},
                         serialization::Payload::Of(std::string("s-3"))));

  RecoveryStartOutcome outcome =
      StartRecovery(*journal_, StartOf(pid_, snapshots.get(), 10));
  ASSERT_OK(outcome.start.snapshot);
  ASSERT_TRUE(outcome.start.snapshot->snapshot.has_value());
  EXPECT_EQ(outcome.start.snapshot->snapshot->metadata.sequence_nr, 3);
  EXPECT_EQ(outcome.start.snapshot->to_sequence_nr, kMax);
  ASSERT_OK(outcome.start.highest);
  EXPECT_EQ(*outcome.start.highest, 5);
  if (outcome.start.replay.has_value()) {
    EXPECT_OK(*outcome.start.replay);
    EXPECT_THAT(Texts(outcome.events), ElementsAre("a-4", "a-5"));
  } else {
    EXPECT_THAT(outcome.events, IsEmpty());
  }
}

// An actor that takes no snapshot offer replays from the first event; the
// page stops at page_max and at to_sequence_nr, and a page of 0 is none.
TEST_P(JournalSpec, StartsARecoveryWithThePageItAsksFor) {
  std::unique_ptr<SnapshotStore> snapshots = NewSnapshotStore();
  ASSERT_NE(snapshots, nullptr);
  ASSERT_OK(SaveSnapshot(*snapshots, {pid_, 3, 200},
                         serialization::Payload::Of(std::string("s-3"))));
  struct Case {
    bool after_snapshot;
    int64_t to;
    int64_t page_max;
    std::vector<std::string> page;
  };
  for (const Case& c :
       {Case{false, kMax, 10, Expected(1, 5)},
        Case{false, kMax, 2, Expected(1, 2)},
        Case{false, 4, 10, Expected(1, 4)}, Case{true, 4, 10, Expected(4, 4)},
        Case{true, kMax, 0, {}}}) {
    SCOPED_TRACE(absl::StrCat("after snapshot ", c.after_snapshot, ", to ",
                              c.to, ", page ", c.page_max));
    RecoveryStartRequest request = StartOf(pid_, snapshots.get(), c.page_max);
    request.replay_after_snapshot = c.after_snapshot;
    request.to_sequence_nr = c.to;
    RecoveryStartOutcome outcome = StartRecovery(*journal_, request);
    ASSERT_OK(outcome.start.snapshot);
    EXPECT_EQ(outcome.start.snapshot->to_sequence_nr, c.to);
    ASSERT_OK(outcome.start.highest);
    EXPECT_EQ(*outcome.start.highest, 5);
    if (outcome.start.replay.has_value()) {
      EXPECT_OK(*outcome.start.replay);
      EXPECT_THAT(Texts(outcome.events), ElementsAreArray(c.page));
    }
  }
}

// Without a snapshot store nothing is loaded; a stream never written has
// no snapshot, highest 0 and no events; deleted events are not replayed
// and the highest stays.
TEST_P(JournalSpec, StartsARecoveryWithoutASnapshotStoreOrEvents) {
  RecoveryStartOutcome outcome =
      StartRecovery(*journal_, StartOf(pid_, nullptr, 10));
  ASSERT_OK(outcome.start.snapshot);
  EXPECT_FALSE(outcome.start.snapshot->snapshot.has_value());
  ASSERT_OK(outcome.start.highest);
  EXPECT_EQ(*outcome.start.highest, 5);

  std::unique_ptr<SnapshotStore> snapshots = NewSnapshotStore();
  ASSERT_NE(snapshots, nullptr);
  outcome = StartRecovery(*journal_, StartOf("unknown", snapshots.get(), 10));
  ASSERT_OK(outcome.start.snapshot);
  EXPECT_FALSE(outcome.start.snapshot->snapshot.has_value());
  ASSERT_OK(outcome.start.highest);
  EXPECT_EQ(*outcome.start.highest, 0);
  EXPECT_THAT(outcome.events, IsEmpty());
  if (outcome.start.replay.has_value()) {
    EXPECT_OK(*outcome.start.replay);
  }

  ASSERT_OK(DeleteMessagesTo(*journal_, pid_, 3));
  outcome = StartRecovery(*journal_, StartOf(pid_, snapshots.get(), 10));
  ASSERT_OK(outcome.start.highest);
  EXPECT_EQ(*outcome.start.highest, 5);
  if (outcome.start.replay.has_value()) {
    EXPECT_THAT(Texts(outcome.events), ElementsAre("a-4", "a-5"));
  }
  ASSERT_OK(DeleteMessagesTo(*journal_, pid_, kMax));
  outcome = StartRecovery(*journal_, StartOf(pid_, snapshots.get(), 10));
  ASSERT_OK(outcome.start.highest);
  EXPECT_EQ(*outcome.start.highest, 5);
  EXPECT_THAT(outcome.events, IsEmpty());
}

// Read after write, for each part: a recovery started right after a write
// and a snapshot save were submitted (their callbacks not waited for)
// sees both. A journal that reads the snapshots itself must not overtake
// the save on the snapshot store's queue.
TEST_P(JournalSpec, StartsARecoveryThatSeesWritesAndSavesSubmittedBefore) {
  std::unique_ptr<SnapshotStore> snapshots = NewSnapshotStore();
  ASSERT_NE(snapshots, nullptr);
  for (int round = 0; round < 20; ++round) {
    const int64_t n = 6 + round;
    CallbackProbe probe;
    journal_->AsyncWriteMessages(
        {Single(pid_, n, serialization::Payload::Of(absl::StrCat("a-", n)))},
        [&probe](absl::Status batch, std::vector<absl::Status>) {
          probe.Ran(0, batch.ok());
        });
    snapshots->AsyncSave(
        {pid_, n, 1000 + n}, serialization::Payload::Of(absl::StrCat("s-", n)),
        std::nullopt,
        [&probe](absl::Status status) { probe.Ran(1, status.ok()); });
    RecoveryStartRequest request = StartOf(pid_, snapshots.get(), 10);
    request.replay_after_snapshot = false;
    RecoveryStartOutcome outcome = StartRecovery(*journal_, request);
    ASSERT_TRUE(probe.WaitFor(2));
    ASSERT_OK(outcome.start.snapshot);
    ASSERT_TRUE(outcome.start.snapshot->snapshot.has_value());
    EXPECT_EQ(outcome.start.snapshot->snapshot->metadata.sequence_nr, n);
    ASSERT_OK(outcome.start.highest);
    EXPECT_EQ(*outcome.start.highest, n);
    if (outcome.start.replay.has_value()) {
      EXPECT_OK(*outcome.start.replay);
      EXPECT_EQ(outcome.events.size(),
                static_cast<size_t>(std::min<int64_t>(n, 10)));
    }
  }
}

}  // namespace
}  // namespace cairn::persistence::testing
