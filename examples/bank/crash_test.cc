// The crash test: `bank load` is killed with SIGKILL in the middle of its
// work, and `bank balances` must then show, for every account, every
// deposit that was acknowledged (an "ack" line printed), with no gaps.
//
// Deposits to one account are sent in order and persisted one at a time,
// so what the store holds of account a is the first k of the deposits sent
// to it, for some k at least the number acknowledged: the balance must be
// the sum of the first k deposits, and the last sequence number k + 1 (the
// account's Opened event comes first).
//
// Run with fsync and without: a killed process keeps its acknowledged
// writes either way (they are in the operating system's cache); only a
// machine crash needs the fsync.
#include <signal.h>
#include <sys/wait.h>

#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/status_testing.h"
#include "examples/bank/bank_process.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::examples::bank {
namespace {

using persistence::testing::TempDir;
using testing::Balance;
using testing::BankProcess;
using testing::ParseBalances;
using testing::RunBank;

constexpr int64_t kAccounts = 16;
// Far more than can be done before the kill.
constexpr int64_t kOps = 10000000;
// Acks to wait for before the kill: "some thousands".
constexpr int64_t kAcksBeforeKill = 4000;
constexpr absl::Duration kPhaseTimeout = absl::Seconds(20);

// Deposit j (from 0) to account a is deposit i = a + j * kAccounts of the
// load, of amount i + 1.
int64_t AmountOf(int64_t account, int64_t j) {
  return account + j * kAccounts + 1;
}

// What the load acknowledged, checked line by line: deposits to each
// account must be acknowledged in the order they were sent.
class Acks {
 public:
  Acks() : per_account_(kAccounts, 0) {}

  void Take(const std::string& line) {
    std::istringstream in(line);
    std::string word;
    int64_t account = -1;
    int64_t amount = -1;
    in >> word >> account >> amount;
    ASSERT_EQ(word, "ack") << line;
    ASSERT_TRUE(account >= 0 && account < kAccounts) << line;
    ASSERT_EQ(amount, AmountOf(account, per_account_[account]))
        << "acks of account " << account << " out of order: " << line;
    ++per_account_[account];
    ++total_;
  }
  int64_t total() const { return total_; }
  int64_t of(int64_t account) const { return per_account_[account]; }

 private:
  std::vector<int64_t> per_account_;
  int64_t total_ = 0;
};

void KillMidLoadAndCheck(bool fsync) {
  absl::StatusOr<TempDir> dir = TempDir::Make();
  ASSERT_OK(dir);
  std::vector<std::string> args = {"load",
                                   "--data",
                                   dir->path(),
                                   "--accounts",
                                   absl::StrCat(kAccounts),
                                   "--ops",
                                   absl::StrCat(kOps)};
  if (fsync) args.push_back("--fsync");
  absl::StatusOr<BankProcess> load = BankProcess::Start(args);
  ASSERT_OK(load);

  Acks acks;
  const absl::Time deadline = absl::Now() + kPhaseTimeout;
  while (acks.total() < kAcksBeforeKill) {
    std::optional<std::string> line = load->ReadLine(deadline);
    ASSERT_TRUE(line.has_value())
        << "only " << acks.total() << " acks within " << kPhaseTimeout;
    ASSERT_NO_FATAL_FAILURE(acks.Take(*line));
  }
  const int status = load->Kill();
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the load ended before it was killed: status " << status;
  // What it printed before it died was acknowledged too.
  while (std::optional<std::string> line =
             load->ReadLine(absl::Now() + kPhaseTimeout)) {
    ASSERT_NO_FATAL_FAILURE(acks.Take(*line));
  }

  testing::Finished balances =
      RunBank({"balances", "--data", dir->path()}, kPhaseTimeout);
  ASSERT_EQ(balances.exit_code, 0) << balances.err;
  ASSERT_OK_AND_ASSIGN(const auto stored, ParseBalances(balances.out));
  ASSERT_EQ(stored.size(), static_cast<size_t>(kAccounts)) << balances.out;
  int64_t unacknowledged = 0;
  for (int64_t a = 0; a < kAccounts; ++a) {
    const Balance& b = stored.at(a);
    // The k whose first k deposits sum to the balance (amounts are
    // positive, so there is at most one).
    int64_t k = 0;
    int64_t sum = 0;
    while (sum < b.balance) sum += AmountOf(a, k++);
    EXPECT_EQ(sum, b.balance)
        << "account " << a << ": the balance " << b.balance
        << " is not the sum of its first deposits";
    EXPECT_GE(k, acks.of(a)) << "account " << a << " lost acknowledged "
                             << "deposits";
    EXPECT_EQ(b.last_sequence_nr, k + 1) << "account " << a;
    unacknowledged += k - acks.of(a);
  }
  // For the log: stored but killed before their acks were printed.
  std::printf("fsync %s: %lld acks seen, %lld more deposits stored\n",
              fsync ? "on" : "off", static_cast<long long>(acks.total()),
              static_cast<long long>(unacknowledged));
}

TEST(CrashTest, AKilledLoadWithFsyncKeepsEveryAcknowledgedDeposit) {
  KillMidLoadAndCheck(/*fsync=*/true);
}

TEST(CrashTest, AKilledLoadWithoutFsyncKeepsEveryAcknowledgedDeposit) {
  KillMidLoadAndCheck(/*fsync=*/false);
}

}  // namespace
}  // namespace cairn::examples::bank
