#include "hocon/internal/value.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace cairn::hocon::internal {

const std::string& Origin::file() const {
  static const std::string* const kUnknown = new std::string("<unknown>");
  return file_ ? *file_ : *kUnknown;
}

std::string Origin::ToString() const {
  if (line_ == 0) return file();
  return absl::StrCat(file(), ":", line_, ":", column_);
}

Value::Value(Token, Kind kind, Origin origin)
    : kind_(kind), origin_(std::move(origin)) {}

ValuePtr Value::Null(Origin origin) {
  auto v = std::make_shared<Value>(Token{}, Kind::kNull, std::move(origin));
  v->ignores_fallbacks_ = true;
  return v;
}

ValuePtr Value::Bool(bool value, Origin origin) {
  auto v = std::make_shared<Value>(Token{}, Kind::kBool, std::move(origin));
  v->payload_ = value;
  v->ignores_fallbacks_ = true;
  return v;
}

ValuePtr Value::Number(std::string text, Origin origin) {
  auto v = std::make_shared<Value>(Token{}, Kind::kNumber, std::move(origin));
  v->payload_ = std::move(text);
  v->ignores_fallbacks_ = true;
  return v;
}

ValuePtr Value::String(std::string value, Origin origin, StringStyle style) {
  auto v = std::make_shared<Value>(Token{}, Kind::kString, std::move(origin));
  v->payload_ = std::move(value);
  v->style_ = style;
  v->ignores_fallbacks_ = true;
  return v;
}

ValuePtr Value::List(std::vector<ValuePtr> items, Origin origin) {
  auto v = std::make_shared<Value>(Token{}, Kind::kList, std::move(origin));
  v->resolved_ = std::all_of(items.begin(), items.end(),
                             [](const ValuePtr& i) { return i->resolved(); });
  v->payload_ = std::move(items);
  v->ignores_fallbacks_ = true;
  return v;
}

ValuePtr Value::Object(Fields fields, Origin origin, bool ignores_fallbacks) {
  auto v = std::make_shared<Value>(Token{}, Kind::kObject, std::move(origin));
  v->resolved_ = std::all_of(fields.begin(), fields.end(), [](const auto& f) {
    return f.second->resolved();
  });
  v->payload_ = std::move(fields);
  v->ignores_fallbacks_ = ignores_fallbacks;
  return v;
}

ValuePtr Value::Substitution(internal::Substitution subst, Origin origin) {
  auto v =
      std::make_shared<Value>(Token{}, Kind::kSubstitution, std::move(origin));
  v->resolved_ = false;
  v->payload_ = std::move(subst);
  return v;
}

ValuePtr Value::Concatenation(std::vector<ValuePtr> pieces, Origin origin) {
  auto v =
      std::make_shared<Value>(Token{}, Kind::kConcatenation, std::move(origin));
  v->resolved_ = false;
  v->payload_ = std::move(pieces);
  return v;
}

ValuePtr Value::MergeStack(std::vector<ValuePtr> stack, Origin origin) {
  auto v =
      std::make_shared<Value>(Token{}, Kind::kMergeStack, std::move(origin));
  v->resolved_ = false;
  v->ignores_fallbacks_ = stack.back()->ignores_fallbacks();
  v->payload_ = std::move(stack);
  return v;
}

ValuePtr Value::Field(std::string_view key) const {
  const Fields& f = fields();
  auto it = f.find(key);
  return it == f.end() ? nullptr : it->second;
}

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "boolean";
    case Kind::kNumber:
      return "number";
    case Kind::kString:
      return "string";
    case Kind::kList:
      return "list";
    case Kind::kObject:
      return "object";
    case Kind::kSubstitution:
    case Kind::kConcatenation:
    case Kind::kMergeStack:
      break;
  }
  return "unresolved value";
}

}  // namespace cairn::hocon::internal
