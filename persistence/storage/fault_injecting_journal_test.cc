// FaultInjectingJournal over every plugin: injected failures and rejections
// as fault_injecting_journal.h promises them, delivered as the Journal
// contract requires (on a plugin thread, in order with the operations
// around them), storing nothing that failed.

#include "persistence/storage/fault_injecting_journal.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/inmem/testing/plugins_under_test.h"
#include "persistence/rocksdb/testing/plugins_under_test.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/testing/callback_probe.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using testing::CallbackProbe;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::PluginUnderTest;
using testing::ReadHighestSequenceNr;
using testing::ReplayMessages;
using testing::ReplayOutcome;
using testing::Single;
using testing::Texts;
using testing::WriteMessages;
using testing::WriteOutcome;

constexpr int64_t kMax = kMaxSequenceNr;

class FaultInjectingJournalTest
    : public ::testing::TestWithParam<PluginUnderTest> {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    ASSERT_OK(GetParam().register_plugins(plugins_, dir_->path()));
    absl::StatusOr<std::unique_ptr<Journal>> inner = plugins_.CreateJournal(
        GetParam().journal_plugin_id, {testing::NewTestSerialization()});
    ASSERT_OK(inner);
    journal_ = std::make_unique<FaultInjectingJournal>(*std::move(inner));
  }

  static AtomicWrite Text(const std::string& pid, int64_t n) {
    return Single(pid, n,
                  serialization::Payload::Of(absl::StrCat(pid, "-", n)));
  }

  std::vector<std::string> ReplayAll(const std::string& pid) {
    ReplayOutcome replay = ReplayMessages(*journal_, pid, 1, kMax, kMax);
    EXPECT_OK(replay.status);
    return Texts(replay.events);
  }

  std::optional<testing::TempDir> dir_;
  PluginRegistry plugins_;
  std::unique_ptr<FaultInjectingJournal> journal_;
};

TEST_P(FaultInjectingJournalTest, PassesEverythingThroughWhenNotTold) {
  WriteOutcome outcome = WriteMessages(*journal_, {Text("a", 1), Text("a", 2)});
  ASSERT_OK(outcome.batch);
  EXPECT_THAT(outcome.per_write,
              ElementsAre(absl::OkStatus(), absl::OkStatus()));
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2"));
  ASSERT_OK(testing::DeleteMessagesTo(*journal_, "a", 1));
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-2"));
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, "a");
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 2);
}

TEST_P(FaultInjectingJournalTest,
       FailsTheNextWriteCallsAndStoresNothingOfThem) {
  journal_->FailNextWrites(2);
  for (int call = 0; call < 2; ++call) {
    WriteOutcome outcome =
        WriteMessages(*journal_, {Text("a", 1 + call), Text("b", 1 + call)});
    EXPECT_EQ(outcome.batch.code(), absl::StatusCode::kUnavailable)
        << outcome.batch;
    EXPECT_THAT(std::string(outcome.batch.message()),
                HasSubstr("injected write failure"));
    EXPECT_THAT(outcome.per_write, ElementsAre(outcome.batch, outcome.batch));
  }
  WriteOutcome outcome = WriteMessages(*journal_, {Text("a", 1)});
  EXPECT_OK(outcome.batch);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1"));
  EXPECT_THAT(ReplayAll("b"), IsEmpty());
}

TEST_P(FaultInjectingJournalTest, FailsWritesAndDeletesWhileTheStoreIsDown) {
  ASSERT_OK(WriteMessages(*journal_, {Text("a", 1)}).batch);
  journal_->SetFailWrites(true);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(WriteMessages(*journal_, {Text("a", 2)}).batch.code(),
              absl::StatusCode::kUnavailable);
  }
  EXPECT_EQ(testing::DeleteMessagesTo(*journal_, "a", kMax).code(),
            absl::StatusCode::kUnavailable);
  // Reads are not affected.
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1"));

  journal_->SetFailWrites(false);
  ASSERT_OK(WriteMessages(*journal_, {Text("a", 2)}).batch);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2"));
}

