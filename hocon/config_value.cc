#include "hocon/config_value.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hocon/internal/convert.h"
#include "hocon/internal/json_writer.h"
#include "hocon/internal/value.h"

namespace cairn::hocon {
namespace {

using internal::Kind;

// Puts the value's origin in front of a conversion error.
template <typename T>
absl::StatusOr<T> Located(const internal::Value& v, absl::StatusOr<T> r) {
  if (r.ok()) return r;
  absl::StatusCode code = v.is_unmergeable()
                              ? absl::StatusCode::kFailedPrecondition
                              : r.status().code();
  return absl::Status(
      code, absl::StrCat(v.origin().ToString(), ": ", r.status().message()));
}

}  // namespace

std::string_view ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kNull:
      return "null";
    case ValueType::kBoolean:
      return "boolean";
    case ValueType::kNumber:
      return "number";
    case ValueType::kString:
      return "string";
    case ValueType::kList:
      return "list";
    case ValueType::kObject:
      return "object";
    case ValueType::kUnresolved:
      break;
  }
  return "unresolved";
}

ConfigValue::ConfigValue()
    : value_(internal::Value::Null(internal::Origin())) {}

ConfigValue::ConfigValue(std::shared_ptr<const internal::Value> value)
    : value_(std::move(value)) {}

ValueType ConfigValue::type() const {
  switch (value_->kind()) {
    case Kind::kNull:
      return ValueType::kNull;
    case Kind::kBool:
      return ValueType::kBoolean;
    case Kind::kNumber:
      return ValueType::kNumber;
    case Kind::kString:
      return ValueType::kString;
    case Kind::kList:
      return ValueType::kList;
    case Kind::kObject:
      return ValueType::kObject;
    default:
      return ValueType::kUnresolved;
  }
}

std::string ConfigValue::Origin() const { return value_->origin().ToString(); }

absl::StatusOr<std::string> ConfigValue::AsString() const {
  return Located(*value_, internal::AsString(*value_));
}

absl::StatusOr<bool> ConfigValue::AsBool() const {
  return Located(*value_, internal::AsBool(*value_));
}

absl::StatusOr<int64_t> ConfigValue::AsLong() const {
  return Located(*value_, internal::AsLong(*value_));
}

absl::StatusOr<double> ConfigValue::AsDouble() const {
  return Located(*value_, internal::AsDouble(*value_));
}

absl::StatusOr<absl::Duration> ConfigValue::AsDuration() const {
  return Located(*value_, internal::AsDuration(*value_));
}

absl::StatusOr<int64_t> ConfigValue::AsBytes() const {
  return Located(*value_, internal::AsBytes(*value_));
}

absl::StatusOr<std::vector<ConfigValue>> ConfigValue::AsList() const {
  absl::StatusOr<std::vector<internal::ValuePtr>> items =
      Located(*value_, internal::AsList(value_));
  if (!items.ok()) return items.status();
  std::vector<ConfigValue> out;
  out.reserve(items->size());
  for (internal::ValuePtr& item : *items) out.push_back(ConfigValue(item));
  return out;
}

std::vector<std::string> ConfigValue::Keys() const {
  std::vector<std::string> keys;
  if (!value_->is_object()) return keys;
  for (const auto& [key, v] : value_->fields()) keys.push_back(key);
  return keys;
}

std::optional<ConfigValue> ConfigValue::Get(std::string_view key) const {
  if (!value_->is_object()) return std::nullopt;
  internal::ValuePtr field = value_->Field(key);
  if (!field) return std::nullopt;
  return ConfigValue(std::move(field));
}

std::string ConfigValue::ToJson(JsonFormat format) const {
  return internal::RenderJson(*value_, format == JsonFormat::kPretty);
}

}  // namespace cairn::hocon
