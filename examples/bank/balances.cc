// `bank balances`: every open account's balance, recovered from the store
// opened read-only (RocksDB; as a secondary instance beside a writer), or
// only read (PostgreSQL), so that reading never changes it.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "examples/bank/bank_system.h"
#include "examples/bank/client.h"
#include "examples/bank/commands.h"
#include "examples/bank/progress_bar.h"
#include "examples/bank/reading.h"

namespace cairn::examples::bank {
namespace {

// Recovers every account of the store and returns the open ones.
absl::StatusOr<std::vector<AccountReply>> RecoverAll(
    const StoreOptions& options) {
  absl::StatusOr<std::unique_ptr<BankSystem>> system =
      BankSystem::Start(options);
  if (!system.ok()) return system.status();
  const BankClient& bank = (*system)->client();
  absl::StatusOr<std::vector<int64_t>> accounts = bank.ListAccounts();
  if (!accounts.ok()) return accounts.status();
  // The bar ends its line when this returns, before the actor system and
  // the database close and anything is printed.
  std::optional<ProgressBar> bar;
  if (ProgressBar::OnTerminal()) {
    absl::StatusOr<int64_t> events = bank.ExpectEvents(*accounts);
    if (!events.ok()) return events.status();
    bar.emplace(*events, RecoveredSince(bank.progress()), "recovering");
  }
  return bank.OpenBalances(*accounts);
}

}  // namespace

absl::Status RunBalances(const StoreLocation& store) {
  absl::StatusOr<std::unique_ptr<StoreToRead>> to_read =
      OpenStoreToRead(store, "bank balances");
  if (!to_read.ok()) return to_read.status();
  absl::StatusOr<std::vector<AccountReply>> balances =
      RecoverAll((*to_read)->options());
  if (!balances.ok()) return balances.status();

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
