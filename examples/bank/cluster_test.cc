// The bank as a cluster: three `bank serve --listen` processes are members
// over one PostgreSQL database (members and leases there, ttls of
// kTtlSeconds), and each takes any command for any account: the test sends
// every command to a process picked at random. A `bank deposits` client
// joins as a proxy member and makes its deposits at least once.
//
//  - KilledMemberLosesNothing: while the client's deposits and the test's
//    flow, the process holding the most shards is killed with SIGKILL. The
//    others take its shards once its row and leases run out; the client's
//    deposits are all confirmed, each printed once; then `bank balances`
//    recovers every account (gap-free streams) and finds exactly the
//    client's deposits, each once, every deposit the test saw done, and of
//    those without a sure answer some.
//  - PausedMemberStoresNothing: the process holding the most shards is
//    paused (SIGSTOP) past its ttls; the others take its shards, and
//    deposits for its accounts given to them are done. Deposits written to
//    its stdin meanwhile are read once it is continued (SIGCONT), when it
//    learns it was removed and shuts itself down (exit 1, on its own): none
//    of them is stored under its lost leases (the fence refuses them), and
//    the balances hold exactly the deposits answered done, of the others
//    some.
//  - AFourthMemberGetsShardsByRebalancing: a fourth process joins while
//    deposits flow; the others hand it shards (rebalancing), deposits go
//    on being done, and the balances hold them all.
//
// Skipped without a PostgreSQL server (docs/POSTGRESQL.md, "Testing against
// PostgreSQL").
#include <signal.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_testing.h"
#include "examples/bank/bank_process.h"
#include "examples/bank/some_subset.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/postgres_leases.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/postgresql/testing/test_database.h"
#include "remote/testing/free_port.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

namespace cairn::examples::bank {
namespace {

using testing::BankProcess;
using testing::ParseBalances;
using testing::RunBank;
using testing::SomeSubset;

constexpr int kProcesses = 3;
constexpr int64_t kAccounts = 24;
const int kShards = sharding::EntityRegionSettings{}.number_of_shards;
// Members' rows and shards' leases: a dead or paused process is removed,
// and its shards free, this long after its last renewal.
constexpr int kTtlSeconds = 3;
// A command sent to a member that died is answered "unknown" after this.
constexpr int kAnswerTimeoutSeconds = 10;
// How long any one step may take: starting processes, a round of commands,
// a takeover, the client's deposits.
constexpr absl::Duration kStepTimeout = absl::Seconds(120);
// Between rounds with commands not done: a shard still leased by a member
// that is gone is tried again by its new host every ttl / 4.
constexpr absl::Duration kRetryPause = absl::Milliseconds(200);
// The test's deposits are of kTestAmount + n: far above the client's
// (1 to kClientOps), so that no client deposit counted twice can pass for
// some of the test's.
constexpr int64_t kTestAmount = 1000000;
constexpr int64_t kClientOps = 3000;
// The client sends a deposit again when it has no answer after this: far
// less than a deposit takes under its load, so that many are sent more than
// once and every one must be stored once.
constexpr absl::Duration kRedeliverInterval = absl::Milliseconds(300);
// The client's confirmations seen before the kill: the load is under way.
constexpr int64_t kConfirmedBeforeKill = 200;

std::string ShardOf(int64_t account) {
  return sharding::StableShardId(absl::StrCat(account), kShards);
}

struct Answer {
  std::string outcome;  // done, refused, unavailable, failed, unknown, bad
  int64_t account = -1;
  std::string rest;  // for done: "BALANCE LAST_SEQ_NR"; else the reason
};

struct Command {
  int64_t account = 0;
  std::string verb;  // open or deposit
  int64_t amount = 0;
};

// One `bank serve --listen` process and the commands it has not answered.
class Server {
 public:
  static absl::StatusOr<Server> Start(const std::string& url,
                                      const std::string& schema, int port) {
    absl::StatusOr<BankProcess> process = BankProcess::Start(
        {"serve", "--journal", url, "--schema", schema, "--listen",
         absl::StrCat("127.0.0.1:", port), "--lease-ttl",
         absl::StrCat(kTtlSeconds), "--member-ttl", absl::StrCat(kTtlSeconds),
         "--answer-timeout", absl::StrCat(kAnswerTimeoutSeconds)});
    if (!process.ok()) return process.status();
    return Server(*std::move(process), port);
  }

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

