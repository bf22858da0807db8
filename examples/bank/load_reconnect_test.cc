// A `bank load` on PostgreSQL whose connections are cut mid-load (the
// server ends them: pg_terminate_backend, as an administrator or a network
// failure would) goes on: the deposits whose writes were cut are reported
// as failed, each on its line, the accounts that failed are started again
// by their next deposits on a new connection, those succeed, and the load
// exits 1 at the end. Then `bank balances` finds, for every account, the
// acknowledged deposits and, of the failed ones, some (a write cut at its
// commit may have been stored; the others were not).
//
// The load runs in a database of its own, made for the test, so that only
// its connections are cut, never those of other tests on the server. Skips
// without a server (docs/POSTGRESQL.md "Testing against PostgreSQL").
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_testing.h"
#include "examples/bank/bank_process.h"
#include "examples/bank/some_subset.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/testing/test_database.h"

namespace cairn::examples::bank {
namespace {

using testing::BankProcess;
using testing::RunBank;
using testing::SomeSubset;

constexpr int64_t kAccounts = 20;
// Far more than are acknowledged before the cut, so that the load is
// still running when its connections are cut.
constexpr int64_t kOps = 20000;
constexpr int64_t kAcksBeforeCut = 500;
constexpr absl::Duration kStepTimeout = absl::Seconds(120);

// `url` (postgresql://USER@HOST:PORT/DATABASE[?...]) with another database.
std::optional<std::string> WithDatabase(const std::string& url,
                                        const std::string& database) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return std::nullopt;
  const size_t path = url.find('/', scheme + 3);
  if (path == std::string::npos) return absl::StrCat(url, "/", database);
  const size_t query = url.find('?', path);
  return absl::StrCat(url.substr(0, path + 1), database,
                      query == std::string::npos ? "" : url.substr(query));
}

// What the load said of one account's deposits.
struct Ledger {
  int64_t acked_count = 0;
  int64_t acked_sum = 0;
  std::vector<int64_t> failed;  // stored or not
};

// Drops the test's database at the end of the test (its connections are
// gone with the processes; FORCE ends any left).
struct DropAtEnd {
  persistence::testing::TestDatabase& db;
  const std::string database;
  ~DropAtEnd() {
    EXPECT_OK(db.Execute(
        absl::StrCat("DROP DATABASE IF EXISTS ", database, " WITH (FORCE)")));
  }
};

TEST(LoadReconnectTest, ALoadGoesOnPastCutConnectionsAndReportsFailures) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  // The test schema's name is random: the database's is made from it.
  const std::string database = absl::StrCat(db.schema(), "_load");
  ASSERT_OK(db.Execute(absl::StrCat("CREATE DATABASE ", database)));
  DropAtEnd drop{db, database};
  const std::optional<std::string> url = WithDatabase(db.url(), database);
  ASSERT_TRUE(url.has_value()) << "not a postgresql:// URL";

  absl::StatusOr<BankProcess> load = BankProcess::Start(
      {"load", "--journal", *url, "--accounts", absl::StrCat(kAccounts),
       "--ops", absl::StrCat(kOps)});
  ASSERT_OK(load);
  std::map<int64_t, Ledger> ledgers;
  int64_t acks = 0;
  int64_t failures = 0;
  int64_t acks_after_a_failure = 0;
  bool cut = false;
  const absl::Time deadline = absl::Now() + kStepTimeout;
  while (std::optional<std::string> line = load->ReadLine(deadline)) {
    std::istringstream in(*line);
    std::string word;
    int64_t account = -1;
    int64_t amount = 0;
    in >> word >> account >> amount;
    ASSERT_FALSE(in.fail()) << *line;
    ASSERT_TRUE(account >= 0 && account < kAccounts) << *line;
    // Deposit i is of i + 1 to account i % kAccounts.
    ASSERT_EQ((amount - 1) % kAccounts, account) << *line;
    Ledger& ledger = ledgers[account];
    if (word == "ack") {
      ++acks;
      ++ledger.acked_count;
      ledger.acked_sum += amount;
      if (failures > 0) ++acks_after_a_failure;
    } else {
      ASSERT_EQ(word, "failed") << *line;
      ASSERT_TRUE(cut) << "a deposit failed before the cut: " << *line;
      ++failures;
      ledger.failed.push_back(amount);
    }
    if (!cut && acks == kAcksBeforeCut) {
      absl::StatusOr<std::vector<std::vector<std::string>>> ended =
          db.Query(absl::StrCat(
              "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
              "WHERE datname = '",
              database, "' AND pid <> pg_backend_pid()"));
      ASSERT_OK(ended);
      ASSERT_NE((*ended)[0][0], "0") << "the load had no connection to cut";
      cut = true;
    }
  }
  const int exit_code = load->Wait(deadline);
  ASSERT_TRUE(cut) << "the load ended before " << kAcksBeforeCut << " acks";
  EXPECT_EQ(exit_code, 1) << "the load must fail at the end: deposits failed";
  EXPECT_GT(failures, 0) << "no deposit was reported failed";
  EXPECT_GT(acks_after_a_failure, 0) << "no deposit succeeded after the cut";
  EXPECT_EQ(acks + failures, kOps) << "every deposit is answered";

  testing::Finished balances =
      RunBank({"balances", "--journal", *url}, kStepTimeout);
  ASSERT_EQ(balances.exit_code, 0) << balances.err;
  const std::vector<std::string> lines =
      absl::StrSplit(balances.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), static_cast<size_t>(kAccounts)) << balances.out;
  for (const std::string& line : lines) {
    std::istringstream in(line);
    int64_t account = 0;
    int64_t balance = 0;
    int64_t last = 0;
    in >> account >> balance >> last;
    ASSERT_FALSE(in.fail()) << line;
    const Ledger& ledger = ledgers[account];
    // Event 1 opened the account; every other is a deposit.
    const int64_t deposits = last - 1;
    EXPECT_TRUE(SomeSubset(ledger.failed, deposits - ledger.acked_count,
                           balance - ledger.acked_sum, /*max_amounts=*/24))
        << "account " << account << ": balance " << balance << " in "
        << deposits << " deposits, but " << ledger.acked_count
        << " acknowledged deposits sum to " << ledger.acked_sum << " and "
        << ledger.failed.size() << " failed";
  }
}

}  // namespace
}  // namespace cairn::examples::bank
