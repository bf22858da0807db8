#include "examples/bank/serialization.h"

#include <cstdint>
#include <optional>
#include <utility>

#include "examples/bank/bank_events_generated.h"
#include "examples/bank/events.h"
#include "serialization/flatbuffers_serialization.h"

namespace cairn::examples::bank {
namespace {

using flatbuffers::FlatBufferBuilder;
using serialization::RegisterFlatBuffersTable;

}  // namespace

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
                      : flatbuffers::nullopt);
      },
      [](const fb::DepositedV2& t) -> absl::StatusOr<Deposited> {
        std::optional<int64_t> balance;
        if (t.balance().has_value()) balance = t.balance().value();
        return Deposited{t.amount(), balance};
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
  return RegisterFlatBuffersTable<AccountSnapshot, fb::AccountState>(
      registry, kAccountSnapshotManifest,
      [](FlatBufferBuilder& b, const AccountSnapshot& s) {
        return fb::CreateAccountState(b, s.open, s.balance);
      },
      [](const fb::AccountState& t) -> absl::StatusOr<AccountSnapshot> {
        return AccountSnapshot{t.open(), t.balance()};
      });
}

absl::StatusOr<std::shared_ptr<const serialization::SerializationRegistry>>
NewBankSerialization() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  if (absl::Status s = RegisterBankTypes(*registry); !s.ok()) return s;
  return std::shared_ptr<const serialization::SerializationRegistry>(
      std::move(registry));
}

}  // namespace cairn::examples::bank
