#ifndef CAIRN_PERSISTENCE_STORAGE_FLATBUFFERS_SERIALIZATION_H_
#define CAIRN_PERSISTENCE_STORAGE_FLATBUFFERS_SERIALIZATION_H_

// One-line registration of events and snapshots defined in a FlatBuffers
// schema (`.fbs`, compiled with flatbuffers_cc_library from
// //persistence/storage:flatbuffers.bzl). The bytes are verified with a
// flatbuffers::Verifier before they are unpacked, so a damaged record is a
// DataLoss status, never a wild read.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "flatbuffers/flatbuffers.h"
#include "persistence/storage/plugin_support/aligned_bytes.h"
#include "persistence/storage/serialization.h"

namespace cairn::persistence {
namespace internal {

// The root table of `bytes` (which must be aligned: AlignedBytes), or null
// if they are not a valid FlatBuffer of that table.
template <typename Table>
const Table* VerifiedRoot(const AlignedBytes& bytes) {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!verifier.VerifyBuffer<Table>(nullptr)) return nullptr;
  return flatbuffers::GetRoot<Table>(bytes.data());
}

inline std::string DetachedBytes(
    const flatbuffers::FlatBufferBuilder& builder) {
  return std::string(reinterpret_cast<const char*>(builder.GetBufferPointer()),
                     builder.GetSize());
}

}  // namespace internal

// For a table compiled with the object API (flatc --gen-object-api, i.e.
// flatbuffers_cc_library(object_api = True)): `Native` is the generated
// native type, e.g. `DepositedT` for `table Deposited`. Usage:
//   RegisterFlatBuffers<bank::DepositedT>(registry, "bank.Deposited.v1");
template <typename Native>
[[nodiscard]] absl::Status RegisterFlatBuffers(SerializationRegistry& registry,
                                               std::string manifest) {
  using Table = typename Native::TableType;
  std::string name = manifest;
  return registry.Register<Native>(
      std::move(manifest),
      [](const Native& value) -> absl::StatusOr<std::string> {
        flatbuffers::FlatBufferBuilder builder;
        builder.Finish(Table::Pack(builder, &value));
        return internal::DetachedBytes(builder);
      },
      [name =
           std::move(name)](std::string_view bytes) -> absl::StatusOr<Native> {
        const internal::AlignedBytes aligned(bytes);
        const Table* table = internal::VerifiedRoot<Table>(aligned);
        if (table == nullptr) {
          return absl::DataLossError(
              absl::StrCat("'", name, "': bytes are not a valid FlatBuffer"));
        }
        Native value;
        table->UnPackTo(&value);
        return value;
      });
}

// For any C++ type `T` stored as the FlatBuffers table `Table`, with the
// conversion written by hand. Both template arguments are explicit:
//   RegisterFlatBuffersTable<Deposit, bank::Deposited>(registry, "deposit",
//       [](flatbuffers::FlatBufferBuilder& b, const Deposit& d) {
//         return bank::CreateDeposited(b, d.amount); },
//       [](const bank::Deposited& t) -> absl::StatusOr<Deposit> {
//         return Deposit{t.amount()}; });
template <typename T, typename Table>
[[nodiscard]] absl::Status RegisterFlatBuffersTable(
    SerializationRegistry& registry, std::string manifest,
    std::function<flatbuffers::Offset<Table>(flatbuffers::FlatBufferBuilder&,
                                             const T&)>
        pack,
    std::function<absl::StatusOr<T>(const Table&)> unpack) {
  if (!pack || !unpack) {
    return absl::InvalidArgumentError(
        "RegisterFlatBuffersTable needs both a pack and an unpack function");
  }
  std::string name = manifest;
  return registry.Register<T>(
      std::move(manifest),
      [pack = std::move(pack)](const T& value) -> absl::StatusOr<std::string> {
        flatbuffers::FlatBufferBuilder builder;
        builder.Finish(pack(builder, value));
        return internal::DetachedBytes(builder);
      },
      [unpack = std::move(unpack),
       name = std::move(name)](std::string_view bytes) -> absl::StatusOr<T> {
        const internal::AlignedBytes aligned(bytes);
        const Table* table = internal::VerifiedRoot<Table>(aligned);
        if (table == nullptr) {
          return absl::DataLossError(
              absl::StrCat("'", name, "': bytes are not a valid FlatBuffer"));
        }
        return unpack(*table);
      });
}

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_FLATBUFFERS_SERIALIZATION_H_
