#include "examples/bank/serialization.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "examples/bank/bank_events_generated.h"
#include "examples/bank/events.h"
#include "examples/bank/protocol.h"
#include "serialization/flatbuffers_serialization.h"
#include "serialization/json_serialization.h"

namespace cairn::examples::bank {
namespace {

using flatbuffers::FlatBufferBuilder;
using serialization::RegisterFlatBuffersTable;
using serialization::RegisterJson;

}  // namespace

// The messages and the deposits client's events as JSON (their fields by
// name): a field added later with a
// default reads as it from a process of an older version.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DepositRequested, index,
                                                account, amount)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DepositAnswered, delivery_id)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OpenAccount, account)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Deposit, account, amount,
                                                deposit_id)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Withdraw, account, amount)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GetBalance, account)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TakeSnapshot, account)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AccountReply, outcome, account,
                                                reason, amount, open, balance,
                                                last_sequence_nr,
                                                snapshot_sequence_nr,
                                                replayed_events, deposit_id,
                                                duplicate)

absl::Status RegisterBankTypes(serialization::SerializationRegistry& registry) {
  absl::Status status = RegisterFlatBuffersTable<Opened, fb::Opened>(
      registry, kOpenedManifest,
      [](FlatBufferBuilder& b, const Opened&) { return fb::CreateOpened(b); },
      [](const fb::Opened&) -> absl::StatusOr<Opened> { return Opened{}; });
  if (!status.ok()) return status;
  status = RegisterFlatBuffersTable<Deposited, fb::DepositedV2>(
      registry, kDepositedManifest,
      [](FlatBufferBuilder& b, const Deposited& e) {
        return fb::CreateDepositedV2(
            b, e.amount,
            e.balance ? flatbuffers::Optional<int64_t>(*e.balance)
                      : flatbuffers::nullopt,
            e.deposit_id.empty() ? 0 : b.CreateString(e.deposit_id));
      },
      [](const fb::DepositedV2& t) -> absl::StatusOr<Deposited> {
        std::optional<int64_t> balance;
        if (t.balance().has_value()) balance = t.balance().value();
        std::string id;
        if (t.deposit_id() != nullptr) id = t.deposit_id()->str();
        return Deposited{t.amount(), balance, std::move(id)};
      },
      {{kDepositedV1Manifest,
        serialization::FlatBuffersDecoder<Deposited, fb::Deposited>(
            kDepositedV1Manifest,
            [](const fb::Deposited& t) -> absl::StatusOr<Deposited> {
              return Deposited{t.amount(), std::nullopt};
            })}});
  if (!status.ok()) return status;
  status = RegisterFlatBuffersTable<Withdrawn, fb::Withdrawn>(
      registry, kWithdrawnManifest,
      [](FlatBufferBuilder& b, const Withdrawn& e) {
        return fb::CreateWithdrawn(b, e.amount);
      },
      [](const fb::Withdrawn& t) -> absl::StatusOr<Withdrawn> {
        return Withdrawn{t.amount()};
      });
  if (!status.ok()) return status;
  status = RegisterJson<DepositRequested>(registry, kDepositRequestedManifest);
  if (!status.ok()) return status;
  status = RegisterJson<DepositAnswered>(registry, kDepositAnsweredManifest);
  if (!status.ok()) return status;
  return RegisterFlatBuffersTable<AccountSnapshot, fb::AccountState>(
      registry, kAccountSnapshotManifest,
      [](FlatBufferBuilder& b, const AccountSnapshot& s) {
        flatbuffers::Offset<
            flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>
            ids = 0;
        if (!s.deposit_ids.empty())
          ids = b.CreateVectorOfStrings(s.deposit_ids);
        return fb::CreateAccountState(b, s.open, s.balance, ids);
      },
      [](const fb::AccountState& t) -> absl::StatusOr<AccountSnapshot> {
        std::vector<std::string> ids;
        if (t.deposit_ids() != nullptr) {
          for (const flatbuffers::String* id : *t.deposit_ids()) {
            ids.push_back(id->str());
          }
        }
        return AccountSnapshot{t.open(), t.balance(), std::move(ids)};
      });
}

absl::Status RegisterBankMessages(
    serialization::SerializationRegistry& registry) {
  absl::Status status =
      RegisterJson<OpenAccount>(registry, kOpenAccountManifest);
  if (!status.ok()) return status;
  status = RegisterJson<Deposit>(registry, kDepositManifest);
  if (!status.ok()) return status;
  status = RegisterJson<Withdraw>(registry, kWithdrawManifest);
  if (!status.ok()) return status;
  status = RegisterJson<GetBalance>(registry, kGetBalanceManifest);
  if (!status.ok()) return status;
  status = RegisterJson<TakeSnapshot>(registry, kTakeSnapshotManifest);
  if (!status.ok()) return status;
  return RegisterJson<AccountReply>(registry, kAccountReplyManifest);
}

absl::StatusOr<std::shared_ptr<const serialization::SerializationRegistry>>
NewBankSerialization() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  if (absl::Status s = RegisterBankTypes(*registry); !s.ok()) return s;
  if (absl::Status s = RegisterBankMessages(*registry); !s.ok()) return s;
  return std::shared_ptr<const serialization::SerializationRegistry>(
      std::move(registry));
}

}  // namespace cairn::examples::bank
