// A journal plugin's event adapters from config (Akka's event-adapters and
// event-adapter-bindings) and from code, and the errors of each kind of bad
// config, which name the key and where it was written.

#include "persistence/internal/event_adapter_config.h"

#include <memory>
#include <string>
#include <string_view>

#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence::internal {
namespace {

using testing::Amount;
using ::testing::HasSubstr;
using testing::TestEventT;

constexpr char kPlugin[] = "my.journal";

class Named final : public EventAdapter {};

class EventAdapterConfigTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::shared_ptr<const EventAdapters>> Adapters(
      std::string_view text, const EventAdapterBinder& bind = {}) {
    absl::StatusOr<hocon::Config> parsed =
        hocon::Config::ParseString(text, "app.conf");
    if (!parsed.ok()) return parsed.status();
    absl::StatusOr<hocon::Config> config = parsed->Resolve();
    if (!config.ok()) return config.status();
    return EventAdaptersOfPlugin(*config, kPlugin, named_, *serialization_,
                                 bind);
  }

  std::string Error(std::string_view text,
                    const EventAdapterBinder& bind = {}) {
    absl::StatusOr<std::shared_ptr<const EventAdapters>> adapters =
        Adapters(text, bind);
    EXPECT_FALSE(adapters.ok()) << text;
    return adapters.ok() ? "" : std::string(adapters.status().message());
  }

  std::shared_ptr<const serialization::SerializationRegistry> serialization_ =
      testing::NewTestSerialization();
  std::shared_ptr<const EventAdapter> amounts_ = std::make_shared<Named>();
  std::shared_ptr<const EventAdapter> tests_ = std::make_shared<Named>();
  NamedEventAdapters named_ = {{"amounts", amounts_}, {"tests", tests_}};
};

TEST_F(EventAdapterConfigTest, BindsByRegisteredManifestThroughAliases) {
  absl::StatusOr<std::shared_ptr<const EventAdapters>> adapters = Adapters(R"(
    my.journal {
      event-adapters { a = amounts, t = tests }
      event-adapter-bindings {
        "cairn.test.Amount" = a
        "cairn.test.TestEvent" = [t]
      }
    })");
  ASSERT_OK(adapters);
  ASSERT_NE(*adapters, nullptr);
  EXPECT_EQ((*adapters)->For(typeid(Amount)), amounts_.get());
  EXPECT_EQ((*adapters)->For(typeid(TestEventT)), tests_.get());
  EXPECT_EQ((*adapters)->For(typeid(std::string)), nullptr);
}

TEST_F(EventAdapterConfigTest, NoneBoundIsNull) {
  for (std::string_view text : {"", "my.journal {}",
                                "my.journal { event-adapters { a = amounts }, "
                                "event-adapter-bindings {} }"}) {
    absl::StatusOr<std::shared_ptr<const EventAdapters>> adapters =
        Adapters(text);
    ASSERT_OK(adapters) << text;
    EXPECT_EQ(*adapters, nullptr) << text;
  }
}

TEST_F(EventAdapterConfigTest, CodeBindsAfterConfigAndSeesThePluginId) {
  std::string seen_id;
  absl::StatusOr<std::shared_ptr<const EventAdapters>> adapters = Adapters(
      R"(my.journal.event-adapters { a = amounts }
         my.journal.event-adapter-bindings { "cairn.test.Amount" = a })",
      [&](std::string_view plugin_id, EventAdapters& adapters) {
        seen_id = std::string(plugin_id);
        return adapters.Bind<std::string>(tests_);
      });
  ASSERT_OK(adapters);
  EXPECT_EQ(seen_id, kPlugin);
  EXPECT_EQ((*adapters)->For(typeid(std::string)), tests_.get());
  EXPECT_EQ((*adapters)->For(typeid(Amount)), amounts_.get());
  // Binding a type twice (config, then code) fails, naming the plugin.
  std::string twice = Error(
      R"(my.journal.event-adapters { a = amounts }
         my.journal.event-adapter-bindings { "cairn.test.Amount" = a })",
      [&](std::string_view, EventAdapters& adapters) {
        return adapters.Bind<Amount>(tests_);
      });
  EXPECT_THAT(twice, HasSubstr("binding event adapters of my.journal"));
}

TEST_F(EventAdapterConfigTest, BadConfigIsAnErrorNamingKeyAndOrigin) {
  EXPECT_THAT(Error("my.journal.event-adapters { a = nobody }"),
              HasSubstr("my.journal.event-adapters.\"a\" (app.conf:1:33): no "
                        "event adapter is registered as 'nobody' "
                        "(PersistenceSetup::event_adapters has: amounts, "
                        "tests)"));
  EXPECT_THAT(Error("my.journal.event-adapters { a = [1] }"),
              HasSubstr("must be the name of an event adapter"));
  EXPECT_THAT(
      Error(R"(my.journal.event-adapter-bindings { "cairn.test.Amount" = a })"),
      HasSubstr("my.journal.event-adapter-bindings.\"cairn.test.Amount\" "
                "(app.conf:1:59): 'a' is not in my.journal.event-adapters"));
  EXPECT_THAT(Error(R"(my.journal {
                         event-adapters { a = amounts }
                         event-adapter-bindings { "no.such.Type" = a }
                       })"),
              HasSubstr("\"no.such.Type\" (app.conf:3:68): the key names no "
                        "event type"));
  EXPECT_THAT(Error(R"(my.journal {
                         event-adapters { a = amounts, t = tests }
                         event-adapter-bindings { "cairn.test.Amount" = [a, t] }
                       })"),
              HasSubstr("must name one adapter"));
  EXPECT_THAT(Error("my.journal.event-adapter-bindings = 5"),
              HasSubstr("event-adapter-bindings"));
}

}  // namespace
}  // namespace cairn::persistence::internal
