#ifndef CAIRN_HOCON_INTERNAL_MERGE_H_
#define CAIRN_HOCON_INTERNAL_MERGE_H_

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hocon/internal/value.h"

namespace cairn::hocon::internal {

// The one merge rule of HOCON, used for duplicate keys, includes, object
// concatenation and Config::WithFallback: `over` wins; two objects merge
// key by key; a non-object hides everything behind it. When either side
// is still unresolved the result is a merge stack that the resolver
// finishes.
ValuePtr Merge(const ValuePtr& fallback, const ValuePtr& over);

// Merge folded over `values`, lowest priority first (Merge(Merge(v0, v1),
// v2)...), in time linear in their total size however many there are: a
// key written N times (`a += x` N times, `a.kN = N`) must not cost N^2.
// `values` must not be empty.
ValuePtr MergeAll(std::span<const ValuePtr> values);

// An object's fields as written, in order: a key written more than once
// gets its values merged by MergeAll (the later ones win).
using FieldEntries = std::vector<std::pair<std::string, ValuePtr>>;
Fields FieldsOf(FieldEntries entries);

// Joins two adjacent pieces of a value concatenation: objects merge, lists
// append, simple values become one string. Returns null when a piece is
// unresolved (the join waits for the resolver) and InvalidArgument when an
// object or list meets a simple value.
absl::StatusOr<ValuePtr> Join(const ValuePtr& left, const ValuePtr& right);

// Joins what can be joined now; a single remaining piece is the value
// itself, several make a Concatenation. `pieces` must not be empty.
absl::StatusOr<ValuePtr> Concatenate(std::vector<ValuePtr> pieces);

// The text a simple value contributes to a string concatenation (numbers
// as written, "true", "null", ...).
std::string ConcatenationText(const Value& simple);

// Moves the substitutions of an included file below `prefix`, the path of
// the object that includes it.
ValuePtr Relativize(const ValuePtr& value,
                    const std::vector<std::string>& prefix);

// An object whose keys are non-negative integers, as a list ordered by
// key (other keys ignored); null when it has no such key. This is how
// `a.0 = x, a.1 = y` (typically from .properties) reads as a list.
ValuePtr NumericObjectToList(const ValuePtr& object);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_MERGE_H_
