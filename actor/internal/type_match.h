#ifndef CAIRN_ACTOR_INTERNAL_TYPE_MATCH_H_
#define CAIRN_ACTOR_INTERNAL_TYPE_MATCH_H_

#include <type_traits>
#include <typeindex>
#include <typeinfo>

#include "actor/internal/payload.h"

namespace cairn::actor::internal {

// Remembers, per (value type, wanted type), whether the first derives from
// the second, so the slow test below runs once per pair. Thread-safe.
// Returns -1 when the pair is unknown.
int LookupDerivation(std::type_index value, std::type_index wanted);
void RecordDerivation(std::type_index value, std::type_index wanted,
                      bool derives);

// The value as a `const T*` when its type is T or derives publicly from T;
// nullptr otherwise. Exact types cost one type_info comparison. Base-class
// matches are looked for only when T is a polymorphic class (has virtual
// functions, as message hierarchies meant for matching by base do); they go
// through a thrown pointer (the only portable way to test
// derivation between types known at different places), once per type pair
// for a mismatch and on every call for a match.
template <typename T>
const T* PayloadAs(const Payload& payload) {
  if (payload.type() == typeid(T)) return static_cast<const T*>(payload.raw());
  if constexpr (!std::is_polymorphic_v<T> || std::is_final_v<T>) {
    return nullptr;
  } else {
    std::type_index value(payload.type());
    std::type_index wanted(typeid(T));
    if (LookupDerivation(value, wanted) == 0) return nullptr;
    try {
      payload.ThrowPointer();
    } catch (const T* p) {
      RecordDerivation(value, wanted, true);
      return p;
    } catch (...) {
    }
    RecordDerivation(value, wanted, false);
    return nullptr;
  }
}

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_TYPE_MATCH_H_
