#include "examples/bank/depositor.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "sharding/entity_region.h"

namespace cairn::examples::bank {

using persistence::RecoveryCompleted;
using persistence::UnconfirmedWarning;

Depositor::Depositor(std::string name, actor::ActorRef accounts,
                     DepositorListener listener)
    : name_(std::move(name)),
      accounts_(std::move(accounts)),
      listener_(std::move(listener)) {
  Recover<DepositRequested>([this](const DepositRequested& e) { Apply(e); });
  Recover<DepositAnswered>([this](const DepositAnswered& e) {
    unanswered_.erase(e.delivery_id);
    if (ConfirmDelivery(e.delivery_id)) ++answered_before_;
  });
  Recover<RecoveryCompleted>([](const RecoveryCompleted&) {});

  Command<StartDeposits>([this](const StartDeposits& s) {
    start_ = s;
    started_ = true;
    RequestMore();
    FinishIfDone();
  });
  Command<AccountReply>([this](const AccountReply& r) {
    absl::string_view id_text = r.deposit_id;
    int64_t id = 0;
    if (!absl::ConsumePrefix(&id_text, name_ + "/") ||
        !absl::SimpleAtoi(id_text, &id)) {
      return;  // not one of ours
    }
    // A failure is no answer: the deposit is sent again.
    if (r.outcome == AccountReply::Outcome::kFailed) return;
    if (!unanswered_.contains(id) || !answering_.insert(id).second) return;
    // PersistAsync: the answers that come meanwhile (and the redelivery
    // ticks) are not held back behind each write, so many are written
    // together and redelivery goes on under load.
    PersistAsync(DepositAnswered{id},
                 [this, reply = r](const DepositAnswered& e) {
                   answering_.erase(e.delivery_id);
                   unanswered_.erase(e.delivery_id);
                   if (ConfirmDelivery(e.delivery_id) && listener_.answered) {
                     listener_.answered(e.delivery_id, reply);
                   }
                   RequestMore();
                   FinishIfDone();
                 });
  });
  // Not answers either: the deposit is sent again.
  Command<sharding::ShardUnavailable>([](const sharding::ShardUnavailable&) {});
  Command<UnconfirmedWarning>([this](const UnconfirmedWarning& w) {
    if (listener_.waiting) {
      listener_.waiting(static_cast<int64_t>(w.unconfirmed.size()));
    }
  });
}

void Depositor::Apply(const DepositRequested& e) {
  requested_ = std::max(requested_, e.index + 1);
  Deliver(accounts_, [&](int64_t delivery_id) {
    unanswered_.insert(delivery_id);
    return Deposit{e.account, e.amount, absl::StrCat(name_, "/", delivery_id)};
  });
}

void Depositor::RequestMore() {
  if (!started_ || requesting_) return;
  const int64_t room = kDepositWindow - NumberOfUnconfirmed();
  // In batches of half the window at least, so that each write carries
  // many.
  if (requested_ >= start_.ops || room < kDepositWindow / 2) return;
  std::vector<DepositRequested> batch;
  for (int64_t i = requested_;
       i < start_.ops && static_cast<int64_t>(batch.size()) < room; ++i) {
    batch.push_back(DepositRequested{i, i % start_.accounts, i + 1});
  }
  requesting_ = true;
  const int64_t last = batch.back().index;
  PersistAll(std::move(batch), [this, last](const DepositRequested& e) {
    Apply(e);
    if (e.index == last) {
      requesting_ = false;
      RequestMore();
    }
  });
}

void Depositor::FinishIfDone() {
  if (finished_ || !started_ || requesting_ || requested_ < start_.ops ||
      NumberOfUnconfirmed() != 0) {
    return;
  }
  finished_ = true;
  if (listener_.finished) listener_.finished(answered_before_);
}

}  // namespace cairn::examples::bank
