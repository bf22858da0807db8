#ifndef CAIRN_SERIALIZATION_FLATBUFFERS_SERIALIZATION_H_
#define CAIRN_SERIALIZATION_FLATBUFFERS_SERIALIZATION_H_

// One-line registration of events and snapshots defined in a FlatBuffers
// schema (`.fbs`, compiled with flatbuffers_cc_library from
// //serialization:flatbuffers.bzl). The bytes are verified with a
// flatbuffers::Verifier before they are unpacked, so a damaged record is a
// DataLoss status, never a wild read.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/aligned_bytes.h"
#include "flatbuffers/flatbuffers.h"
#include "serialization/serialization.h"

namespace cairn::serialization {
namespace internal {

// The root table of `bytes` (which must be aligned: AlignedBytes), or null
// if they are not a valid FlatBuffer of that table.
template <typename Table>
const Table* VerifiedRoot(const base::AlignedBytes& bytes) {
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

// Reads the bytes of the FlatBuffers table `Table` (verified first) into a
// T with `unpack`: the decoder of an older manifest whose bytes are another
// table (SerializationRegistry::OlderManifest), e.g.
//   {"shop.ItemAdded.v1", FlatBuffersDecoder<ItemAdded, fb::ItemAddedV1>(
//        "shop.ItemAdded.v1", [](const fb::ItemAddedV1& t) { ... })}
// `name` (the manifest) goes into the DataLoss error for invalid bytes.
template <typename T, typename Table>
SerializationRegistry::Decoder<T> FlatBuffersDecoder(
    std::string name, std::function<absl::StatusOr<T>(const Table&)> unpack) {
  return [unpack = std::move(unpack),
          name = std::move(name)](std::string_view bytes) -> absl::StatusOr<T> {
    const base::AlignedBytes aligned(bytes);
    const Table* table = internal::VerifiedRoot<Table>(aligned);
    if (table == nullptr) {
      return absl::DataLossError(
          absl::StrCat("'", name, "': bytes are not a valid FlatBuffer"));
    }
    return unpack(*table);
  };
}

// For a table compiled with the object API (flatc --gen-object-api, i.e.
// flatbuffers_cc_library(object_api = True)): `Native` is the generated
// native type, e.g. `ItemAddedT` for `table ItemAdded`. Usage:
//   RegisterFlatBuffers<shop::ItemAddedT>(registry, "shop.ItemAdded.v2",
//       {{"shop.ItemAdded.v1", FlatBuffersDecoder<...>(...)}});
template <typename Native>
[[nodiscard]] absl::Status RegisterFlatBuffers(
    SerializationRegistry& registry, std::string manifest,
    std::vector<SerializationRegistry::OlderManifest<Native>> older = {}) {
  using Table = typename Native::TableType;
  SerializationRegistry::Decoder<Native> decode =
      FlatBuffersDecoder<Native, Table>(
          manifest, [](const Table& table) -> absl::StatusOr<Native> {
            Native value;
            table.UnPackTo(&value);
            return value;
          });
  return registry.Register<Native>(
      std::move(manifest),
      [](const Native& value) -> absl::StatusOr<std::string> {
        flatbuffers::FlatBufferBuilder builder;
        builder.Finish(Table::Pack(builder, &value));
        return internal::DetachedBytes(builder);
      },
      std::move(decode), std::move(older));
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
    std::function<absl::StatusOr<T>(const Table&)> unpack,
    std::vector<SerializationRegistry::OlderManifest<T>> older = {}) {
  if (!pack || !unpack) {
    return absl::InvalidArgumentError(
        "RegisterFlatBuffersTable needs both a pack and an unpack function");
  }
  SerializationRegistry::Decoder<T> decode =
      FlatBuffersDecoder<T, Table>(manifest, std::move(unpack));
  return registry.Register<T>(
      std::move(manifest),
      [pack = std::move(pack)](const T& value) -> absl::StatusOr<std::string> {
        flatbuffers::FlatBufferBuilder builder;
        builder.Finish(pack(builder, value));
        return internal::DetachedBytes(builder);
      },
      std::move(decode), std::move(older));
}

}  // namespace cairn::serialization

#endif  // CAIRN_SERIALIZATION_FLATBUFFERS_SERIALIZATION_H_
