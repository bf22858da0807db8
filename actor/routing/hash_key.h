#ifndef CAIRN_ACTOR_ROUTING_HASH_KEY_H_
#define CAIRN_ACTOR_ROUTING_HASH_KEY_H_

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/hash/hash.h"

namespace cairn::actor::routing {

// Whether T is an std::optional.
template <typename T>
struct IsStdOptional : std::false_type {};
template <typename T>
struct IsStdOptional<std::optional<T>> : std::true_type {};

// Keys hashed by value, the same everywhere (see HashKey).
template <typename T>
concept IntegerKey = std::is_integral_v<T> || std::is_enum_v<T>;

// Keys hashed by absl::Hash, within one process (see HashKey). Not text,
// and not an optional: an std::optional<std::string> must convert to an
// std::optional<HashKey> (nullopt staying nullopt), not be a key itself.
template <typename T>
concept AbslHashedKey =
    !IntegerKey<T> && !std::is_convertible_v<const T&, std::string_view> &&
    !IsStdOptional<T>::value && requires(const T& v) {
  absl::Hash<T>{}(v);
};

// A consistent-hashing key of any type (Akka hashes any key), reduced to
// the 64-bit point it takes on the hash ring. Converts implicitly from
//   - text (std::string, std::string_view, const char*): FNV-1a of its
//     bytes with a final mix (StableHash). The same in every process and
//     build, as it was when keys could only be strings;
//   - an integer or enum: its value as 8 little-endian bytes, hashed as
//     above. The same in every process and build, and the same for every
//     integer type of one value (int 7 and uint64_t 7 are one key);
//   - any other type with an AbslHashValue overload or a std::hash
//     specialization (or a tuple, pair, container of those): absl::Hash.
//     Stable within one process only: absl::Hash is seeded per process,
//     and neither it nor std::hash promises the same value in another
//     build. Keys that must map alike in several processes (a cluster)
//     should be text or integers.
// A value type; thread-safe as any const value.
class HashKey {
 public:
  // NOLINTBEGIN(google-explicit-constructor): keys convert as Akka's Any.
  HashKey(std::string_view text) : hash_(StableHash(text)) {}
  HashKey(const std::string& text) : hash_(StableHash(text)) {}
  HashKey(const char* text) : hash_(StableHash(text)) {}
  template <IntegerKey T>
  HashKey(T value) : hash_(IntegerHash(value)) {}
  template <AbslHashedKey T>
  HashKey(const T& value) : hash_(absl::Hash<T>{}(value)) {}
  // NOLINTEND(google-explicit-constructor)

  // The key's point on the ring.
  uint64_t hash() const { return hash_; }

  // The hash of text (see above); ConsistentHashingRoutingLogic::Hash.
  static uint64_t StableHash(std::string_view text);

  friend bool operator==(const HashKey& a, const HashKey& b) {
    return a.hash_ == b.hash_;
  }

 private:
  template <typename T>
  static uint64_t IntegerHash(T value) {
    uint64_t bits;
    if constexpr (std::is_enum_v<T>) {
      bits = IntegerBits(static_cast<std::underlying_type_t<T>>(value));
    } else {
      bits = IntegerBits(value);
    }
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(bits >> (8 * i));
    return StableHash(std::string_view(bytes, sizeof(bytes)));
  }
  // Signed values widen with their sign, so -1 is one key in every type.
  template <typename I>
  static uint64_t IntegerBits(I value) {
    if constexpr (std::is_signed_v<I>) {
      return static_cast<uint64_t>(static_cast<int64_t>(value));
    } else {
      return static_cast<uint64_t>(value);
    }
  }

  uint64_t hash_;
};

}  // namespace cairn::actor::routing

#endif  // CAIRN_ACTOR_ROUTING_HASH_KEY_H_
