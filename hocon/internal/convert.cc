#include "hocon/internal/convert.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hocon/internal/excerpt.h"
#include "hocon/internal/json_string.h"
#include "hocon/internal/json_writer.h"
#include "hocon/internal/merge.h"
#include "hocon/internal/number.h"
#include "hocon/internal/string_view.h"
#include "hocon/internal/unicode.h"
#include "hocon/units.h"

namespace cairn::hocon::internal {
namespace {

absl::Status WrongType(const Value& v, std::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("expected ", Av(expected), ", found ", Describe(v)));
}

// The number text a value stands for, if any.
std::optional<std::string> NumberText(const Value& v) {
  if (v.kind() == Kind::kNumber) return v.text();
  if (v.kind() == Kind::kString) {
    return StringAsNumberText(TrimWhitespace(v.text()));
  }
  return std::nullopt;
}

// A number value as the string the unit parsers read.
absl::StatusOr<std::string> UnitText(const Value& v, std::string_view what) {
  if (v.kind() == Kind::kNumber || v.kind() == Kind::kString) return v.text();
  return WrongType(v, what);
}

}  // namespace

std::string Describe(const Value& v) {
  if (v.is_unmergeable()) return "a value that is not resolved yet";
  switch (v.kind()) {
    case Kind::kNull:
      return "null";
    case Kind::kObject:
      return "an object";
    case Kind::kList:
      return "a list";
    case Kind::kString:
      return absl::StrCat("a string (", JsonQuote(Excerpt(v.text())), ")");
    case Kind::kNumber:
      return absl::StrCat("a number (", Excerpt(v.text()), ")");
    default:
      return absl::StrCat("a ", Av(KindName(v.kind())), " (",
                          RenderJson(v, /*pretty=*/false), ")");
  }
}

absl::StatusOr<std::string> AsString(const Value& v) {
  switch (v.kind()) {
    case Kind::kString:
    case Kind::kNumber:
      return v.text();
    case Kind::kBool:
      return std::string(v.boolean() ? "true" : "false");
    default:
      return WrongType(v, "a string");
  }
}

absl::StatusOr<bool> AsBool(const Value& v) {
  if (v.kind() == Kind::kBool) return v.boolean();
  if (v.kind() == Kind::kString) {
    const std::string& s = v.text();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  return WrongType(v, "a boolean (true/yes/on or false/no/off)");
}

absl::StatusOr<int64_t> AsLong(const Value& v) {
  std::optional<std::string> text = NumberText(v);
  if (!text) return WrongType(v, "a number");
  if (IsIntegerText(*text)) {
    if (!IsIntegerSyntax(*text)) {
      return absl::InvalidArgumentError(
          absl::StrCat(Excerpt(*text), " is out of the 64-bit integer range"));
    }
    return NumberAsLong(*text);
  }
  double d = NumberAsDouble(*text);
  if (!std::isfinite(d) || d >= 9223372036854775808.0 ||
      d < -9223372036854775808.0) {
    return absl::InvalidArgumentError(
        absl::StrCat(Excerpt(*text), " is out of the 64-bit integer range"));
  }
  return NumberAsLong(*text);
}

absl::StatusOr<double> AsDouble(const Value& v) {
  std::optional<std::string> text = NumberText(v);
  if (!text) return WrongType(v, "a number");
  return NumberAsDouble(*text);
}

absl::StatusOr<absl::Duration> AsDuration(const Value& v) {
  absl::StatusOr<std::string> text = UnitText(v, "a duration");
  if (!text.ok()) return text.status();
  return ParseDuration(*text);
}

absl::StatusOr<int64_t> AsBytes(const Value& v) {
  if (v.kind() == Kind::kNumber) return AsLong(v);
  absl::StatusOr<std::string> text = UnitText(v, "a size in bytes");
  if (!text.ok()) return text.status();
  return ParseBytes(*text);
}

absl::StatusOr<std::vector<ValuePtr>> AsList(const ValuePtr& v) {
  if (v->is_list()) return v->items();
  if (v->is_object()) {
    if (ValuePtr list = NumericObjectToList(v)) return list->items();
  }
  return WrongType(*v, "a list");
}

}  // namespace cairn::hocon::internal
