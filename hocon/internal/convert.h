#ifndef CAIRN_HOCON_INTERNAL_CONVERT_H_
#define CAIRN_HOCON_INTERNAL_CONVERT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "hocon/internal/value.h"

namespace cairn::hocon::internal {

// Reads a value as a type, with the automatic conversions of HOCON's API
// recommendations (and the reference implementation where they are
// silent). Errors are InvalidArgument describing the problem only; the
// callers add the origin and path. A null or unresolved value is an error
// here too; callers that treat them specially check first.

// Strings; numbers as written; booleans as "true"/"false".
absl::StatusOr<std::string> AsString(const Value& v);
// Booleans; the strings true/yes/on and false/no/off.
absl::StatusOr<bool> AsBool(const Value& v);
// Numbers (a fraction is truncated toward zero, as the reference does) and
// strings holding a number.
absl::StatusOr<int64_t> AsLong(const Value& v);
absl::StatusOr<double> AsDouble(const Value& v);
// Numbers are milliseconds (or bytes); strings may carry a unit.
absl::StatusOr<absl::Duration> AsDuration(const Value& v);
absl::StatusOr<int64_t> AsBytes(const Value& v);
// Lists, and objects with numeric keys (`a.0 = x`, `a.1 = y`).
absl::StatusOr<std::vector<ValuePtr>> AsList(const ValuePtr& v);

// "a string (\"abc\")", "a list", ... for error messages.
std::string Describe(const Value& v);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_CONVERT_H_
