// The command line's bounds: --accounts past the old cap of 100,000 is
// accepted (memory is bounded by the active-account limit, not by the
// number of accounts), and past kMaxAccounts refused with the bound named.
#include "examples/bank/args.h"

#include <string>

#include "base/status_testing.h"
#include "gtest/gtest.h"

namespace cairn::examples::bank {
namespace {

absl::StatusOr<Args> Parse(const std::string& accounts) {
  const char* argv[] = {"bank",       "load",           "--data", "/tmp/x",
                        "--accounts", accounts.c_str(), "--ops",  "3"};
  return ParseArgs(8, argv);
}

TEST(ArgsTest, AcceptsMoreAccountsThanTheOldCap) {
  absl::StatusOr<Args> args = Parse("100001");
  ASSERT_OK(args);
  EXPECT_EQ(args->accounts, 100001);
  args = Parse("1000000000");
  ASSERT_OK(args);
  EXPECT_EQ(args->accounts, kMaxAccounts);
}

TEST(ArgsTest, RefusesAccountsPastTheBound) {
  absl::StatusOr<Args> args = Parse("1000000001");
  ASSERT_FALSE(args.ok());
  EXPECT_EQ(args.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(args.status().message().find("from 1 to 1000000000"),
            std::string::npos)
      << args.status();
}

}  // namespace
}  // namespace cairn::examples::bank