  // Reads answers until each of `ids` has one, keeping the others that
  // come meanwhile for later calls; moves those of `ids` to `answers`.
  void Collect(const std::set<std::string>& ids,
               std::map<std::string, Answer>& answers) {
    const absl::Time deadline = absl::Now() + kStepTimeout;
    for (const std::string& id : ids) {
      while (!answered_.contains(id)) {
        std::optional<std::string> line = process_.ReadLine(deadline);
        ASSERT_TRUE(line.has_value())
            << "command " << id << " not answered within " << kStepTimeout;
        ASSERT_NO_FATAL_FAILURE(Take(*line));
      }
      answers[id] = answered_.at(id);
      answered_.erase(id);
    }
  }
  // Reads answers until every command sent has one, or (`until_end`) the
  // output ends; moves them all to `answers`.
  void CollectAll(std::map<std::string, Answer>& answers,
                  bool until_end = false) {
    const absl::Time deadline = absl::Now() + kStepTimeout;
    while (!pending_.empty()) {
      std::optional<std::string> line = process_.ReadLine(deadline);
      if (!line.has_value() && until_end && absl::Now() < deadline) break;
      ASSERT_TRUE(line.has_value())
          << pending_.size() << " commands not answered within " << kStepTimeout
          << ", e.g. " << *pending_.begin();
      ASSERT_NO_FATAL_FAILURE(Take(*line));
    }
    answers.merge(answered_);
    answered_.clear();
  }

  std::set<std::string> TakePending() { return std::exchange(pending_, {}); }
  BankProcess& process() { return process_; }
  // How its leases name it: "akka://bank@127.0.0.1:PORT#<uid>".
  std::string owner_prefix() const {
    return absl::StrCat("akka://bank@127.0.0.1:", port_, "#");
  }

 private:
  Server(BankProcess process, int port)
      : process_(std::move(process)), port_(port) {}

  void Take(const std::string& line) {
    std::istringstream in(line);
    std::string id;
    Answer a;
    in >> id >> a.outcome >> a.account;
    std::getline(in, a.rest);
    ASSERT_EQ(pending_.erase(id), 1u) << "an answer to nothing: " << line;
    ASSERT_NE(a.outcome, "bad") << line;
    answered_[id] = std::move(a);
  }

  BankProcess process_;
  int port_;
  std::set<std::string> pending_;           // sent, no answer read
  std::map<std::string, Answer> answered_;  // read, not collected
};

// What the test knows of one account's deposits.
struct Ledger {
  int64_t acked_count = 0;
  int64_t acked_sum = 0;
  // Sent, outcome unsure (failed, may be stored; or no answer): stored or
  // not.
  std::vector<int64_t> unsure;
  // The client's, each confirmed once.
  int64_t client_count = 0;
  int64_t client_sum = 0;
};

class ClusterTest : public ::testing::Test {
 protected:
  void StartServers(const std::string& url, const std::string& schema) {
    for (int i = 0; i < kProcesses; ++i) {
      const int port = remote::testing::FreePort();
      ASSERT_GT(port, 0);
      absl::StatusOr<Server> server = Server::Start(url, schema, port);
      ASSERT_OK(server);
      servers_.push_back(*std::move(server));
      live_.push_back(i);
    }
    for (int i = 0; i < kProcesses; ++i) {
      ASSERT_TRUE(servers_[i].AwaitReady()) << "process " << i;
    }
    persistence::PostgresOptions options;
    options.connection_string = url;
    options.schema = schema;
    absl::StatusOr<std::unique_ptr<persistence::PostgresLeases>> leases =
        persistence::PostgresLeases::Open(options);
    ASSERT_OK(leases);
    leases_ = *std::move(leases);
  }

