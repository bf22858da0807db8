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

// Registers the events and the snapshot of events.h as the FlatBuffers
// tables of bank_events.fbs. Returns Register's error (a manifest or type
// already taken in `registry`).
[[nodiscard]] absl::Status RegisterBankTypes(
    serialization::SerializationRegistry& registry);

// A new registry with the bank's types, for PersistenceSetup.
[[nodiscard]] absl::StatusOr<
    std::shared_ptr<const serialization::SerializationRegistry>>
NewBankSerialization();

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_SERIALIZATION_H_