TEST_P(FaultInjectingJournalTest, RejectsTheNextWritesCountedAcrossCalls) {
  journal_->RejectNextWrites(2);
  WriteOutcome first = WriteMessages(*journal_, {Text("a", 1)});
  ASSERT_OK(first.batch);
  ASSERT_EQ(first.per_write.size(), 1u);
  EXPECT_EQ(first.per_write[0].code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      std::string(first.per_write[0].message()),
      HasSubstr("persistence id 'a', sequence nr 1: injected rejection"));

  // A rejected write's numbers count as used (journal.h), as after a real
  // rejection: the writer goes on with 2.
  WriteOutcome second =
      WriteMessages(*journal_, {Text("a", 2), Text("b", 1), Text("c", 1)});
  ASSERT_OK(second.batch);
  ASSERT_EQ(second.per_write.size(), 3u);
  EXPECT_EQ(second.per_write[0].code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(second.per_write[0].message()),
              HasSubstr("injected rejection"));
  EXPECT_OK(second.per_write[1]);
  EXPECT_OK(second.per_write[2]);

  EXPECT_THAT(ReplayAll("a"), IsEmpty());
  EXPECT_THAT(ReplayAll("b"), ElementsAre("b-1"));
  EXPECT_THAT(ReplayAll("c"), ElementsAre("c-1"));
  EXPECT_EQ(*ReadHighestSequenceNr(*journal_, "a"), 2);
  // Used up.
  WriteOutcome third = WriteMessages(*journal_, {Text("a", 3)});
  EXPECT_OK(third.per_write[0]);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-3"));
}

// The wrapped journal's own rejections keep their slots among the injected
// ones.
TEST_P(FaultInjectingJournalTest, MergesInjectedAndRealRejections) {
  journal_->RejectNextWrites(1);
  WriteOutcome outcome = WriteMessages(
      *journal_,
      {Text("a", 1),
       Single("b", 1, serialization::Payload::Of(testing::NotSerializable{})),
       Text("c", 1)});
  ASSERT_OK(outcome.batch);
  ASSERT_EQ(outcome.per_write.size(), 3u);
  EXPECT_THAT(std::string(outcome.per_write[0].message()),
              HasSubstr("injected rejection"));
  EXPECT_EQ(outcome.per_write[1].code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(outcome.per_write[1].message()),
              ::testing::Not(HasSubstr("injected")));
  EXPECT_OK(outcome.per_write[2]);
  EXPECT_THAT(ReplayAll("c"), ElementsAre("c-1"));
}

// A failure of the wrapped journal wins over rejections: every write gets
// the batch status, as journal.h requires.
TEST_P(FaultInjectingJournalTest, ReportsTheWrappedBatchFailureForEveryWrite) {
  // A decorator under the decorator plays the failing store.
  auto failing = std::make_unique<FaultInjectingJournal>(std::move(journal_));
  failing->SetFailWrites(true);
  FaultInjectingJournal outer(std::move(failing));
  outer.RejectNextWrites(1);
  WriteOutcome outcome = WriteMessages(outer, {Text("a", 1), Text("a", 2)});
  EXPECT_EQ(outcome.batch.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(outcome.per_write, ElementsAre(outcome.batch, outcome.batch));
}

TEST_P(FaultInjectingJournalTest, FailsReplaysAndHighestReadsWhileTold) {
  ASSERT_OK(WriteMessages(*journal_, {Text("a", 1)}).batch);
  journal_->SetFailReplays(true);
  ReplayOutcome replay = ReplayMessages(*journal_, "a", 1, kMax, kMax);
  EXPECT_EQ(replay.status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(replay.status.message()),
              HasSubstr("injected replay failure"));
  EXPECT_THAT(replay.events, IsEmpty());
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, "a");
  EXPECT_EQ(highest.status().code(), absl::StatusCode::kUnavailable);
  // Writes go on.
  EXPECT_OK(WriteMessages(*journal_, {Text("a", 2)}).batch);

  journal_->SetFailReplays(false);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2"));
}