  // Starts one more `bank serve --listen` process; its index.
  int StartAnother(const std::string& url, const std::string& schema) {
    const int port = remote::testing::FreePort();
    EXPECT_GT(port, 0);
    absl::StatusOr<Server> server = Server::Start(url, schema, port);
    EXPECT_OK(server);
    if (!server.ok()) return -1;
    servers_.push_back(*std::move(server));
    const int index = static_cast<int>(servers_.size()) - 1;
    EXPECT_TRUE(servers_[index].AwaitReady()) << "process " << index;
    live_.push_back(index);
    return index;
  }

  // The process holding the lease of the account's shard; -1 if none.
  int HolderOf(int64_t account) {
    absl::StatusOr<std::optional<persistence::LeaseHolding>> holding =
        leases_->Holder(absl::StrCat("accounts-", ShardOf(account)));
    EXPECT_OK(holding);
    if (!holding.ok() || !holding->has_value()) return -1;
    for (int i = 0; i < static_cast<int>(servers_.size()); ++i) {
      if (absl::StartsWith((*holding)->owner, servers_[i].owner_prefix())) {
        return i;
      }
    }
    return -1;
  }

  // The process holding the most of the accounts' shards, and its accounts.
  std::pair<int, std::vector<int64_t>> BusiestProcess() {
    std::map<int, std::vector<int64_t>> of;
    for (int64_t a = 0; a < kAccounts; ++a) of[HolderOf(a)].push_back(a);
    int busiest = 0;
    for (int i = 0; i < kProcesses; ++i) {
      if (of[i].size() > of[busiest].size()) busiest = i;
    }
    return {busiest, of[busiest]};
  }

  int RandomLive() {
    return live_[std::uniform_int_distribution<size_t>(
        0, live_.size() - 1)(random_)];
  }
  void Forget(int process) { std::erase(live_, process); }

  std::string NextId() { return absl::StrCat("c", next_id_++); }

  // Records a deposit's answer. "unavailable" and "failed" saying it did
  // not take effect or was not stored are not stored; other failures, and
  // "unknown", may be.
  void Record(const Command& c, const Answer& a) {
    ASSERT_EQ(a.account, c.account) << a.rest;
    if (c.verb != "deposit") return;
    Ledger& ledger = ledgers_[c.account];
    if (a.outcome == "done") {
      ++ledger.acked_count;
      ledger.acked_sum += c.amount;
    } else if (a.outcome == "unknown" ||
               (a.outcome == "failed" &&
                !absl::StrContains(a.rest, "did not take effect") &&
                !absl::StrContains(a.rest, "not stored"))) {
      ledger.unsure.push_back(c.amount);
    }
  }

  // Sends each command to a live process picked at random, and waits for
  // every answer. Returns the commands not done (to try again).
  std::vector<Command> Round(const std::vector<Command>& commands) {
    std::map<std::string, std::pair<int, Command>> sent = SendAll(commands);
    if (HasFatalFailure()) return {};
    std::map<std::string, Answer> answers;
    CollectSent(sent, answers);
    if (HasFatalFailure()) return {};
    std::vector<Command> again;
    for (const auto& [id, sent_to] : sent) {
      const Command& c = sent_to.second;
      const Answer& a = answers.at(id);
      Record(c, a);
      const bool taken =
          a.outcome == "done" || (c.verb == "open" && a.outcome == "refused");
      if (!taken) again.push_back(c);
    }
    return again;
  }

  // Sends each command to a live process picked at random: by id, the
  // process and the command.
  std::map<std::string, std::pair<int, Command>> SendAll(
      const std::vector<Command>& commands) {
    std::map<std::string, std::pair<int, Command>> sent;
    for (const Command& c : commands) {
      const std::string id = NextId();
      const int to = RandomLive();
      servers_[to].Send(id, c);
      sent[id] = {to, c};
    }
    return sent;
  }
  // The answers of those `sent`.
  void CollectSent(const std::map<std::string, std::pair<int, Command>>& sent,
                   std::map<std::string, Answer>& answers) {
    std::map<int, std::set<std::string>> ids;
    for (const auto& [id, sent_to] : sent) ids[sent_to.first].insert(id);
    for (const auto& [process, of] : ids) {
      ASSERT_NO_FATAL_FAILURE(servers_[process].Collect(of, answers));
    }
  }

