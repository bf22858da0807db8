#ifndef CAIRN_SERIALIZATION_JSON_SERIALIZATION_H_
#define CAIRN_SERIALIZATION_JSON_SERIALIZATION_H_

// Events, snapshots and messages stored as JSON, with no byte code of your
// own: Akka's Jackson JSON serializer, over Debian's nlohmann::json
// (nlohmann-json3-dev). Describe a type once, beside it, with nlohmann's
// macro, then register it under a manifest:
//
//   struct Deposited {
//     int64_t amount = 0;
//     std::string note;
//   };
//   NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Deposited, amount, note)
//
//   absl::Status s = RegisterJson<Deposited>(registry, "bank.Deposited");
//
// The bytes are the compact JSON text, {"amount":100,"note":"rent"}: any
// tool reads them, and journal_tool's dump shows them. Schema evolution
// (docs/SCHEMA_EVOLUTION.md): with the _WITH_DEFAULT macro a field added
// later reads as its default from what was stored before it, and a field
// removed is ignored when read; without it, a missing field fails the read.
// A change the defaults cannot bridge (a renamed field, a split type) is an
// older manifest with a decoder of its own (OlderManifest; FromJson reads
// the old shape).
//
// Why JSON and not a memcpy of trivially copyable structs: the bytes must
// outlive the binary that wrote them (padding, endianness and field order
// are the compiler's), and a record must say what it holds when read back.
// A type nlohmann cannot describe (no to_json / from_json) does not compile.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "serialization/serialization.h"

namespace cairn::serialization {

// `value` as compact JSON. InvalidArgument with nlohmann's reason if it
// cannot be (a string that is not UTF-8): a journal rejects such an event.
template <typename T>
absl::StatusOr<std::string> ToJson(const T& value) {
  try {
    return nlohmann::json(value).dump();
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("not JSON: ", e.what()));
  }
}

// The T in `bytes`. DataLoss with nlohmann's reason (which names the byte
// or the key) if they are not JSON, or not a T (a field of another type, a
// missing field the type gives no default for). `name` (the manifest) goes
// into the error.
template <typename T>
absl::StatusOr<T> FromJson(std::string_view bytes, std::string_view name) {
  nlohmann::json json =
      nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr,
                            /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::DataLossError(
        absl::StrCat("'", absl::string_view(name.data(), name.size()),
                     "': the bytes are not JSON (", bytes.size(), " bytes)"));
  }
  try {
    return json.get<T>();
  } catch (const nlohmann::json::exception& e) {
    return absl::DataLossError(
        absl::StrCat("'", absl::string_view(name.data(), name.size()),
                     "': not the stored type: ", e.what()));
  }
}

// Registers T, stored as JSON, under `manifest` (and `older` manifests, as
// SerializationRegistry::Register, whose errors this returns).
template <typename T>
[[nodiscard]] absl::Status RegisterJson(
    SerializationRegistry& registry, std::string manifest,
    std::vector<SerializationRegistry::OlderManifest<T>> older = {}) {
  SerializationRegistry::Decoder<T> decode =
      [name = manifest](std::string_view bytes) {
        return FromJson<T>(bytes, name);
      };
  return registry.Register<T>(
      std::move(manifest), [](const T& value) { return ToJson(value); },
      std::move(decode), std::move(older));
}

}  // namespace cairn::serialization

#endif  // CAIRN_SERIALIZATION_JSON_SERIALIZATION_H_
