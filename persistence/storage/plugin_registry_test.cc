// PluginRegistry against its contract (plugin_registry.h).

#include "persistence/storage/plugin_registry.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/inmem/testing/plugins_under_test.h"
#include "persistence/storage/serialization.h"

namespace cairn::persistence {
namespace {

using ::testing::HasSubstr;
using testing::InMemoryPlugins;

PluginContext Context() {
  return {std::make_shared<const SerializationRegistry>()};
}

TEST(PluginRegistryTest, CreatesRegisteredPluginsById) {
  PluginRegistry registry;
  ASSERT_TRUE(InMemoryPlugins().register_plugins(registry, "").ok());
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      registry.CreateJournal(kInMemoryJournalPluginId, Context());
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_NE(*journal, nullptr);
  absl::StatusOr<std::unique_ptr<SnapshotStore>> store =
      registry.CreateSnapshotStore(kInMemorySnapshotStorePluginId, Context());
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_NE(*store, nullptr);
}

TEST(PluginRegistryTest, RefusesDuplicateAndEmptyRegistrations) {
  PluginRegistry registry;
  ASSERT_TRUE(InMemoryPlugins().register_plugins(registry, "").ok());
  EXPECT_EQ(InMemoryPlugins().register_plugins(registry, "").code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry
                .RegisterJournal(
                    "",
                    [](const PluginContext&) {
                      return absl::StatusOr<std::unique_ptr<Journal>>(nullptr);
                    })
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.RegisterJournal("x", nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.RegisterSnapshotStore("x", nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PluginRegistryTest, NamesTheRegisteredIdsForAnUnknownOne) {
  PluginRegistry registry;
  absl::Status none = registry.CreateJournal("nope", Context()).status();
  EXPECT_EQ(none.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(none.message()), HasSubstr("none"));
  ASSERT_TRUE(InMemoryPlugins().register_plugins(registry, "").ok());
  absl::Status unknown =
      registry
          .CreateSnapshotStore("akka.persistence.snapshot-store.local",
                               Context())
          .status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(unknown.message()),
              HasSubstr(kInMemorySnapshotStorePluginId));
}

TEST(PluginRegistryTest, NeedsASerializationRegistry) {
  PluginRegistry registry;
  ASSERT_TRUE(InMemoryPlugins().register_plugins(registry, "").ok());
  EXPECT_EQ(
      registry.CreateJournal(kInMemoryJournalPluginId, {}).status().code(),
      absl::StatusCode::kInvalidArgument);
}

TEST(PluginRegistryTest, PassesFactoryErrorsThrough) {
  PluginRegistry registry;
  ASSERT_TRUE(
      registry
          .RegisterJournal("broken",
                           [](const PluginContext&)
                               -> absl::StatusOr<std::unique_ptr<Journal>> {
                             return absl::UnavailableError("down");
                           })
          .ok());
  EXPECT_EQ(registry.CreateJournal("broken", Context()).status(),
            absl::UnavailableError("down"));
}

}  // namespace
}  // namespace cairn::persistence