  // Rounds until every command is done (opens: done or refused, open
  // already); deposits not done are sent again as new deposits (a new
  // amount). Returns how many commands were not done at their first try.
  int Deliver(std::vector<Command> commands) {
    int not_done = 0;
    const absl::Time deadline = absl::Now() + kStepTimeout;
    while (!commands.empty()) {
      if (absl::Now() >= deadline) {
        ADD_FAILURE() << commands.size() << " commands still not done, e.g. "
                      << "for account " << commands.front().account;
        return not_done;
      }
      commands = Round(commands);
      if (HasFatalFailure()) return not_done;
      not_done += static_cast<int>(commands.size());
      for (Command& c : commands) {
        if (c.verb == "deposit") c.amount = next_amount_++;
      }
      if (!commands.empty()) absl::SleepFor(kRetryPause);
    }
    return not_done;
  }

  std::vector<Command> Opens() {
    std::vector<Command> commands;
    for (int64_t a = 0; a < kAccounts; ++a) commands.push_back({a, "open", 0});
    return commands;
  }
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

  // Ends the live processes at the end of their input (the commands they
  // have are answered first), then checks the balances against the
  // ledgers.
  void EndAndCheckBalances(const std::string& url, const std::string& schema) {
    for (int i : live_) {
      servers_[i].process().CloseInput();
      std::map<std::string, Answer> answers;
      ASSERT_NO_FATAL_FAILURE(servers_[i].CollectAll(answers));
      EXPECT_TRUE(answers.empty());
      EXPECT_EQ(servers_[i].process().Wait(absl::Now() + kStepTimeout), 0)
          << "process " << i << " did not end well at the end of its input";
    }
    testing::Finished balances = RunBank(
        {"balances", "--journal", url, "--schema", schema}, kStepTimeout);
    ASSERT_EQ(balances.exit_code, 0) << balances.err;
    ASSERT_OK_AND_ASSIGN(const auto stored, ParseBalances(balances.out));
    ASSERT_EQ(stored.size(), static_cast<size_t>(kAccounts)) << balances.out;
    for (const auto& [account, b] : stored) {
      const Ledger& ledger = ledgers_[account];
      const auto [balance, last_sequence_nr] = b;
      // Event 1 opened the account; every other is a deposit.
      const int64_t deposits = last_sequence_nr - 1;
      EXPECT_TRUE(SomeSubset(
          ledger.unsure, deposits - ledger.acked_count - ledger.client_count,
          balance - ledger.acked_sum - ledger.client_sum,
          /*max_amounts=*/24))
          << "account " << account << ": balance " << balance << " in "
          << deposits << " deposits, but the test's " << ledger.acked_count
          << " done deposits sum to " << ledger.acked_sum << ", the client's "
          << ledger.client_count << " to " << ledger.client_sum << ", and "
          << ledger.unsure.size() << " are unsure";
    }
  }

  void Phase(const char* what) {
    std::printf("%6.1f s: %s\n", absl::ToDoubleSeconds(absl::Now() - start_),
                what);
    std::fflush(stdout);
  }

  const absl::Time start_ = absl::Now();
  std::vector<Server> servers_;
  std::vector<int> live_;  // indexes of the processes commands go to
  std::unique_ptr<persistence::PostgresLeases> leases_;
  std::map<int64_t, Ledger> ledgers_;
  std::mt19937 random_{std::random_device{}()};
  int64_t next_id_ = 0;
  int64_t next_amount_ = kTestAmount;
};

// The client's confirmations: "confirmed ID ACCOUNT AMOUNT BALANCE".
struct Confirmation {
  int64_t id = 0;
  int64_t account = 0;
  int64_t amount = 0;
};
std::optional<Confirmation> ParseConfirmation(const std::string& line) {
  std::istringstream in(line);
  std::string word;
  Confirmation c;
  int64_t balance = 0;
  in >> word >> c.id >> c.account >> c.amount >> balance;
  if (in.fail() || word != "confirmed") return std::nullopt;
  return c;
}

TEST_F(ClusterTest, KilledMemberLosesNothing) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  ASSERT_NO_FATAL_FAILURE(StartServers(db.url(), db.schema()));
  Phase("three members ready");
  Deliver(Opens());
  Deliver(Deposits(AllAccounts()));
  ASSERT_FALSE(HasFailure());
  Phase("accounts open, a round of deposits done");

