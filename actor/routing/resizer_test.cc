// DefaultResizer's arithmetic and configuration, as Akka's.
#include "actor/routing/resizer.h"

#include <string>
#include <vector>

#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::actor::routing {
namespace {

TEST(DefaultResizerTest, RampupWhenAllBusyBackoffWhenFew) {
  const DefaultResizer r{
      .rampup_rate = 0.2, .backoff_threshold = 0.3, .backoff_rate = 0.1};
  EXPECT_EQ(r.Rampup(/*pressure=*/9, /*capacity=*/10), 0);
  EXPECT_EQ(r.Rampup(10, 10), 2);  // ceil(0.2 * 10)
  EXPECT_EQ(r.Rampup(3, 3), 1);    // ceil(0.6)
  EXPECT_EQ(r.Backoff(3, 10), 0);  // 0.3 is not below the threshold
  EXPECT_EQ(r.Backoff(2, 10), -1);
  EXPECT_EQ(r.Backoff(0, 25), -3);  // floor(-2.5)
  EXPECT_EQ(r.Backoff(0, 0), 0);
  EXPECT_EQ((DefaultResizer{.backoff_rate = 0}).Backoff(0, 10), 0);
}

TEST(DefaultResizerTest, ResizeStaysWithinTheBounds) {
  const DefaultResizer r{.lower_bound = 2, .upper_bound = 4};
  // No routees (none seen busy): up to the lower bound.
  EXPECT_EQ(r.Resize({}), 2);
}

TEST(DefaultResizerTest, ResizesEveryNthMessage) {
  const DefaultResizer r{.messages_per_resize = 3};
  EXPECT_TRUE(r.IsTimeForResize(0));
  EXPECT_FALSE(r.IsTimeForResize(1));
  EXPECT_FALSE(r.IsTimeForResize(2));
  EXPECT_TRUE(r.IsTimeForResize(3));
}

TEST(DefaultResizerTest, FromConfigReadsAkkasKeys) {
  hocon::Config c = hocon::Config::ParseString(R"(
    on { resizer {
      enabled = on, lower-bound = 2, upper-bound = 15, pressure-threshold = 0
      rampup-rate = 0.5, backoff-threshold = 0.2, backoff-rate = 0.25
      messages-per-resize = 7
    } }
    off { resizer { enabled = off, lower-bound = 2 } }
    none { }
    bad { resizer { enabled = on, rampup-rate = fast } }
  )")
                        .value();
  auto read = [&](const std::string& name) {
    return DefaultResizer::FromConfig(c.GetConfig(name).value());
  };
  absl::StatusOr<std::optional<DefaultResizer>> on = read("on");
  ASSERT_OK(on);
  ASSERT_TRUE(on->has_value());
  EXPECT_EQ((*on)->lower_bound, 2);
  EXPECT_EQ((*on)->upper_bound, 15);
  EXPECT_EQ((*on)->pressure_threshold, 0);
  EXPECT_EQ((*on)->rampup_rate, 0.5);
  EXPECT_EQ((*on)->backoff_threshold, 0.2);
  EXPECT_EQ((*on)->backoff_rate, 0.25);
  EXPECT_EQ((*on)->messages_per_resize, 7);
  EXPECT_FALSE(read("off").value().has_value());
  EXPECT_FALSE(read("none").value().has_value());
  absl::StatusOr<std::optional<DefaultResizer>> bad = read("bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("resizer.rampup-rate"),
            std::string::npos)
      << bad.status();
}

}  // namespace
}  // namespace cairn::actor::routing
