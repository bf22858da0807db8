// `bank demo`: the story of two accounts, told on stdout. Each run adds to
// the balances the previous runs left in the store.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/client.h"
#include "examples/bank/commands.h"
#include "examples/bank/data_dir.h"
#include "examples/bank/protocol.h"

namespace cairn::examples::bank {
namespace {

using Outcome = AccountReply::Outcome;

void Say(const std::string& line) { std::printf("%s\n", line.c_str()); }

// "  deposit 100 to account 1      -> balance 100 (event 2)"
absl::Status Show(const std::string& action,
                  const absl::StatusOr<AccountReply>& reply,
                  const std::string& done) {
  if (!reply.ok()) return reply.status();
  std::string result;
  switch (reply->outcome) {
    case Outcome::kDone:
      result = done;
      break;
    case Outcome::kRefused:
      result = absl::StrCat("refused: ", reply->reason);
      break;
    case Outcome::kFailed:
      return absl::UnavailableError(reply->reason);
  }
  Say(absl::StrFormat("  %-30s -> %s", action, result));
  return absl::OkStatus();
}

std::string BalanceAfter(const absl::StatusOr<AccountReply>& r) {
  if (!r.ok()) return "";
  return absl::StrCat("balance ", r->balance, " (event ", r->last_sequence_nr,
                      ")");
}

std::string Plural(int64_t n, const char* word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

// "  account 1: balance 75, last event 5 (snapshot at event 4 + 1 event
// replayed)"
void ShowBalances(const std::vector<AccountReply>& balances) {
  for (const AccountReply& b : balances) {
    std::string how =
        b.snapshot_sequence_nr > 0
            ? absl::StrCat("snapshot at event ", b.snapshot_sequence_nr, " + ",
                           Plural(b.replayed_events, "event"), " replayed")
            : absl::StrCat(Plural(b.replayed_events, "event"), " replayed");
    Say(absl::StrCat("  account ", b.account, ": balance ", b.balance,
                     ", last event ", b.last_sequence_nr, " (", how, ")"));
  }
}

absl::StatusOr<std::vector<AccountReply>> AllBalances(
    const BankClient& client) {
  absl::StatusOr<std::vector<int64_t>> accounts = client.ListAccounts();
  if (!accounts.ok()) return accounts.status();
  return client.OpenBalances(*accounts);
}

absl::Status Deposit1(const BankClient& bank, int64_t account, int64_t amount) {
  absl::StatusOr<AccountReply> r = bank.Call(Deposit{account, amount});
  return Show(absl::StrCat("deposit ", amount, " to account ", account), r,
              BalanceAfter(r));
}

absl::Status Withdraw1(const BankClient& bank, int64_t account,
                       int64_t amount) {
  absl::StatusOr<AccountReply> r = bank.Call(Withdraw{account, amount});
  return Show(absl::StrCat("withdraw ", amount, " from account ", account), r,
              BalanceAfter(r));
}

// Everything before the crash: what is found, then the day's business.
absl::Status FirstLife(const StoreOptions& options) {
  absl::StatusOr<std::unique_ptr<BankSystem>> system =
      BankSystem::Start(options);
  if (!system.ok()) return system.status();
  const BankClient& bank = (*system)->client();

  absl::StatusOr<std::vector<AccountReply>> found = AllBalances(bank);
  if (!found.ok()) return found.status();
  if (found->empty()) {
    Say("Found at start: nothing, the store is new.");
  } else {
    Say("Found at start (recovered from the store, where the last run left "
        "them):");
    ShowBalances(*found);
  }

  Say("\nOpening accounts 1 and 2:");
  for (int64_t account : {1, 2}) {
    absl::StatusOr<AccountReply> r = bank.Call(OpenAccount{account});
    if (absl::Status s =
            Show(absl::StrCat("open account ", account), r,
                 absl::StrCat("opened (event ",
                              r.ok() ? r->last_sequence_nr : 0, ")"));
        !s.ok()) {
      return s;
    }
  }

  Say("\nDeposits and withdrawals, each one event persisted before the "
      "answer:");
  if (absl::Status s = Deposit1(bank, 1, 100); !s.ok()) return s;
  if (absl::Status s = Deposit1(bank, 2, 50); !s.ok()) return s;
  if (absl::Status s = Withdraw1(bank, 1, 30); !s.ok()) return s;
  if (absl::Status s = Withdraw1(bank, 2, 500); !s.ok()) return s;

  Say("\nA snapshot of account 1, then one more deposit after it:");
  absl::StatusOr<AccountReply> snap = bank.Call(TakeSnapshot{1});
  if (absl::Status s =
          Show("snapshot of account 1", snap,
               absl::StrCat("saved at event ",
                            snap.ok() ? snap->last_sequence_nr : 0,
                            " (balance ", snap.ok() ? snap->balance : 0, ")"));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Deposit1(bank, 1, 5); !s.ok()) return s;

  Say("\nBalances before the crash:");
  absl::StatusOr<std::vector<AccountReply>> before = AllBalances(bank);
  if (!before.ok()) return before.status();
  for (const AccountReply& b : *before) {
    Say(absl::StrCat("  account ", b.account, ": balance ", b.balance,
                     ", last event ", b.last_sequence_nr));
  }
  return absl::OkStatus();
}

// After the crash: a new actor system, the accounts rebuilt from the store.
absl::Status SecondLife(const StoreOptions& options) {
  absl::StatusOr<std::unique_ptr<BankSystem>> system =
      BankSystem::Start(options);
  if (!system.ok()) return system.status();
  absl::StatusOr<std::vector<AccountReply>> after =
      AllBalances((*system)->client());
  if (!after.ok()) return after.status();
  Say("Balances after the crash, recovered from the store:");
  ShowBalances(*after);
  return absl::OkStatus();
}

}  // namespace

absl::Status RunDemo(const StoreLocation& store) {
  const DataDir& data = store.data;
  StoreOptions options;
  // Where the story says the accounts are, and how to list them; never
  // the URL, which may hold a password.
  std::string where;
  std::string list_them;
  if (store.on_postgres()) {
    options.postgres_url = store.postgres_url;
    options.schema = store.schema;
    where = absl::StrCat("the PostgreSQL journal (schema ", store.schema, ")");
    list_them =
        absl::StrCat("bank balances --journal URL --schema ", store.schema);
  } else {
    if (absl::Status s = PrepareForWriting(data.path); !s.ok()) return s;
    if (absl::Status s = CheckNotInUse(data.path); !s.ok()) return s;
    options.dir = data.path;
    where = absl::StrCat("the RocksDB store at ", data.path);
    list_them = absl::StrCat("bank balances --data ", data.path);
  }
  Say(absl::StrCat("cairn bank demo: event-sourced accounts in ", where));
  if (!store.on_postgres() && data.is_default) {
    Say("(the default; choose another with --data DIR)");
  }
  Say("");
  if (absl::Status s = FirstLife(options); !s.ok()) return s;

  Say(absl::StrCat(
      "\nSimulated crash: the actor system is torn down, every account actor "
      "with it,\nand a new one is started on the same ",
      store.on_postgres() ? "schema" : "directory", ".\n"));
  if (absl::Status s = SecondLife(options); !s.ok()) return s;

  Say(absl::StrCat(
      "\nRun the demo again and it continues from these balances; `", list_them,
      "` lists them."));
  std::fflush(stdout);
  return absl::OkStatus();
}

}  // namespace cairn::examples::bank