  absl::StatusOr<BankProcess> client = BankProcess::Start(
      {"deposits", "--journal", db.url(), "--schema", db.schema(), "--listen",
       "127.0.0.1:0", "--member-ttl", absl::StrCat(kTtlSeconds), "--name",
       "client", "--accounts", absl::StrCat(kAccounts), "--ops",
       absl::StrCat(kClientOps), "--redeliver-interval",
       absl::StrCat(absl::ToInt64Milliseconds(kRedeliverInterval), "ms")});
  ASSERT_OK(client);
  std::set<int64_t> confirmed;
  auto take = [&](const std::string& line) {
    std::optional<Confirmation> c = ParseConfirmation(line);
    ASSERT_TRUE(c.has_value()) << "not a confirmation: " << line;
    // Delivery ids are 1, 2, ...: deposit i is delivery i + 1.
    EXPECT_EQ(c->account, (c->id - 1) % kAccounts) << line;
    EXPECT_EQ(c->amount, c->id) << line;
    ASSERT_TRUE(confirmed.insert(c->id).second) << "confirmed twice: " << line;
    Ledger& ledger = ledgers_[c->account];
    ++ledger.client_count;
    ledger.client_sum += c->amount;
  };
  const absl::Time deadline = absl::Now() + kStepTimeout;
  while (static_cast<int64_t>(confirmed.size()) < kConfirmedBeforeKill) {
    std::optional<std::string> line = client->ReadLine(deadline);
    ASSERT_TRUE(line.has_value())
        << "the client confirmed " << confirmed.size() << " deposits";
    ASSERT_NO_FATAL_FAILURE(take(*line));
  }
  ASSERT_LT(static_cast<int64_t>(confirmed.size()), kClientOps);
  Phase("the client's deposits under way");

  // The busiest process dies in the middle of a round of the test's, whose
  // answers are read once the next rounds are done (those routed to it
  // are answered "unknown" after kAnswerTimeoutSeconds).
  const auto [victim, its_accounts] = BusiestProcess();
  ASSERT_FALSE(its_accounts.empty());
  const std::map<std::string, std::pair<int, Command>> in_the_kill =
      SendAll(Deposits(AllAccounts()));
  servers_[victim].process().Kill();
  Forget(victim);
  std::printf("killed process %d, holding the shards of %zu accounts\n", victim,
              its_accounts.size());
  // Its shards are taken over: rounds until every deposit of one is done.
  const int not_done = Deliver(Deposits(AllAccounts()));
  Deliver(Deposits(AllAccounts()));
  ASSERT_FALSE(HasFailure());
  std::printf("%d deposits not done before the takeover\n", not_done);
  {
    const std::set<std::string> lost = servers_[victim].TakePending();
    std::map<std::string, std::pair<int, Command>> answerable;
    for (const auto& [id, sent_to] : in_the_kill) {
      if (lost.contains(id)) {
        ledgers_[sent_to.second.account].unsure.push_back(
            sent_to.second.amount);
      } else {
        answerable[id] = sent_to;
      }
    }
    std::map<std::string, Answer> answers;
    ASSERT_NO_FATAL_FAILURE(CollectSent(answerable, answers));
    for (const auto& [id, sent_to] : answerable) {
      Record(sent_to.second, answers.at(id));
    }
  }
  Phase("its shards taken over");

  // Every deposit of the client's is confirmed, once.
  while (true) {
    std::optional<std::string> line = client->ReadLine(deadline);
    if (!line.has_value()) break;
    ASSERT_NO_FATAL_FAILURE(take(*line));
  }
  EXPECT_EQ(client->Wait(deadline), 0);
  EXPECT_EQ(static_cast<int64_t>(confirmed.size()), kClientOps);
  Phase("the client's deposits all confirmed");

  EndAndCheckBalances(db.url(), db.schema());
  Phase("balances checked");
}

TEST_F(ClusterTest, PausedMemberStoresNothing) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  ASSERT_NO_FATAL_FAILURE(StartServers(db.url(), db.schema()));
  Deliver(Opens());
  Deliver(Deposits(AllAccounts()));
  ASSERT_FALSE(HasFailure());
  Phase("three members ready, accounts open, a round of deposits done");

