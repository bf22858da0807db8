// FaultInjectingSnapshotStore over every plugin: injected failures as
// fault_injecting_snapshot_store.h promises them, delivered on a plugin
// thread in order with the operations around them, changing nothing.

#include "persistence/storage/fault_injecting_snapshot_store.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
using ::testing::HasSubstr;
using testing::PluginUnderTest;

class FaultInjectingSnapshotStoreTest
    : public ::testing::TestWithParam<PluginUnderTest> {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    ASSERT_OK(GetParam().register_plugins(plugins_, dir_->path()));
    absl::StatusOr<std::unique_ptr<SnapshotStore>> inner =
        plugins_.CreateSnapshotStore(GetParam().snapshot_store_plugin_id,
                                     {testing::NewTestSerialization()});
    ASSERT_OK(inner);
    store_ = std::make_unique<FaultInjectingSnapshotStore>(*std::move(inner),
                                                           faults_);
  }

  absl::Status Save(const std::string& pid, int64_t n) {
    return testing::SaveSnapshot(
        *store_, SnapshotMetadata{pid, n, 1},
        serialization::Payload::Of(pid + "@" + std::to_string(n)));
  }
  // The sequence number of the newest snapshot of `pid`; 0 if none.
  int64_t Newest(const std::string& pid) {
    absl::StatusOr<LoadSnapshotResult> loaded = testing::LoadSnapshot(
        *store_, pid, SnapshotSelectionCriteria::Latest(), kMaxSequenceNr);
    EXPECT_OK(loaded);
    if (!loaded.ok() || !loaded->snapshot.has_value()) return 0;
    return loaded->snapshot->metadata.sequence_nr;
  }

  std::optional<testing::TempDir> dir_;
  PluginRegistry plugins_;
  std::shared_ptr<SnapshotStoreFaults> faults_ =
      std::make_shared<SnapshotStoreFaults>();
  std::unique_ptr<FaultInjectingSnapshotStore> store_;
};

TEST_P(FaultInjectingSnapshotStoreTest, PassesEverythingThroughWhenNotTold) {
  ASSERT_OK(Save("a", 1));
  ASSERT_OK(Save("a", 2));
  EXPECT_EQ(Newest("a"), 2);
  ASSERT_OK(testing::DeleteSnapshot(*store_, SnapshotMetadata{"a", 2, 0}));
  EXPECT_EQ(Newest("a"), 1);
  ASSERT_OK(testing::DeleteSnapshots(*store_, "a",
                                     SnapshotSelectionCriteria::Latest()));
  EXPECT_EQ(Newest("a"), 0);
}

TEST_P(FaultInjectingSnapshotStoreTest, FailsTheNextSavesSavingNothing) {
  faults_->FailNextSaves(1);
  absl::Status failed = Save("a", 1);
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(failed.message()), HasSubstr("injected save"));
  EXPECT_EQ(Newest("a"), 0);
  EXPECT_OK(Save("a", 2));
  EXPECT_EQ(Newest("a"), 2);
}

TEST_P(FaultInjectingSnapshotStoreTest, FailsTheNextLoads) {
  ASSERT_OK(Save("a", 1));
  faults_->FailNextLoads(1);
  absl::StatusOr<LoadSnapshotResult> failed = testing::LoadSnapshot(
      *store_, "a", SnapshotSelectionCriteria::Latest(), kMaxSequenceNr);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(Newest("a"), 1);
}

TEST_P(FaultInjectingSnapshotStoreTest, FailsTheNextDeletesDeletingNothing) {
  ASSERT_OK(Save("a", 1));
  faults_->FailNextDeletes(2);
  EXPECT_EQ(
      testing::DeleteSnapshot(*store_, SnapshotMetadata{"a", 1, 0}).code(),
      absl::StatusCode::kUnavailable);
  EXPECT_EQ(testing::DeleteSnapshots(*store_, "a",
                                     SnapshotSelectionCriteria::Latest())
                .code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(Newest("a"), 1);
  faults_->SetFailAll(true);
  EXPECT_FALSE(Save("a", 2).ok());
  faults_->SetFailAll(false);
  EXPECT_EQ(Newest("a"), 1);
}

// Injected outcomes come on a plugin thread, in order with the real
// operations submitted around them.
TEST_P(FaultInjectingSnapshotStoreTest, DeliversInjectedFailuresInOrder) {
  auto probe = std::make_shared<CallbackProbe>();
  auto save = [&](int tag, int64_t n, bool expect_ok) {
    store_->AsyncSave(SnapshotMetadata{"a", n, 1},
                      serialization::Payload::Of(std::string("s")),
                      std::nullopt,
                      [probe, tag, expect_ok](absl::Status status) {
                        probe->Ran(tag, status.ok() == expect_ok);
                      });
  };
  save(0, 1, true);
  faults_->FailNextSaves(1);
  save(1, 2, false);
  save(2, 3, true);
  ASSERT_TRUE(probe->WaitFor(3)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(probe->on_caller(), 0);
  EXPECT_EQ(probe->order(), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(Newest("a"), 3);
}

INSTANTIATE_TEST_SUITE_P(Plugin, FaultInjectingSnapshotStoreTest,
                         ::testing::Values(testing::InMemoryPlugins(),
                                           testing::RocksDbPlugins()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace cairn::persistence