TEST_P(FaultInjectingJournalTest, FailsTheNextReplaysCountedAndSharesFaults) {
  ASSERT_OK(WriteMessages(*journal_, {Text("a", 1)}).batch);
  journal_->faults().FailNextReplays(2);
  for (int i = 0; i < 2; ++i) {
    ReplayOutcome replay = ReplayMessages(*journal_, "a", 1, kMax, kMax);
    EXPECT_EQ(replay.status.code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(replay.events, IsEmpty());
  }
  // Highest reads are not counted: a recovery fails at its replay.
  EXPECT_EQ(*ReadHighestSequenceNr(*journal_, "a"), 1);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1"));
}

// Settings held apart from the journal (as a test holds them before the
// Persistence extension makes its plugins) apply to it.
TEST_P(FaultInjectingJournalTest, SettingsMadeBeforeTheJournalApply) {
  auto faults = std::make_shared<JournalFaults>();
  faults->FailNextWrites(1);
  faults->RejectNextWrites(1);
  journal_.reset();  // one journal per store
  absl::StatusOr<std::unique_ptr<Journal>> inner = plugins_.CreateJournal(
      GetParam().journal_plugin_id, {testing::NewTestSerialization()});
  ASSERT_OK(inner);
  FaultInjectingJournal journal(*std::move(inner), faults);
  EXPECT_EQ(WriteMessages(journal, {Text("b", 1)}).batch.code(),
            absl::StatusCode::kUnavailable);
  WriteOutcome rejected = WriteMessages(journal, {Text("b", 1)});
  ASSERT_OK(rejected.batch);
  EXPECT_EQ(rejected.per_write.at(0).code(),
            absl::StatusCode::kInvalidArgument);
  WriteOutcome next = WriteMessages(journal, {Text("b", 2)});
  ASSERT_OK(next.batch);
  EXPECT_OK(next.per_write.at(0));
}

// Injected outcomes come on a plugin thread, in order with the real
// operations submitted around them.
TEST_P(FaultInjectingJournalTest, DeliversInjectedOutcomesInOrderOffTheCaller) {
  auto probe = std::make_shared<CallbackProbe>();
  auto write = [&](int tag, int64_t n, bool expect_ok) {
    journal_->AsyncWriteMessages(
        {Text("a", n)},
        [probe, tag, expect_ok](absl::Status batch, std::vector<absl::Status>) {
          probe->Ran(tag, batch.ok() == expect_ok);
        });
  };
  write(0, 1, true);
  journal_->FailNextWrites(1);
  write(1, 2, false);
  write(2, 2, true);
  journal_->SetFailWrites(true);
  journal_->AsyncDeleteMessagesTo(
      "a", kMax, std::nullopt,
      [probe](absl::Status status) { probe->Ran(3, !status.ok()); });
  journal_->SetFailWrites(false);
  write(4, 3, true);
  ASSERT_TRUE(probe->WaitFor(5)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(probe->on_caller(), 0);
  EXPECT_EQ(probe->order(), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2", "a-3"));
}

TEST_P(FaultInjectingJournalTest, DestructorCompletesInjectedOutcomesToo) {
  auto probe = std::make_shared<CallbackProbe>();
  journal_->FailNextWrites(1);
  journal_->AsyncWriteMessages(
      {Text("a", 1)}, [probe](absl::Status batch, std::vector<absl::Status>) {
        probe->Ran(0, !batch.ok());
      });
  journal_->SetFailReplays(true);
  journal_->AsyncReplayMessages(
      "a", 1, kMax, kMax, [](const PersistentRepr&) {},
      [probe](absl::Status status) { probe->Ran(1, !status.ok()); });
  journal_.reset();
  EXPECT_EQ(probe->ran(), 2u);
  EXPECT_EQ(probe->failed(), 0);
}

INSTANTIATE_TEST_SUITE_P(Plugin, FaultInjectingJournalTest,
                         ::testing::Values(testing::InMemoryPlugins(),
                                           testing::RocksDbPlugins()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace cairn::persistence
