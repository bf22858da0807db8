#include "hocon/internal/merge.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hocon/internal/string_view.h"

namespace cairn::hocon::internal {
namespace {

ValuePtr MergeObjects(const ValuePtr& fallback, const ValuePtr& over) {
  // Both are sorted by key: one pass over the two.
  const Fields& below = fallback->fields();
  const Fields& above = over->fields();
  std::vector<Fields::value_type> fields;
  fields.reserve(below.size() + above.size());
  auto b = below.begin();
  auto a = above.begin();
  while (b != below.end() || a != above.end()) {
    if (a == above.end() || (b != below.end() && b->first < a->first)) {
      fields.push_back(*b++);
    } else if (b == below.end() || a->first < b->first) {
      fields.push_back(*a++);
    } else {
      fields.emplace_back(a->first, Merge(b->second, a->second));
      ++a;
      ++b;
    }
  }
  // An object that replaced a non-object keeps hiding what was behind it.
  return Value::Object(Fields::Sorted(std::move(fields)), over->origin(),
                       fallback->ignores_fallbacks());
}

// `over` (unresolved, or an object over something unresolved) on top of
// `fallback`, as one flat stack. An object over a stack whose top is an
// object merges into it, so that each key has one value there: `b =
// ${c}`, `b.x += 1`, `b.x += 2` gives b = [{x = [${?b.x} [1], ${?b.x}
// [2]]}, ${c}], where x's appends see each other and then c.x. (As two
// objects, the self-reference of the lower x would look up b.x through
// the upper one, and see it.) Values below one that ignores fallbacks
// can never show, so they are dropped: they are never evaluated.
ValuePtr Stack(const ValuePtr& fallback, const ValuePtr& over) {
  std::vector<ValuePtr> stack;
  auto add = [&stack](const ValuePtr& v) {
    if (v->kind() == Kind::kMergeStack) {
      stack.insert(stack.end(), v->items().begin(), v->items().end());
    } else {
      stack.push_back(v);
    }
  };
  if (over->is_object() && fallback->kind() == Kind::kMergeStack &&
      fallback->items().front()->is_object()) {
    stack.push_back(MergeObjects(fallback->items().front(), over));
    stack.insert(stack.end(), fallback->items().begin() + 1,
                 fallback->items().end());
  } else {
    add(over);
    add(fallback);
  }
  auto hiding = std::find_if(stack.begin(), stack.end(), [](const ValuePtr& v) {
    return v->ignores_fallbacks();
  });
  if (hiding != stack.end()) stack.erase(hiding + 1, stack.end());
  if (stack.size() == 1) return stack.front();
  return Value::MergeStack(std::move(stack), over->origin());
}

bool IsWhitespace(const Value& v) {
  return v.kind() == Kind::kString &&
         v.string_style() == StringStyle::kWhitespace;
}

bool IsContainer(const Value& v) { return v.is_list() || v.is_object(); }

// Sorts `entries` by key, keeping the order of equal keys, through an
// index (8 bytes an entry) rather than a copy of the entries.
void SortByKey(FieldEntries& entries) {
  auto key_order = [&entries](std::size_t a, std::size_t b) {
    int c = entries[a].first.compare(entries[b].first);
    return c != 0 ? c < 0 : a < b;
  };
  bool sorted = true;
  for (std::size_t i = 1; i < entries.size() && sorted; ++i) {
    sorted = key_order(i - 1, i);
  }
  if (sorted) return;
  std::vector<std::size_t> order(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), key_order);
  // Entry i is to receive entry order[i]: follow each cycle of the
  // permutation once, marking the places filled.
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] == i) continue;
    auto held = std::move(entries[i]);
    std::size_t j = i;
    while (order[j] != i) {
      std::size_t from = order[j];
      entries[j] = std::move(entries[from]);
      order[j] = j;
      j = from;
    }
    entries[j] = std::move(held);
    order[j] = j;
  }
}

// The objects `objects` merged in one pass, key by key.
ValuePtr MergeObjectRun(std::span<const ValuePtr> objects,
                        bool ignores_fallbacks) {
  if (objects.size() == 1 &&
      objects.front()->ignores_fallbacks() == ignores_fallbacks) {
    return objects.front();
  }
  FieldEntries entries;
  for (const ValuePtr& o : objects) {
    for (const auto& [key, value] : o->fields())
      entries.emplace_back(key, value);
  }
  return Value::Object(FieldsOf(std::move(entries)), objects.back()->origin(),
                       ignores_fallbacks);
}

}  // namespace

