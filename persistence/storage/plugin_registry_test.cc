// PluginRegistry against its contract (plugin_registry.h).

#include "persistence/storage/plugin_registry.h"

#include <memory>
#include <string>

#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/inmem/testing/plugins_under_test.h"
#include "serialization/serialization.h"

namespace cairn::persistence {
namespace {

using ::testing::HasSubstr;
using testing::InMemoryPlugins;

PluginContext Context() {
  return {std::make_shared<const serialization::SerializationRegistry>()};
}

TEST(PluginRegistryTest, CreatesRegisteredPluginsById) {
  PluginRegistry registry;
  ASSERT_OK(InMemoryPlugins().register_plugins(registry, ""));
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      registry.CreateJournal(kInMemoryJournalPluginId, Context());
  ASSERT_OK(journal);
  EXPECT_NE(*journal, nullptr);
  absl::StatusOr<std::unique_ptr<SnapshotStore>> store =
      registry.CreateSnapshotStore(kInMemorySnapshotStorePluginId, Context());
  ASSERT_OK(store);
  EXPECT_NE(*store, nullptr);
}

TEST(PluginRegistryTest, RefusesDuplicateAndEmptyRegistrations) {
  PluginRegistry registry;
  ASSERT_OK(InMemoryPlugins().register_plugins(registry, ""));
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
  ASSERT_OK(InMemoryPlugins().register_plugins(registry, ""));
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
  ASSERT_OK(InMemoryPlugins().register_plugins(registry, ""));
  EXPECT_EQ(
      registry.CreateJournal(kInMemoryJournalPluginId, {}).status().code(),
      absl::StatusCode::kInvalidArgument);
}

TEST(PluginRegistryTest, PassesFactoryErrorsThrough) {
  PluginRegistry registry;
  ASSERT_OK(registry.RegisterJournal(
      "broken",
      [](const PluginContext&) -> absl::StatusOr<std::unique_ptr<Journal>> {
        return absl::UnavailableError("down");
      }));
  EXPECT_EQ(registry.CreateJournal("broken", Context()).status(),
            absl::UnavailableError("down"));
}

}  // namespace
}  // namespace cairn::persistence
