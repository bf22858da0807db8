// Many processes, one writer per account: three `bank serve` processes host
// the accounts of one bank over one PostgreSQL database, each shard of
// accounts held by one of them on a lease (ttl kLeaseTtlSeconds). The test
// is their client: it sends each account's commands to the process that
// hosts the account's shard.
//
//  - One process is killed with SIGKILL in the middle of a round of
//    deposits; its shards go to the two others, which answer "unavailable"
//    until its leases run out, then recover its accounts and take deposits.
//  - Another is paused (SIGSTOP) past its leases; its shards go to the last
//    one. Deposits written to the paused process's stdin meanwhile are read
//    once it is continued (SIGCONT): none may be stored, and each must be
//    answered at once. Whichever comes first refuses them: the journal's
//    fence check of the write, or the shard finding its lease lost (its
//    accounts stop, and what they had is answered). Which one, depends on
//    timing; the fence check alone is tested deterministically by
//    persistence/postgresql/postgres_leases_test and sharding/lease_test.
//  - Then `bank balances` recovers every account: each stream must be
//    gap-free (an account with a gap fails its recovery), and hold every
//    acknowledged deposit, none of the paused process's late ones, and of
//    the deposits whose answer never came (the killed process's) any
//    subset.
#include <signal.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_testing.h"
#include "examples/bank/bank_process.h"
#include "examples/bank/some_subset.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/testing/test_database.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

namespace cairn::examples::bank {
namespace {

using testing::BankProcess;
using testing::ParseBalances;
using testing::RunBank;
using testing::SomeSubset;

constexpr int kProcesses = 3;
constexpr int64_t kAccounts = 30;
// The bank's number of shards (akka.cluster.sharding.number-of-shards,
// whose default the bank keeps), to tell which shard an account is in.
const int kShards = sharding::EntityRegionSettings{}.number_of_shards;
// Renewed every third of it: a renewal may be late by two thirds (a slow
// sanitizer run) before a process loses a lease it should keep.
constexpr int kLeaseTtlSeconds = 5;
// How long any one step may take: starting a process, a round of
// commands, a takeover (a lease running out, then recoveries).
constexpr absl::Duration kStepTimeout = absl::Seconds(90);
// Between tries of commands answered "unavailable": a shard held by a
// lease elsewhere is tried again by its new host every ttl / 4.
constexpr absl::Duration kRetryPause = absl::Milliseconds(200);
// The paused process's late deposits: far above any other amount, so that
// one of them stored cannot pass for other deposits.
constexpr int64_t kLateAmount = 1000000000;

std::string ShardOf(int64_t account) {
  return sharding::StableShardId(absl::StrCat(account), kShards);
}

struct Command {
  int64_t account = 0;
  std::string verb;  // open or deposit
  int64_t amount = 0;
};

struct Answer {
  std::string outcome;  // done, refused, unavailable, failed, unknown, bad
  int64_t account = -1;
  std::string rest;  // for done: "BALANCE LAST_SEQ_NR"; else the reason
};

// What the test knows of one account's deposits.
struct Ledger {
  int64_t acked_count = 0;
  int64_t acked_sum = 0;
  // Sent, answer never seen: stored or not.
  std::vector<int64_t> unknown;
  std::set<int64_t> acked_sequence_nrs;
};

// One `bank serve` process and the commands it has not answered yet.
class Server {
 public:
  static absl::StatusOr<Server> Start(const std::string& url,
                                      const std::string& schema, int index) {
    absl::StatusOr<BankProcess> process =
        BankProcess::Start({"serve", "--journal", url, "--schema", schema,
                            "--owner", absl::StrCat("process-", index),
                            "--lease-ttl", absl::StrCat(kLeaseTtlSeconds)});
    if (!process.ok()) return process.status();
    return Server(*std::move(process));
  }

  // Waits for its "ready".
  bool AwaitReady() {
    std::optional<std::string> line =
        process_.ReadLine(absl::Now() + kStepTimeout);
    return line.has_value() && *line == "ready";
  }

