#include "examples/bank/client.h"

#include <deque>

#include "absl/strings/str_cat.h"
#include "actor/future.h"

namespace cairn::examples::bank {
namespace {

// Balance requests in flight at once.
constexpr size_t kWindow = 256;

absl::Status Check(const AccountReply& r) {
  if (r.outcome == AccountReply::Outcome::kDone) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat("account ", r.account, ": ", r.reason));
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ListAllAccounts(
    const actor::ActorRef& bank, absl::Duration timeout) {
  try {
    return actor::Ask<AccountList>(bank, ListAccounts{}, timeout)
        .get()
        .accounts;
  } catch (const std::exception& e) {
    return absl::DeadlineExceededError(e.what());
  }
}

absl::StatusOr<std::vector<AccountReply>> GetAllBalances(
    const actor::ActorRef& bank, absl::Duration timeout) {
  absl::StatusOr<std::vector<int64_t>> accounts =
      ListAllAccounts(bank, timeout);
  if (!accounts.ok()) return accounts.status();
  std::vector<AccountReply> balances;
  balances.reserve(accounts->size());
  std::deque<actor::Future<AccountReply>> in_flight;
  size_t next = 0;
  while (balances.size() < accounts->size()) {
    while (next < accounts->size() && in_flight.size() < kWindow) {
      in_flight.push_back(actor::Ask<AccountReply>(
          bank, GetBalance{(*accounts)[next++]}, timeout));
    }
    try {
      balances.push_back(in_flight.front().get());
    } catch (const std::exception& e) {
      return absl::DeadlineExceededError(e.what());
    }
    in_flight.pop_front();
    if (absl::Status s = Check(balances.back()); !s.ok()) return s;
  }
  return balances;
}

}  // namespace cairn::examples::bank