ValuePtr MergeAll(std::span<const ValuePtr> values) {
  // Merge(x, v) is v itself when v ignores fallbacks: start at the last.
  std::size_t start = values.size() - 1;
  while (start > 0 && !values[start]->ignores_fallbacks()) --start;
  if (start + 1 == values.size()) return values.back();
  // After `start` everything is an object or unresolved. Objects merge
  // with each other (and replace a non-object below them) until the first
  // unresolved value; that one and everything after it go on one stack.
  std::size_t end = start + 1;
  if (!values[start]->is_unmergeable()) {
    while (end < values.size() && values[end]->is_object()) ++end;
  }
  ValuePtr base;
  if (values[start]->is_object()) {
    base = MergeObjectRun(values.subspan(start, end - start),
                          values[start]->ignores_fallbacks());
  } else if (end > start + 1) {
    base = MergeObjectRun(values.subspan(start + 1, end - start - 1),
                          /*ignores_fallbacks=*/true);
  } else {
    base = values[start];
  }
  if (end == values.size()) return base;
  // The stack bottom first. Objects that come right after an object
  // merge into it, as in Stack (so each key has one value there): they
  // wait in `run` and merge in one pass.
  std::vector<ValuePtr> up;
  std::vector<ValuePtr> run;
  auto flush = [&up, &run] {
    if (run.size() == 1) up.push_back(run.front());
    if (run.size() > 1) {
      up.push_back(MergeObjectRun(run, run.front()->ignores_fallbacks()));
    }
    run.clear();
  };
  auto push = [&](const ValuePtr& v) {
    if (v->is_object()) {
      if (run.empty() && !up.empty() && up.back()->is_object()) {
        run.push_back(std::move(up.back()));
        up.pop_back();
      }
      run.push_back(v);
      return;
    }
    flush();
    if (v->kind() == Kind::kMergeStack) {
      up.insert(up.end(), v->items().rbegin(), v->items().rend());
    } else {
      up.push_back(v);
    }
  };
  push(base);
  for (std::size_t i = end; i < values.size(); ++i) push(values[i]);
  flush();
  std::vector<ValuePtr> stack(up.rbegin(), up.rend());
  // As in Stack: nothing below a value that ignores fallbacks can show.
  auto hiding = std::find_if(stack.begin(), stack.end(), [](const ValuePtr& v) {
    return v->ignores_fallbacks();
  });
  if (hiding != stack.end()) stack.erase(hiding + 1, stack.end());
  if (stack.size() == 1) return stack.front();
  return Value::MergeStack(std::move(stack), values.back()->origin());
}

Fields FieldsOf(FieldEntries entries) {
  SortByKey(entries);
  // Each key once, in place: `kept` entries are done.
  std::size_t kept = 0;
  std::vector<ValuePtr> same_key;
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t j = i + 1;
    while (j < entries.size() && entries[j].first == entries[i].first) ++j;
    if (j > i + 1) {
      same_key.clear();
      for (std::size_t k = i; k < j; ++k) {
        same_key.push_back(std::move(entries[k].second));
      }
      entries[i].second = MergeAll(same_key);
    }
    if (kept != i) entries[kept] = std::move(entries[i]);
    ++kept;
    i = j;
  }
  entries.resize(kept);
  // A small object gets a vector of its size; a large one keeps what it
  // grew (the unused end of a large allocation is never touched, so it
  // takes no memory, while copying it would double the peak).
  if (entries.capacity() > entries.size() && entries.size() < 1024) {
    entries.shrink_to_fit();
  }
  return Fields::Sorted(std::move(entries));
}

ValuePtr Merge(const ValuePtr& fallback, const ValuePtr& over) {
  if (over->ignores_fallbacks()) return over;
  if (over->is_object()) {
    if (fallback->is_object()) return MergeObjects(fallback, over);
    if (!fallback->is_unmergeable()) {
      return Value::Object(over->fields(), over->origin(),
                           /*ignores_fallbacks=*/true);
    }
  }
  return Stack(fallback, over);
}

std::string ConcatenationText(const Value& simple) {
  switch (simple.kind()) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return simple.boolean() ? "true" : "false";
    default:
      return simple.text();
  }
}

