#ifndef CAIRN_HOCON_CONFIG_VALUE_H_
#define CAIRN_HOCON_CONFIG_VALUE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cairn::hocon {

namespace internal {
class Value;
}

enum class ValueType {
  kNull,
  kBoolean,
  kNumber,
  kString,
  kList,
  kObject,
  // Only in a config that has not been resolved: a substitution, or a
  // value built from one.
  kUnresolved,
};

// "null", "boolean", "number", "string", "list", "object", "unresolved".
std::string_view ValueTypeName(ValueType type);

enum class JsonFormat {
  kCompact,  // one line
  kPretty,   // indented by two spaces
};

// One value of a configuration. Immutable, cheap to copy (it shares the
// tree it belongs to), safe to read from any thread.
//
// The As* conversions follow HOCON's API recommendations: numbers and
// booleans read as strings, strings such as "42" or "yes" read as numbers
// or booleans; nothing converts to or from an object, and only a list or
// an object with numeric keys reads as a list. A conversion that does not
// apply is InvalidArgument with "file:line:column: problem"; a value that
// is not resolved yet is FailedPrecondition.
class ConfigValue {
 public:
  ConfigValue();  // null

  ValueType type() const;
  bool IsNull() const { return type() == ValueType::kNull; }
  // Where the value was written: "file:line:column".
  std::string Origin() const;

  absl::StatusOr<std::string> AsString() const;
  absl::StatusOr<bool> AsBool() const;  // true/yes/on, false/no/off
  // A fraction is truncated toward zero (as the reference implementation
  // does); beyond int64 is an error.
  absl::StatusOr<int64_t> AsLong() const;
  absl::StatusOr<double> AsDouble() const;
  // A number is milliseconds; a string may carry a unit (see units.h).
  absl::StatusOr<absl::Duration> AsDuration() const;
  // A number is bytes; a string may carry a unit (see units.h).
  absl::StatusOr<int64_t> AsBytes() const;
  absl::StatusOr<std::vector<ConfigValue>> AsList() const;

  // The keys of an object, sorted; empty for other types.
  std::vector<std::string> Keys() const;
  // The field `key` of an object (a single key, not a path); nullopt when
  // absent or when this is not an object.
  std::optional<ConfigValue> Get(std::string_view key) const;

  // Object keys sorted; numbers as written where that is valid JSON.
  std::string ToJson(JsonFormat format = JsonFormat::kCompact) const;

 private:
  friend class Config;
  explicit ConfigValue(std::shared_ptr<const internal::Value> value);

  std::shared_ptr<const internal::Value> value_;  // never null
};

}  // namespace cairn::hocon

#endif  // CAIRN_HOCON_CONFIG_VALUE_H_