  const auto [paused, its_accounts] = BusiestProcess();
  ASSERT_FALSE(its_accounts.empty());
  ASSERT_TRUE(servers_[paused].process().Signal(SIGSTOP));
  Forget(paused);
  // The others stop routing to it and take its shards: a round of
  // deposits to its accounts, given to them, all done.
  const int not_done = Deliver(Deposits(its_accounts));
  Deliver(Deposits(its_accounts));
  ASSERT_FALSE(HasFailure());
  std::printf(
      "paused process %d, holding the shards of %zu accounts; %d "
      "deposits not done before the takeover\n",
      paused, its_accounts.size(), not_done);
  Phase("its shards taken over by the others");
  for (int64_t a : its_accounts) {
    EXPECT_NE(HolderOf(a), paused) << "account " << a;
  }

  // Deposits for its old accounts wait in its stdin until it continues;
  // it then finds itself removed and shuts down, on its own.
  std::map<std::string, Command> late;
  for (const Command& c : Deposits(its_accounts)) {
    const std::string id = NextId();
    servers_[paused].Send(id, c);
    late[id] = c;
  }
  ASSERT_TRUE(servers_[paused].process().Signal(SIGCONT));
  std::map<std::string, Answer> answers;
  ASSERT_NO_FATAL_FAILURE(
      servers_[paused].CollectAll(answers, /*until_end=*/true));
  EXPECT_EQ(servers_[paused].process().Wait(absl::Now() + kStepTimeout), 1)
      << "the removed member did not stop by itself with exit code 1";
  Phase("it was continued, and stopped");
  const std::set<std::string> unanswered = servers_[paused].TakePending();
  for (const auto& [id, c] : late) {
    if (unanswered.contains(id)) {
      std::printf("late deposit to account %lld: no answer\n",
                  static_cast<long long>(c.account));
      // Not read before the system stopped, or its answer cut off.
      ledgers_[c.account].unsure.push_back(c.amount);
      continue;
    }
    const Answer& a = answers.at(id);
    std::printf("late deposit to account %lld: %s%s\n",
                static_cast<long long>(c.account), a.outcome.c_str(),
                a.rest.c_str());
    Record(c, a);
  }
  // The others go on.
  Deliver(Deposits(AllAccounts()));
  ASSERT_FALSE(HasFailure());
  EndAndCheckBalances(db.url(), db.schema());
  Phase("balances checked");
}

// A fourth process joins while deposits flow: the others hand it the
// shards rendezvous hashing now gives it (rebalancing, every
// rebalance-interval, 10 s by default), deposits go on being done, and the
// balances hold every one.
TEST_F(ClusterTest, AFourthMemberGetsShardsByRebalancing) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  ASSERT_NO_FATAL_FAILURE(StartServers(db.url(), db.schema()));
  Deliver(Opens());
  Deliver(Deposits(AllAccounts()));
  ASSERT_FALSE(HasFailure());
  Phase("three members ready, accounts open, a round of deposits done");

  const int fourth = StartAnother(db.url(), db.schema());
  ASSERT_GE(fourth, 0);
  Phase("a fourth member started");
  const absl::Time deadline = absl::Now() + kStepTimeout;
  int rounds = 0;
  while (true) {
    int held = 0;
    for (int64_t a = 0; a < kAccounts; ++a) {
      if (HolderOf(a) == fourth) ++held;
    }
    if (held > 0) {
      std::printf(
          "the fourth member holds the shards of %d accounts after "
          "%d rounds\n",
          held, rounds);
      break;
    }
    ASSERT_LT(absl::Now(), deadline) << "the fourth member got no shard";
    Deliver(Deposits(AllAccounts()));
    ASSERT_FALSE(HasFailure());
    ++rounds;
  }
  Deliver(Deposits(AllAccounts()));
  ASSERT_FALSE(HasFailure());
  Phase("shards moved to it, deposits done");

  EndAndCheckBalances(db.url(), db.schema());
  Phase("balances checked");
}

}  // namespace
}  // namespace cairn::examples::bank
