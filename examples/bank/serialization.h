#ifndef CAIRN_EXAMPLES_BANK_SERIALIZATION_H_
#define CAIRN_EXAMPLES_BANK_SERIALIZATION_H_

#include <memory>

#include "absl/status/statusor.h"
#include "serialization/serialization.h"

namespace cairn::examples::bank {

// The manifests the events and the snapshot are stored under. They name
// the stored form, not the C++ type: keep them when renaming a struct, and
// bump the version when a change is not backward compatible.
inline constexpr char kOpenedManifest[] = "bank.Opened.v1";
inline constexpr char kDepositedManifest[] = "bank.Deposited.v2";
// What deposits were stored under before: still read (schema evolution,
// docs/SCHEMA_EVOLUTION.md), as a Deposited without a balance.
inline constexpr char kDepositedV1Manifest[] = "bank.Deposited.v1";
inline constexpr char kWithdrawnManifest[] = "bank.Withdrawn.v1";
inline constexpr char kAccountSnapshotManifest[] = "bank.AccountState.v1";
// A deposits client's events (JSON).
inline constexpr char kDepositRequestedManifest[] = "bank.DepositRequested.v1";
inline constexpr char kDepositAnsweredManifest[] = "bank.DepositAnswered.v1";

// The account commands and their reply (protocol.h), between the
// processes of a cluster: JSON, by field name.
inline constexpr char kOpenAccountManifest[] = "bank.OpenAccount";
inline constexpr char kDepositManifest[] = "bank.Deposit";
inline constexpr char kWithdrawManifest[] = "bank.Withdraw";
inline constexpr char kGetBalanceManifest[] = "bank.GetBalance";
inline constexpr char kTakeSnapshotManifest[] = "bank.TakeSnapshot";
inline constexpr char kAccountReplyManifest[] = "bank.AccountReply";

// Registers the events and the snapshot of events.h: an account's as the
// FlatBuffers tables of bank_events.fbs, a deposits client's as JSON. Returns
// Register's error (a manifest or type already taken in `registry`).
[[nodiscard]] absl::Status RegisterBankTypes(
    serialization::SerializationRegistry& registry);

// Registers the account commands and AccountReply (protocol.h), for
// remoting. Register's error, as above.
[[nodiscard]] absl::Status RegisterBankMessages(
    serialization::SerializationRegistry& registry);

// A new registry with the bank's types and messages, for PersistenceSetup
// and remote::RemoteSetup.
[[nodiscard]] absl::StatusOr<
    std::shared_ptr<const serialization::SerializationRegistry>>
NewBankSerialization();

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_SERIALIZATION_H_
