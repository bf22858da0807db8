#include "persistence/storage/testing/tck.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence::testing {

std::string PluginName(const ::testing::TestParamInfo<PluginUnderTest>& info) {
  return info.param.name;
}

void PluginTest::SetUp() {
  if (GetParam().skip_reason) {
    if (std::string reason = GetParam().skip_reason(); !reason.empty()) {
      GTEST_SKIP() << reason;
    }
  }
  absl::StatusOr<TempDir> dir = TempDir::Make();
  ASSERT_OK(dir);
  dir_.emplace(*std::move(dir));
  absl::Status registered = GetParam().register_plugins(plugins_, dir_->path());
  ASSERT_OK(registered);
  serialization_ = NewTestSerialization();
}

std::unique_ptr<Journal> PluginTest::NewJournal() {
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      plugins_.CreateJournal(GetParam().journal_plugin_id, {serialization_});
  if (!journal.ok()) {
    ADD_FAILURE() << "creating the journal: " << journal.status();
    return nullptr;
  }
  return *std::move(journal);
}

std::unique_ptr<SnapshotStore> PluginTest::NewSnapshotStore() {
  absl::StatusOr<std::unique_ptr<SnapshotStore>> store =
      plugins_.CreateSnapshotStore(GetParam().snapshot_store_plugin_id,
                                   {serialization_});
  if (!store.ok()) {
    ADD_FAILURE() << "creating the snapshot store: " << store.status();
    return nullptr;
  }
  return *std::move(store);
}

std::unique_ptr<DurableStateStore> PluginTest::NewDurableStateStore() {
  absl::StatusOr<std::unique_ptr<DurableStateStore>> store =
      plugins_.CreateDurableStateStore(GetParam().durable_state_plugin_id,
                                       {serialization_});
  if (!store.ok()) {
    ADD_FAILURE() << "creating the durable state store: " << store.status();
    return nullptr;
  }
  return *std::move(store);
}

void JournalSpec::SetUp() {
  PluginTest::SetUp();
  if (HasFatalFailure() || IsSkipped()) return;
  journal_ = NewJournal();
  ASSERT_NE(journal_, nullptr);
  WriteTexts(1, 5);
}

void JournalSpec::TearDown() { journal_.reset(); }

void JournalSpec::WriteTexts(int64_t from, int64_t to) {
  std::vector<AtomicWrite> writes;
  for (int64_t n = from; n <= to; ++n) {
    writes.push_back(
        Single(pid_, n, serialization::Payload::Of(absl::StrCat("a-", n))));
  }
  const size_t count = writes.size();
  WriteOutcome outcome =
      cairn::persistence::testing::WriteMessages(*journal_, std::move(writes));
  ASSERT_OK(outcome.batch);
  ASSERT_EQ(outcome.per_write.size(), count);
  for (const absl::Status& status : outcome.per_write) {
    ASSERT_OK(status);
  }
}

std::vector<std::string> JournalSpec::Replay(int64_t from, int64_t to,
                                             int64_t max) {
  ReplayOutcome outcome = ReplayMessages(*journal_, pid_, from, to, max);
  EXPECT_OK(outcome.status);
  return Texts(outcome.events);
}

void SnapshotStoreSpec::SetUp() {
  PluginTest::SetUp();
  if (HasFatalFailure() || IsSkipped()) return;
  store_ = NewSnapshotStore();
  ASSERT_NE(store_, nullptr);
  for (int i = 1; i <= 5; ++i) {
    SnapshotMetadata metadata{pid_, 10 + i, 1000 + 100 * i};
    absl::Status saved = SaveSnapshot(
        *store_, metadata, serialization::Payload::Of(absl::StrCat("s-", i)));
    ASSERT_OK(saved);
    metadata_.push_back(std::move(metadata));
  }
}

void SnapshotStoreSpec::TearDown() { store_.reset(); }

void DurableStateStoreSpec::SetUp() {
  if (GetParam().durable_state_plugin_id.empty()) {
    GTEST_SKIP() << GetParam().name << " has no durable state store yet";
  }
  PluginTest::SetUp();
  if (HasFatalFailure() || IsSkipped()) return;
  store_ = NewDurableStateStore();
  ASSERT_NE(store_, nullptr);
}

void DurableStateStoreSpec::TearDown() { store_.reset(); }

}  // namespace cairn::persistence::testing
