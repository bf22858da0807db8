// `bank balances`: every open account's balance, recovered from the store
// opened read-only, so that reading never changes it.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/client.h"
#include "examples/bank/commands.h"
#include "examples/bank/data_dir.h"
#include "examples/bank/progress_bar.h"
#include "persistence/persistence_query.h"

namespace cairn::examples::bank {
namespace {

constexpr char kAccountPrefix[] = "account-";
// Ids read per Pull of the persistence ids query.
constexpr std::size_t kIdsPerPull = 1000;

// The accounts with events in the store, ascending: the journal's
// persistence ids "account-<N>" (CurrentPersistenceIds, docs/QUERIES.md).
absl::StatusOr<std::vector<int64_t>> AccountsInStore(
    actor::ActorSystem& system) {
  absl::StatusOr<persistence::ReadJournal*> queries =
      persistence::PersistenceQuery::Get(system).ReadJournalFor("");
  if (!queries.ok()) return queries.status();
  using Batch = persistence::QueryStream<std::string>::Batch;
  std::unique_ptr<persistence::QueryStream<std::string>> ids =
      (*queries)->CurrentPersistenceIds();
  std::vector<int64_t> accounts;
  for (bool complete = false; !complete;) {
    std::promise<absl::StatusOr<Batch>> pulled;
    std::future<absl::StatusOr<Batch>> batch = pulled.get_future();
    ids->Pull(kIdsPerPull, [&pulled](absl::StatusOr<Batch> b) {
      pulled.set_value(std::move(b));
    });
    absl::StatusOr<Batch> got = batch.get();
    if (!got.ok()) return got.status();
    for (const std::string& id : got->elements) {
      int64_t account = 0;
      if (absl::StartsWith(id, kAccountPrefix) &&
          absl::SimpleAtoi(id.substr(sizeof(kAccountPrefix) - 1), &account)) {
        accounts.push_back(account);
      }
    }
    complete = got->complete;
  }
  std::sort(accounts.begin(), accounts.end());
  return accounts;
}

// Recovers every account of the store in `dir` and returns the open ones.
absl::StatusOr<std::vector<AccountReply>> RecoverAll(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<BankSystem>> system =
      BankSystem::Start(StoreOptions{dir, /*fsync=*/false,
                                     /*create_if_missing=*/false,
                                     /*read_only=*/true});
  if (!system.ok()) return system.status();
  const BankClient& bank = (*system)->client();
  absl::StatusOr<std::vector<int64_t>> accounts =
      AccountsInStore((*system)->system());
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

absl::Status RunBalances(const DataDir& data) {
  if (data.is_default) {
    std::fprintf(stderr, "bank balances: no --data given, using %s\n",
                 data.path.c_str());
  }
  if (absl::Status s = CheckReadableStore(data.path); !s.ok()) return s;
  // A read-only open would work beside a writer, but show the store as it
  // was at that moment, while deposits go on: `balances` promises the
  // balances of a store at rest.
  if (absl::Status s = CheckNotInUse(data.path); !s.ok()) return s;
  absl::StatusOr<std::vector<AccountReply>> balances = RecoverAll(data.path);
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
