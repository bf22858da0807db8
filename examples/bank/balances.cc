// `bank balances`: every account's balance, recovered from a private copy
// of the store so that reading never changes it (see store_copy.h).
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/client.h"
#include "examples/bank/commands.h"
#include "examples/bank/data_dir.h"
#include "examples/bank/store_copy.h"

namespace cairn::examples::bank {

absl::Status RunBalances(const DataDir& data) {
  if (data.is_default) {
    std::fprintf(stderr, "bank balances: no --data given, using %s\n",
                 data.path.c_str());
  }
  if (absl::Status s = CheckReadableStore(data.path); !s.ok()) return s;
  if (absl::Status s = CheckNotInUse(data.path); !s.ok()) return s;
  absl::StatusOr<StoreCopy> copy = StoreCopy::Make(data.path);
  if (!copy.ok()) return copy.status();
  // Errors name the store the user gave, not the copy.
  auto in_user_terms = [&](const absl::Status& s) {
    return absl::Status(s.code(),
                        absl::StrReplaceAll(std::string(s.message()),
                                            {{copy->path(), data.path}}));
  };

  std::vector<AccountReply> balances;
  {
    absl::StatusOr<std::unique_ptr<BankSystem>> system =
        BankSystem::Start(StoreOptions{copy->path(), /*fsync=*/false,
                                       /*create_if_missing=*/false},
                          kCallTimeout);
    if (!system.ok()) return in_user_terms(system.status());
    absl::StatusOr<std::vector<AccountReply>> all =
        GetAllBalances((*system)->bank());
    if (!all.ok()) return in_user_terms(all.status());
    balances = *std::move(all);
  }  // the actor system (and the store copy's database) closes here

  // Only once every account is recovered: a failure prints no partial list.
  for (const AccountReply& b : balances) {
    std::printf("%lld %lld %lld\n", static_cast<long long>(b.account),
                static_cast<long long>(b.balance),
                static_cast<long long>(b.last_sequence_nr));
  }
  std::fflush(stdout);
  return absl::OkStatus();
}

}  // namespace cairn::examples::bank
