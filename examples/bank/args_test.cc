// The command line's bounds: --accounts past the old cap of 100,000 is
// accepted (memory is bounded by the active-account limit, not by the
// number of accounts), and past kMaxAccounts refused with the bound named.
#include "examples/bank/args.h"

#include <string>
#include <utility>
#include <vector>

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

absl::StatusOr<Args> ParseLine(std::vector<const char*> argv) {
  argv.insert(argv.begin(), "bank");
  return ParseArgs(static_cast<int>(argv.size()), argv.data());
}

constexpr char kUrl[] = "postgresql://cairn@db.example.com/events";

TEST(ArgsTest, ServeListensAsAClusterMember) {
  absl::StatusOr<Args> args =
      ParseLine({"serve", "--journal", kUrl, "--listen", "10.0.0.5:2552",
                 "--member-ttl", "3", "--lease-ttl", "3"});
  ASSERT_OK(args);
  EXPECT_EQ(args->listen_host, "10.0.0.5");
  EXPECT_EQ(args->listen_port, 2552);
  EXPECT_EQ(args->member_ttl_seconds, 3);
  args = ParseLine({"serve", "--journal", kUrl, "--listen", "[::1]:0"});
  ASSERT_OK(args);
  EXPECT_EQ(args->listen_host, "::1");
  EXPECT_EQ(args->listen_port, 0);
}

// Each refused with a message naming what is wrong.
TEST(ArgsTest, RefusesWhatAClusterCannotTake) {
  const std::vector<std::pair<std::vector<const char*>, std::string>> cases = {
      {{"serve", "--journal", kUrl, "--listen", "h:1", "--owner", "a"},
       "--owner cannot be given with --listen"},
      {{"serve", "--listen", "h:1"}, "--listen needs --journal"},
      {{"serve", "--journal", kUrl, "--listen", "nohost"}, "HOST:PORT"},
      {{"serve", "--journal", kUrl, "--listen", "h:65536"}, "HOST:PORT"},
      {{"serve", "--journal", kUrl, "--member-ttl", "3"},
       "--member-ttl needs --listen"},
      {{"load", "--listen", "h:1", "--accounts", "1", "--ops", "1"},
       "--listen is an option of serve and deposits only"},
      {{"deposits", "--journal", kUrl, "--listen", "h:1", "--accounts", "1",
        "--ops", "1"},
       "deposits needs"},
      {{"deposits", "--journal", kUrl, "--listen", "h:1", "--name", "a b",
        "--accounts", "1", "--ops", "1"},
       "--name needs a word"},
      {{"deposits", "--journal", kUrl, "--listen", "h:1", "--name", "a",
        "--accounts", "1", "--ops", "1", "--redeliver-interval", "1ms"},
       "--redeliver-interval needs a duration"},
  };
  for (const auto& [argv, message] : cases) {
    absl::StatusOr<Args> args = ParseLine(argv);
    ASSERT_FALSE(args.ok()) << message;
    EXPECT_EQ(args.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(args.status().message().find(message), std::string::npos)
        << args.status();
  }
}

TEST(ArgsTest, DepositsTakesItsFlags) {
  absl::StatusOr<Args> args =
      ParseLine({"deposits", "--journal", kUrl, "--listen", "127.0.0.1:0",
                 "--name", "client-1", "--accounts", "10", "--ops", "100",
                 "--redeliver-interval", "300ms"});
  ASSERT_OK(args);
  EXPECT_EQ(args->redeliver_interval, absl::Milliseconds(300));
  EXPECT_EQ(args->command, Args::Command::kDeposits);
  EXPECT_EQ(args->name, "client-1");
  EXPECT_EQ(args->accounts, 10);
  EXPECT_EQ(args->ops, 100);
}

}  // namespace
}  // namespace cairn::examples::bank