  void Send(const std::string& id, const Command& c) {
    const std::string line =
        c.verb == "open"
            ? absl::StrCat(id, " open ", c.account)
            : absl::StrCat(id, " ", c.verb, " ", c.account, " ", c.amount);
    ASSERT_TRUE(process_.WriteLine(line)) << "cannot write to it: " << line;
    pending_.insert(id);
  }

  // Reads answers until `count` have come (all pending: -1), adding them to
  // `answers` by id.
  void Collect(std::map<std::string, Answer>& answers, int count = -1) {
    const absl::Time deadline = absl::Now() + kStepTimeout;
    int taken = 0;
    while (!pending_.empty() && (count < 0 || taken < count)) {
      std::optional<std::string> line = process_.ReadLine(deadline);
      ASSERT_TRUE(line.has_value())
          << pending_.size() << " commands not answered within " << kStepTimeout
          << ", e.g. " << *pending_.begin();
      std::istringstream in(*line);
      std::string id;
      Answer a;
      in >> id >> a.outcome >> a.account;
      std::getline(in, a.rest);
      ASSERT_EQ(pending_.erase(id), 1u) << "an answer to nothing: " << *line;
      ASSERT_NE(a.outcome, "bad") << *line;
      answers[id] = std::move(a);
      ++taken;
    }
  }

  // The commands it was sent and never answered; forgets them.
  std::set<std::string> TakePending() { return std::exchange(pending_, {}); }

  BankProcess& process() { return process_; }

 private:
  explicit Server(BankProcess process) : process_(std::move(process)) {}

  BankProcess process_;
  std::set<std::string> pending_;
};

class MultiProcessTest : public ::testing::Test {
 protected:
  void StartServers(const std::string& url, const std::string& schema) {
    for (int i = 0; i < kProcesses; ++i) {
      absl::StatusOr<Server> server = Server::Start(url, schema, i);
      ASSERT_OK(server);
      servers_.push_back(*std::move(server));
    }
    for (int i = 0; i < kProcesses; ++i) {
      ASSERT_TRUE(servers_[i].AwaitReady()) << "process " << i;
    }
    // Shards are spread over the processes; each account goes where its
    // shard is.
    for (int64_t a = 0; a < kAccounts; ++a) {
      const std::string shard = ShardOf(a);
      if (!host_.contains(shard)) {
        host_[shard] = static_cast<int>(host_.size()) % kProcesses;
      }
    }
  }

  int HostOf(int64_t account) { return host_.at(ShardOf(account)); }

  // Moves every shard of process `from` to the processes in `to`, in turn.
  void MoveShards(int from, const std::vector<int>& to) {
    size_t next = 0;
    for (auto& [shard, host] : host_) {
      if (host == from) host = to[next++ % to.size()];
    }
  }

  std::string NextId() { return absl::StrCat("c", next_id_++); }

  void Record(const Command& c, const Answer& a) {
    ASSERT_EQ(a.account, c.account);
    if (c.verb != "deposit") return;
    Ledger& ledger = ledgers_[c.account];
    if (a.outcome == "done") {
      ++ledger.acked_count;
      ledger.acked_sum += c.amount;
      std::istringstream in(a.rest);
      int64_t balance = 0;
      int64_t sequence_nr = 0;
      in >> balance >> sequence_nr;
      ASSERT_TRUE(ledger.acked_sequence_nrs.insert(sequence_nr).second)
          << "account " << c.account << ": two deposits acknowledged as "
          << "event " << sequence_nr;
    } else if (a.outcome == "failed" || a.outcome == "unknown") {
      ledger.unknown.push_back(c.amount);
    }
  }