absl::StatusOr<ValuePtr> Join(const ValuePtr& left_in,
                              const ValuePtr& right_in) {
  ValuePtr left = left_in;
  ValuePtr right = right_in;
  if (left->is_object() && right->is_list()) {
    if (ValuePtr l = NumericObjectToList(left)) left = l;
  } else if (left->is_list() && right->is_object()) {
    if (ValuePtr r = NumericObjectToList(right)) right = r;
  }
  if (left->is_object() && right->is_object()) return Merge(left, right);
  if (left->is_list() && right->is_list()) {
    std::vector<ValuePtr> items = left->items();
    items.insert(items.end(), right->items().begin(), right->items().end());
    return Value::List(std::move(items), left->origin());
  }
  if (IsContainer(*left) && IsWhitespace(*right)) return left;
  if (IsWhitespace(*left) && IsContainer(*right)) return right;
  if (left->is_unmergeable() || right->is_unmergeable()) return nullptr;
  if (IsContainer(*left) || IsContainer(*right)) {
    return absl::InvalidArgumentError(absl::StrCat(
        left->origin().ToString(), ": cannot concatenate a ",
        Av(KindName(left->kind())), " with a ", Av(KindName(right->kind())),
        " (only objects with objects, lists with lists, or simple values "
        "with simple values)"));
  }
  StringStyle style = IsWhitespace(*left) && IsWhitespace(*right)
                          ? StringStyle::kWhitespace
                          : StringStyle::kUnquoted;
  return Value::String(ConcatenationText(*left) + ConcatenationText(*right),
                       left->origin(), style);
}

absl::StatusOr<ValuePtr> Concatenate(std::vector<ValuePtr> pieces) {
  std::vector<ValuePtr> joined;
  joined.reserve(pieces.size());
  for (ValuePtr& piece : pieces) {
    if (!joined.empty()) {
      absl::StatusOr<ValuePtr> j = Join(joined.back(), piece);
      if (!j.ok()) return j.status();
      if (*j != nullptr) {
        joined.back() = *std::move(j);
        continue;
      }
    }
    joined.push_back(std::move(piece));
  }
  if (joined.size() == 1) return joined.front();
  Origin origin = joined.front()->origin();
  return Value::Concatenation(std::move(joined), std::move(origin));
}

ValuePtr Relativize(const ValuePtr& value,
                    const std::vector<std::string>& prefix) {
  if (value->resolved() || prefix.empty()) return value;
  switch (value->kind()) {
    case Kind::kSubstitution: {
      Substitution s = value->substitution();
      s.path.insert(s.path.begin(), prefix.begin(), prefix.end());
      s.prefix_length += prefix.size();
      return Value::Substitution(std::move(s), value->origin());
    }
    case Kind::kObject: {
      std::vector<Fields::value_type> fields;
      fields.reserve(value->fields().size());
      for (const auto& [key, v] : value->fields()) {
        fields.emplace_back(key, Relativize(v, prefix));
      }
      return Value::Object(Fields::Sorted(std::move(fields)), value->origin(),
                           value->ignores_fallbacks());
    }
    default: {
      std::vector<ValuePtr> items;
      items.reserve(value->items().size());
      for (const ValuePtr& v : value->items()) {
        items.push_back(Relativize(v, prefix));
      }
      if (value->kind() == Kind::kList) {
        return Value::List(std::move(items), value->origin());
      }
      if (value->kind() == Kind::kConcatenation) {
        return Value::Concatenation(std::move(items), value->origin());
      }
      return Value::MergeStack(std::move(items), value->origin());
    }
  }
}

ValuePtr NumericObjectToList(const ValuePtr& object) {
  std::vector<std::pair<int32_t, ValuePtr>> indexed;
  for (const auto& [key, value] : object->fields()) {
    // Integer.parseInt's syntax, as the reference uses: an optional '+'
    // and digits (no spaces); negative keys are skipped.
    std::string_view digits = key;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    int32_t index;
    if (!digits.empty() &&
        std::all_of(digits.begin(), digits.end(),
                    [](char c) { return c >= '0' && c <= '9'; }) &&
        absl::SimpleAtoi(Av(digits), &index)) {
      indexed.emplace_back(index, value);
    }
  }
  if (indexed.empty()) return nullptr;
  std::stable_sort(
      indexed.begin(), indexed.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ValuePtr> items;
  items.reserve(indexed.size());
  for (auto& [index, value] : indexed) items.push_back(std::move(value));
  return Value::List(std::move(items), object->origin());
}

}  // namespace cairn::hocon::internal
