// testdata/broken_reference.conf is registered through the macro
// (//hocon:broken_reference_conf); Load must say which module is broken
// and where, not crash or ignore it.
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::hocon {
namespace {

TEST(ReferenceConfErrorTest, LoadNamesTheBrokenModule) {
  absl::StatusOr<Config> loaded = Config::Load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(loaded.status().message()),
            "the reference.conf of module 'hocon-broken' does not parse: "
            "hocon-broken/reference.conf:4:1: expected a value, found '}'");
  EXPECT_FALSE(Config::Load(*Config::ParseString("a = 1")).ok());
}

}  // namespace
}  // namespace cairn::hocon
