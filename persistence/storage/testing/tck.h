#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_TCK_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_TCK_H_

// The plugin conformance suites: a port of the Akka persistence TCK
// (JournalSpec, SnapshotStoreSpec) plus the threading contract of journal.h
// and snapshot_store.h, and DurableStateStoreSpec (durable_state_store.h).
// Every journal and snapshot store plugin runs them: a test binary links
// //persistence/storage/testing:tck and instantiates the suites with its
// plugins, inside namespace cairn::persistence::testing:
//
//   CAIRN_INSTANTIATE_PERSISTENCE_TCK(Plugin, RocksDbPlugins());
//
// Every test case gets a fresh PluginRegistry and an empty directory, and
// creates its plugins through the registry by id, as the runtime does.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "persistence/storage/durable_state_store.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/snapshot_store.h"
#include "persistence/storage/testing/plugin_under_test.h"
#include "persistence/storage/testing/temp_dir.h"
#include "serialization/serialization.h"

namespace cairn::persistence::testing {

// What both suites share: the directory, the registry, the serialization.
class PluginTest : public ::testing::TestWithParam<PluginUnderTest> {
 protected:
  void SetUp() override;

  // A plugin made through the registry; null (with a test failure) if the
  // factory fails.
  std::unique_ptr<Journal> NewJournal();
  std::unique_ptr<SnapshotStore> NewSnapshotStore();
  std::unique_ptr<DurableStateStore> NewDurableStateStore();

  std::optional<TempDir> dir_;
  PluginRegistry plugins_;
  std::shared_ptr<const serialization::SerializationRegistry> serialization_;
};

// Akka's JournalSpec: every test starts with events "a-1" to "a-5" (std::string
// payloads, sequence numbers 1 to 5) written for pid_, one AtomicWrite each.
class JournalSpec : public PluginTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Writes "a-<n>" for n in [from, to], one AtomicWrite each, in one call;
  // a test failure unless every write succeeds.
  void WriteTexts(int64_t from, int64_t to);
  // The texts replayed for pid_; a test failure unless the replay succeeds.
  std::vector<std::string> Replay(int64_t from, int64_t to, int64_t max);

  const std::string pid_ = "p-1";
  std::unique_ptr<Journal> journal_;
};

// Akka's SnapshotStoreSpec: every test starts with snapshots "s-1" to "s-5"
// saved for pid_ at sequence numbers 11 to 15, with timestamps rising by
// 100 (metadata_[0] to metadata_[4]).
class SnapshotStoreSpec : public PluginTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  const std::string pid_ = "p-1";
  std::vector<SnapshotMetadata> metadata_;
  std::unique_ptr<SnapshotStore> store_;
};

// The durable state store's contract (durable_state_store.h): revisions,
// deletes, changes by tag, the threading contract. Skipped for a plugin
// that has none (PluginUnderTest::durable_state_plugin_id empty).
class DurableStateStoreSpec : public PluginTest {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::unique_ptr<DurableStateStore> store_;
};

// gtest test names: the plugin's name.
std::string PluginName(const ::testing::TestParamInfo<PluginUnderTest>& info);

}  // namespace cairn::persistence::testing

// Instantiates both suites for the given plugins (PluginUnderTest values),
// test names prefixed by `prefix` and suffixed by each plugin's name. Use
// once per binary and prefix, inside namespace cairn::persistence::testing.
#define CAIRN_INSTANTIATE_PERSISTENCE_TCK(prefix, ...)                  \
  INSTANTIATE_TEST_SUITE_P(prefix, JournalSpec,                         \
                           ::testing::Values(__VA_ARGS__), PluginName); \
  INSTANTIATE_TEST_SUITE_P(prefix, SnapshotStoreSpec,                   \
                           ::testing::Values(__VA_ARGS__), PluginName); \
  INSTANTIATE_TEST_SUITE_P(prefix, DurableStateStoreSpec,               \
                           ::testing::Values(__VA_ARGS__), PluginName)

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_TCK_H_
