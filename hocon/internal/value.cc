#include "hocon/internal/value.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace cairn::hocon::internal {

struct SourceName::Shared {
  std::atomic<std::size_t> references{1};
  const std::string name;
};

SourceName::SourceName(std::string name)
    : shared_(new Shared{.name = std::move(name)}) {}

SourceName::SourceName(const SourceName& other) : shared_(other.shared_) {
  if (shared_ != nullptr) {
    shared_->references.fetch_add(1, std::memory_order_relaxed);
  }
}

SourceName& SourceName::operator=(SourceName other) {
  std::swap(shared_, other.shared_);
  return *this;
}

SourceName::~SourceName() {
  if (shared_ != nullptr &&
      shared_->references.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete shared_;
  }
}

const std::string& SourceName::str() const {
  static const std::string* const kUnknown = new std::string("<unknown>");
  return shared_ != nullptr ? shared_->name : *kUnknown;
}

const std::string& Origin::file() const { return file_.str(); }

std::string Origin::ToString() const {
  if (line_ == 0) return file();
  return absl::StrCat(file(), ":", line_, ":", column_);
}

namespace {

bool KeyLess(const Fields::value_type& field, std::string_view key) {
  return field.first < key;
}

}  // namespace

Fields::Fields(std::initializer_list<value_type> fields) {
  for (const value_type& f : fields) emplace(f.first, f.second);
}

Fields Fields::Sorted(std::vector<value_type> fields) {
  Fields f;
  f.fields_ = std::move(fields);
  return f;
}

Fields::iterator Fields::find(std::string_view key) {
  auto it = std::lower_bound(fields_.begin(), fields_.end(), key, KeyLess);
  return it != fields_.end() && it->first == key ? it : fields_.end();
}

Fields::const_iterator Fields::find(std::string_view key) const {
  auto it = std::lower_bound(fields_.begin(), fields_.end(), key, KeyLess);
  return it != fields_.end() && it->first == key ? it : fields_.end();
}

std::pair<Fields::iterator, bool> Fields::emplace(std::string key,
                                                  ValuePtr value) {
  if (fields_.empty() || fields_.back().first < key) {
    fields_.emplace_back(std::move(key), std::move(value));
    return {fields_.end() - 1, true};
  }
  auto it = std::lower_bound(fields_.begin(), fields_.end(), key, KeyLess);
  if (it != fields_.end() && it->first == key) return {it, false};
  return {fields_.emplace(it, std::move(key), std::move(value)), true};
}

Value::Value(Token, Kind kind, Origin origin)
    : kind_(kind), origin_(std::move(origin)) {}

Value::~Value() {
  switch (kind_) {
    case Kind::kNull:
    case Kind::kBool:
      break;
    case Kind::kNumber:
    case Kind::kString:
      std::destroy_at(&payload_.text);
      break;
    case Kind::kList:
    case Kind::kConcatenation:
    case Kind::kMergeStack:
      std::destroy_at(&payload_.items);
      break;
    case Kind::kObject:
      std::destroy_at(&payload_.fields);
      break;
    case Kind::kSubstitution:
      std::destroy_at(&payload_.substitution);
      break;
  }
}

ValuePtr Value::Null(Origin origin) {
  auto v = std::make_shared<Value>(Token{}, Kind::kNull, std::move(origin));
  v->ignores_fallbacks_ = true;
  return v;
}

ValuePtr Value::Bool(bool value, Origin origin) {
  auto v = std::make_shared<Value>(Token{}, Kind::kBool, std::move(origin));
  v->payload_.boolean = value;
  v->ignores_fallbacks_ = true;
  return v;
}

ValuePtr Value::Number(std::string text, Origin origin) {
  auto v = std::make_shared<Value>(Token{}, Kind::kNumber, std::move(origin));
  std::construct_at(&v->payload_.text, std::move(text));
  v->ignores_fallbacks_ = true;
  return v;
}

ValuePtr Value::String(std::string value, Origin origin, StringStyle style) {
  auto v = std::make_shared<Value>(Token{}, Kind::kString, std::move(origin));
  std::construct_at(&v->payload_.text, std::move(value));
  v->style_ = style;
  v->ignores_fallbacks_ = true;
  return v;
}

ValuePtr Value::List(std::vector<ValuePtr> items, Origin origin) {
  auto v = std::make_shared<Value>(Token{}, Kind::kList, std::move(origin));
  v->resolved_ = std::all_of(items.begin(), items.end(),
                             [](const ValuePtr& i) { return i->resolved(); });
  std::construct_at(&v->payload_.items, std::move(items));
  v->ignores_fallbacks_ = true;
  return v;
}

ValuePtr Value::Object(Fields fields, Origin origin, bool ignores_fallbacks) {
  auto v = std::make_shared<Value>(Token{}, Kind::kObject, std::move(origin));
  v->resolved_ = std::all_of(fields.begin(), fields.end(), [](const auto& f) {
    return f.second->resolved();
  });
  std::construct_at(&v->payload_.fields, std::move(fields));
  v->ignores_fallbacks_ = ignores_fallbacks;
  return v;
}

ValuePtr Value::Substitution(internal::Substitution subst, Origin origin) {
  // Allocated first: once the value exists its payload must be, too.
  auto held = std::make_unique<const internal::Substitution>(std::move(subst));
  auto v =
      std::make_shared<Value>(Token{}, Kind::kSubstitution, std::move(origin));
  v->resolved_ = false;
  std::construct_at(&v->payload_.substitution, std::move(held));
  return v;
}

ValuePtr Value::Concatenation(std::vector<ValuePtr> pieces, Origin origin) {
  auto v =
      std::make_shared<Value>(Token{}, Kind::kConcatenation, std::move(origin));
  v->resolved_ = false;
  std::construct_at(&v->payload_.items, std::move(pieces));
  return v;
}

ValuePtr Value::MergeStack(std::vector<ValuePtr> stack, Origin origin) {
  auto v =
      std::make_shared<Value>(Token{}, Kind::kMergeStack, std::move(origin));
  v->resolved_ = false;
  v->ignores_fallbacks_ = stack.back()->ignores_fallbacks();
  std::construct_at(&v->payload_.items, std::move(stack));
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
