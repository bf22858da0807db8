// `bank balances`: every open account's balance, recovered from a private
// copy of the store so that reading never changes it (see store_copy.h).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "examples/bank/bank_system.h"
#include "examples/bank/client.h"
#include "examples/bank/commands.h"
#include "examples/bank/data_dir.h"
#include "examples/bank/progress_bar.h"
#include "examples/bank/store_copy.h"

namespace cairn::examples::bank {
namespace {

// Recovers every account of the store copy and returns the open ones.
absl::StatusOr<std::vector<AccountReply>> RecoverAll(const StoreCopy& copy) {
  absl::StatusOr<std::unique_ptr<BankSystem>> system = BankSystem::Start(
      StoreOptions{copy.path(), /*fsync=*/false, /*create_if_missing=*/false});
  if (!system.ok()) return system.status();
  const BankClient& bank = (*system)->client();
  absl::StatusOr<std::vector<int64_t>> accounts = bank.ListAccounts();
  if (!accounts.ok()) return accounts.status();
  // The bar ends its line when this returns, before the actor system and
  // the copy's database close and anything is printed.
  std::optional<ProgressBar> bar;
  if (ProgressBar::OnTerminal()) {
    absl::StatusOr<int64_t> events = bank.ExpectEvents(*accounts);
    if (!events.ok()) return events.status();
    bar.emplace(*events, RecoveredSince(bank.progress()), "recovering");
  }
  return bank.OpenBalances(*accounts);
}

}  // namespace

absl::Status RunBalances(const DataDir& data) {
  if (data.is_default) {
    std::fprintf(stderr, "bank balances: no --data given, using %s\n",
                 data.path.c_str());
  }
  if (absl::Status s = CheckReadableStore(data.path); !s.ok()) return s;
  if (absl::Status s = CheckNotInUse(data.path); !s.ok()) return s;
  absl::StatusOr<StoreCopy> copy = StoreCopy::Make(data.path);
  if (!copy.ok()) return copy.status();
  absl::StatusOr<std::vector<AccountReply>> balances = RecoverAll(*copy);
  // Errors name the store the user gave, not the copy.
  if (!balances.ok()) return copy->Explain(balances.status(), data.path);

  // Only once every account is recovered: a failure prints no partial list.
  for (const AccountReply& b : *balances) {
    std::printf("%lld %lld %lld\n", static_cast<long long>(b.account),
                static_cast<long long>(b.balance),
                static_cast<long long>(b.last_sequence_nr));
  }
  std::fflush(stdout);
  return absl::OkStatus();
}

}  // namespace cairn::examples::bank