  // Sends every command to its account's host and waits for the answers;
  // commands answered "unavailable" (a shard still leased elsewhere) are
  // sent again, until every one has another answer. Expects each to be
  // done. Returns how many "unavailable" answers came.
  int Deliver(std::vector<Command> commands) {
    int unavailable = 0;
    const absl::Time deadline = absl::Now() + kStepTimeout;
    while (!commands.empty()) {
      EXPECT_LT(absl::Now(), deadline)
          << commands.size() << " commands still unavailable, e.g. for "
          << "account " << commands.front().account;
      if (absl::Now() >= deadline) return unavailable;
      std::map<std::string, Command> sent;
      for (const Command& c : commands) {
        const std::string id = NextId();
        servers_[HostOf(c.account)].Send(id, c);
        sent[id] = c;
      }
      std::map<std::string, Answer> answers;
      for (Server& s : servers_) {
        s.Collect(answers);
        if (::testing::Test::HasFatalFailure()) return unavailable;
      }
      commands.clear();
      for (const auto& [id, c] : sent) {
        const Answer& a = answers.at(id);
        if (a.outcome == "unavailable") {
          ++unavailable;
          commands.push_back(c);
          continue;
        }
        EXPECT_EQ(a.outcome, "done")
            << c.verb << " " << c.account << ": " << a.rest;
        Record(c, a);
      }
      if (!commands.empty()) absl::SleepFor(kRetryPause);
    }
    return unavailable;
  }

  // A deposit to each of `accounts`, of a new amount.
  std::vector<Command> Deposits(const std::vector<int64_t>& accounts) {
    std::vector<Command> commands;
    for (int64_t a : accounts) {
      commands.push_back({a, "deposit", next_amount_++});
    }
    return commands;
  }

  std::vector<int64_t> AllAccounts() {
    std::vector<int64_t> all;
    for (int64_t a = 0; a < kAccounts; ++a) all.push_back(a);
    return all;
  }
  std::vector<int64_t> AccountsOf(int process) {
    std::vector<int64_t> of;
    for (int64_t a = 0; a < kAccounts; ++a) {
      if (HostOf(a) == process) of.push_back(a);
    }
    return of;
  }

  std::vector<Server> servers_;
  std::map<std::string, int> host_;  // shard -> process index
  std::map<int64_t, Ledger> ledgers_;
  int64_t next_id_ = 0;
  int64_t next_amount_ = 1;
};

TEST_F(MultiProcessTest, KilledAndPausedProcessesLoseNothingAndStoreNothing) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  const absl::Time start = absl::Now();
  auto phase = [start](const char* what) {  // for the log
    std::printf("%6.1f s: %s\n", absl::ToDoubleSeconds(absl::Now() - start),
                what);
  };
  ASSERT_NO_FATAL_FAILURE(StartServers(db.url(), db.schema()));
  phase("three processes ready");
  for (int i = 0; i < kProcesses; ++i) {
    ASSERT_FALSE(AccountsOf(i).empty()) << "process " << i << " hosts none";
  }

  std::vector<Command> opens;
  for (int64_t a : AllAccounts()) opens.push_back({a, "open", 0});
  Deliver(opens);
  for (int round = 0; round < 3; ++round) Deliver(Deposits(AllAccounts()));
  ASSERT_FALSE(HasFailure());
  phase("accounts open, three rounds of deposits done");

  // Process 0 dies in the middle of a round: after two of its answers.
  {
    std::map<std::string, Command> sent;
    for (const Command& c : Deposits(AllAccounts())) {
      const std::string id = NextId();
      servers_[HostOf(c.account)].Send(id, c);
      sent[id] = c;
    }
    std::map<std::string, Answer> answers;
    ASSERT_NO_FATAL_FAILURE(servers_[0].Collect(answers, 2));
    servers_[0].process().Kill();
    for (int i = 1; i < kProcesses; ++i) {
      ASSERT_NO_FATAL_FAILURE(servers_[i].Collect(answers));
    }
    const std::set<std::string> lost = servers_[0].TakePending();
    for (const auto& [id, c] : sent) {
      if (lost.contains(id)) {
        ledgers_[c.account].unknown.push_back(c.amount);
      } else {
        EXPECT_EQ(answers.at(id).outcome, "done") << answers.at(id).rest;
        Record(c, answers.at(id));
      }
    }
  }
  phase("process 0 killed in a round");
  MoveShards(0, {1, 2});
  const int unavailable = Deliver(Deposits(AllAccounts()));
  for (int round = 0; round < 2; ++round) Deliver(Deposits(AllAccounts()));
  ASSERT_FALSE(HasFailure());
  std::printf("after the kill: %d answers 'unavailable' before the takeover\n",
              unavailable);
  // The dead process's leases held its shards until they ran out.
  EXPECT_GT(unavailable, 0);
  phase("its shards taken over, three rounds done");

  // Process 1 is paused past its leases; process 2 takes its shards.
  const std::vector<int64_t> paused_accounts = AccountsOf(1);
  ASSERT_TRUE(servers_[1].process().Signal(SIGSTOP));
  MoveShards(1, {2});
  for (int round = 0; round < 2; ++round) {
    Deliver(Deposits(paused_accounts));
  }
  ASSERT_FALSE(HasFailure());
  phase("process 1 paused, its shards taken over, two rounds done");
  // Deposits for its old accounts wait in its stdin until it continues.
  for (int64_t a : paused_accounts) {
    servers_[1].Send(NextId(), {a, "deposit", kLateAmount + a});
  }
  ASSERT_TRUE(servers_[1].process().Signal(SIGCONT));
  std::map<std::string, Answer> late;
  ASSERT_NO_FATAL_FAILURE(servers_[1].Collect(late));
  for (const auto& [id, a] : late) {
    std::printf("late deposit to account %lld: %s%s\n",
                static_cast<long long>(a.account), a.outcome.c_str(),
                a.rest.c_str());
    EXPECT_NE(a.outcome, "done")
        << "the paused process stored a deposit to account " << a.account
        << " after its lease was taken over";
    // Refused at once: by the journal's fence check, by the account
    // stopped when its shard found the lease lost, or by the shard.
    EXPECT_TRUE(a.outcome == "failed" || a.outcome == "unavailable")
        << "account " << a.account << ": " << a.outcome << a.rest;
  }
  phase("process 1 continued, its late deposits refused");
  // And the new host goes on.
  Deliver(Deposits(paused_accounts));

  for (int i = 1; i < kProcesses; ++i) {
    servers_[i].process().CloseInput();
    EXPECT_EQ(servers_[i].process().Wait(absl::Now() + kStepTimeout), 0)
        << "process " << i << " did not end well at the end of its input";
  }
  ASSERT_FALSE(HasFailure());
  phase("processes 1 and 2 ended at the end of their input");

  // Every account recovers (gap-free streams), with every acknowledged
  // deposit, and of the unanswered ones some.
  testing::Finished balances =
      RunBank({"balances", "--journal", db.url(), "--schema", db.schema()},
              kStepTimeout);
  ASSERT_EQ(balances.exit_code, 0) << balances.err;
  ASSERT_OK_AND_ASSIGN(const auto stored, ParseBalances(balances.out));
  ASSERT_EQ(stored.size(), static_cast<size_t>(kAccounts)) << balances.out;
  phase("balances read");
  for (const auto& [account, b] : stored) {
    const Ledger& ledger = ledgers_[account];
    const auto [balance, last_sequence_nr] = b;
    // Event 1 opened the account; every other is a deposit.
    const int64_t deposits = last_sequence_nr - 1;
    // Each account has at most one deposit without an answer a round.
    EXPECT_TRUE(SomeSubset(ledger.unknown, deposits - ledger.acked_count,
                           balance - ledger.acked_sum, /*max_amounts=*/19))
        << "account " << account << ": balance " << balance << " in "
        << deposits << " deposits, but " << ledger.acked_count
        << " acknowledged deposits sum to " << ledger.acked_sum << " and "
        << ledger.unknown.size() << " have no answer";
    if (!ledger.acked_sequence_nrs.empty()) {
      EXPECT_LE(*ledger.acked_sequence_nrs.rbegin(), last_sequence_nr)
          << "account " << account;
    }
  }
}

}  // namespace
}  // namespace cairn::examples::bank
