#include "hocon/internal/resolver.h"

#include <functional>
#include <memory>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hocon/internal/merge.h"
#include "hocon/internal/path.h"

namespace cairn::hocon::internal {
namespace {

// Each level of a substitution chain costs a few stack frames; this bound
// is far beyond real configurations and keeps hostile input from
// exhausting the stack.
constexpr int kMaxDepth = 500;

// Work done resolving before giving up, counted as values resolved (each
// weighed by the length of the path it is resolved along, which its
// memo key and cycle check cost). Far beyond real configurations, which
// resolve each value about once; it keeps hostile input from running for
// hours: optional substitutions into the value they are part of (`a = x
// ${?a.p} y ${?a.q} ...`), each lookup resolving the others along a
// longer path (time exponential in their number), and anything else
// that resolves values again for each view of the document.
constexpr int64_t kMaxSteps = 200'000;

// The internal signal "this lookup came back to a substitution that is
// being resolved". It travels up to that substitution, where the cycle
// began, which turns it into "undefined" (if optional) or an error. It
// never leaves the resolver.
constexpr absl::StatusCode kCycle = absl::StatusCode::kAborted;

// Where lookups happen: the document, except that some merge stacks are
// replaced by what lies below the value being resolved. That is how a
// self-referential field sees the value it overrides.
struct Override {
  const Value* node;
  ValuePtr replacement;  // null: the field is treated as absent
  std::shared_ptr<const Override> next;
};

struct Source {
  std::shared_ptr<const Override> overrides;
  int id = 0;  // distinguishes sources in the memo (0: the document)

  // Whether `node` is replaced here, and by what.
  bool Find(const Value* node, ValuePtr* replacement) const {
    for (const Override* o = overrides.get(); o; o = o->next.get()) {
      if (o->node == node) {
        *replacement = o->replacement;
        return true;
      }
    }
    return false;
  }
};

using Restrict = std::span<const std::string>;

// How Resolve reached a value, which decides who may reuse its result.
enum class Reach {
  kInside,    // as a part of the value being resolved around it
  kByLookup,  // as what a substitution names (or the root)
  kOwnView,   // as a value of a field that refers to itself, resolved
              // with the field replaced by the values below it
};

// The first object or list in `v` (itself `depth` levels below the root)
// nested deeper than kMaxNestingDepth, or nullptr. Looks no deeper than
// that, so its own recursion is bounded.
const Value* TooDeep(const Value& v, int depth) {
  if (!v.is_object() && !v.is_list()) return nullptr;
  if (depth > kMaxNestingDepth) return &v;
  if (v.is_object()) {
    for (const auto& [key, field] : v.fields()) {
      if (const Value* deep = TooDeep(*field, depth + 1)) return deep;
    }
    return nullptr;
  }
  for (const ValuePtr& item : v.items()) {
    if (const Value* deep = TooDeep(*item, depth + 1)) return deep;
  }
  return nullptr;
}

class Resolver {
 public:
  Resolver(ValuePtr root, ValuePtr environment)
      : root_(std::move(root)), environment_(std::move(environment)) {}

  absl::StatusOr<ValuePtr> Run() {
    if (absl::Status s = ResolveFieldsWithSeveralValues(*root_); !s.ok()) {
      return s;
    }
    absl::StatusOr<ValuePtr> r = Resolve(root_, Source{}, {}, Reach::kByLookup);
    if (!r.ok()) return r.status();
    if (*r == nullptr) return Value::Object({}, root_->origin());
    // Substitutions can nest values deeper than the text could.
    if (const Value* deep = TooDeep(**r, 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          deep->origin().ToString(), ": objects and lists nested more than ",
          kMaxNestingDepth, " deep once substitutions are resolved"));
    }
    return r;
  }

 private:
  // Resolves the fields with several values (merge stacks) of `object`
  // and of the objects in it, in the order of their keys, before
  // anything else: what their self-references compute (a value that one
  // of them reaches, seeing the field replaced by its earlier values) is
  // then what every later reader gets (see Resolve), whatever the keys
  // are called (but for fields with several values set to each other,
  // where the first by key decides). `item1.b.c = 100`, `defaults { a =
  // ${item1.b.c} }`, `item1 = ${defaults}`, `item1.b = { c : 43 }`: defaults.a
  // is 100, what item1's self-reference sees, as in the reference. Objects nest
  // at most kMaxNestingDepth deep before resolution, which bounds the
  // recursion.
  absl::Status ResolveFieldsWithSeveralValues(const Value& object) {
    for (const auto& [key, field] : object.fields()) {
      if (field->resolved()) continue;
      if (field->is_object()) {
        if (absl::Status s = ResolveFieldsWithSeveralValues(*field); !s.ok()) {
          return s;
        }
      } else if (field->kind() == Kind::kMergeStack) {
        absl::StatusOr<ValuePtr> r = Resolve(field, Source{}, {});
        if (!r.ok()) return r.status();
      }
    }
    return absl::OkStatus();
  }

  // Resolves `v` as seen from `src`. With a non-empty `restrict`, objects
  // resolve only the fields along that path (the rest stay as they are):
  // that is how `a { x = 1, y = ${a.x} }` avoids a false cycle. Returns
  // null for "undefined" (an optional substitution with nothing behind
  // it).
  //
  // A value resolved while a self-reference is resolved (`src` replaces
  // some fields by the values below them) is kept for every later reader,
  // as the reference keeps it: in `a = 1, b = ${a}foo, a = ${b}`, b is
  // the "1foo" it was when a's self-reference read it. So is a field with
  // several values (a merge stack): in `a = 1, b = {c = 5}, b = ${a},
  // a = ${b}`, b is the 1 that a's self-reference saw, and a is then 1
  // too (resolving b again for each view mixed the two answers, a = 1
  // with b = {c = 5}). Two kinds of result hold for their view only: the
  // values of a self-referring field resolved with it replaced
  // (Reach::kOwnView) and their parts; and a value containing a replaced
  // field (`x` in `x { a = { p = 1 }, a = ${x.a} { r = ${x} } }`), which
  // the view changes.
  absl::StatusOr<ValuePtr> Resolve(ValuePtr v, const Source& src,
                                   Restrict restrict,
                                   Reach reach = Reach::kInside) {
    ValuePtr replacement;
    bool replaced = false;
    while (v && !v->resolved() && src.Find(v.get(), &replacement)) {
      v = replacement;
      replaced = true;
    }
    if (replaced && reach != Reach::kByLookup) MarkContainingOverride();
    if (v == nullptr || v->resolved()) return v;
    const bool own_view = reach == Reach::kOwnView ||
                          (reach == Reach::kInside && !frames_.empty() &&
                           frames_.back().own_view);
    std::string joined = absl::StrJoin(restrict, "\x1f");
    if (!own_view) {
      auto it = memo_.find(MemoKey{v.get(), kEveryView, joined});
      if (it != memo_.end()) return it->second.result;
    }
    if (auto it = memo_.find(MemoKey{v.get(), src.id, joined});
        it != memo_.end()) {
      return it->second.result;
    }
    steps_ += 1 + static_cast<int64_t>(restrict.size());
    if (steps_ > kMaxSteps) {
      return absl::InvalidArgumentError(absl::StrCat(
          v->origin().ToString(),
          ": resolving the substitutions takes more "
          "than ",
          kMaxSteps,
          " steps (substitutions that refer into the values they are part "
          "of, or through many levels of merges, resolve those values again "
          "for each lookup)"));
    }
    if (depth_ >= kMaxDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          v->origin().ToString(), ": substitutions nested more than ",
          kMaxDepth, " deep"));
    }
    ++depth_;
    frames_.push_back({reach == Reach::kByLookup, own_view, false});
    absl::StatusOr<ValuePtr> out;
    switch (v->kind()) {
      case Kind::kObject:
        out = ResolveObject(v, src, restrict);
        break;
      case Kind::kList:
        out = ResolveList(v, src);
        break;
      case Kind::kSubstitution:
        out = ResolveSubstitution(v, src, restrict);
        break;
      case Kind::kConcatenation:
        out = ResolveConcatenation(v, src, restrict);
        break;
      default:
        out = ResolveMergeStack(v, src, restrict);
        break;
    }
    --depth_;
    const bool contains_override = frames_.back().contains_override;
    frames_.pop_back();
    if (out.ok()) {
      const int view = own_view || contains_override ? src.id : kEveryView;
      memo_.emplace(MemoKey{v.get(), view, std::move(joined)}, Memo{v, *out});
    }
    return out;
  }

  // Records that the value being resolved, and each one it is a part of
  // up to the value a lookup began at, contains a field replaced in the
  // current view: what they resolve to holds for that view only.
  void MarkContainingOverride() {
    for (std::size_t i = frames_.size(); i-- > 0;) {
      // Marked before: so is everything from there to the lookup.
      if (frames_[i].contains_override) return;
      frames_[i].contains_override = true;
      if (frames_[i].lookup) return;
    }
  }

  absl::StatusOr<ValuePtr> ResolveObject(const ValuePtr& v, const Source& src,
                                         Restrict restrict) {
    Fields fields;
    if (restrict.empty()) {
      std::vector<Fields::value_type> resolved;
      resolved.reserve(v->fields().size());
      for (const auto& [key, field] : v->fields()) {
        absl::StatusOr<ValuePtr> r = Resolve(field, src, {});
        if (!r.ok()) return r.status();
        if (*r) resolved.emplace_back(key, *std::move(r));
      }
      fields = Fields::Sorted(std::move(resolved));
    } else {
      fields = v->fields();
      auto it = fields.find(restrict.front());
      if (it != fields.end()) {
        absl::StatusOr<ValuePtr> r =
            Resolve(it->second, src, restrict.subspan(1));
        if (!r.ok()) return r.status();
        if (*r) {
          it->second = *std::move(r);
        } else {
          fields.erase(it);
        }
      }
    }
    return Value::Object(std::move(fields), v->origin(),
                         v->ignores_fallbacks());
  }

  absl::StatusOr<ValuePtr> ResolveList(const ValuePtr& v, const Source& src) {
    std::vector<ValuePtr> items;
    items.reserve(v->items().size());
    for (const ValuePtr& item : v->items()) {
      absl::StatusOr<ValuePtr> r = Resolve(item, src, {});
      if (!r.ok()) return r.status();
      if (*r) items.push_back(*std::move(r));
    }
    return Value::List(std::move(items), v->origin());
  }

  absl::StatusOr<ValuePtr> ResolveSubstitution(const ValuePtr& v,
                                               const Source& src,
                                               Restrict restrict) {
    const Substitution& s = v->substitution();
    // Coming back to a substitution that is being resolved is a cycle,
    // except once for a narrower lookup: `b { x = 1, y = ${a.x} }` with
    // `a = ${b}` needs only b.x while all of b is being resolved.
    std::string narrowing = absl::StrJoin(restrict, "\x1f");
    int entries = 0;
    for (std::size_t i = 0; i < active_.size(); ++i) {
      if (active_[i].node != v.get()) continue;
      if (++entries < 2 && active_[i].restrict != narrowing) continue;
      std::vector<const Value*> chain;
      for (std::size_t j = i; j < active_.size(); ++j) {
        chain.push_back(active_[j].node);
      }
      chain.push_back(v.get());
      // The error names the innermost link, where the lookup came back.
      const Value& last = *active_.back().node;
      cycle_error_ = absl::StrCat(last.origin().ToString(), ": cannot resolve ",
                                  Render(last),
                                  ": it is part of a cycle of substitutions (",
                                  DescribeChain(chain), ")");
      cycle_start_ = i;
      return absl::Status(kCycle, "cycle");
    }
    const std::size_t frame = active_.size();
    active_.push_back({v.get(), std::move(narrowing)});
    absl::StatusOr<ValuePtr> found = Lookup(s, src, restrict);
    active_.pop_back();
    if (!found.ok()) {
      if (found.status().code() != kCycle) return found.status();
      // A cycle is decided where it begins (as in the reference, where
      // `a = ${?b}foo, b = ${a}` gives a = "foo"): undefined there if that
      // substitution is optional, else an error.
      if (cycle_start_ < frame) return found.status();
      if (s.optional) return nullptr;
      return absl::InvalidArgumentError(cycle_error_);
    }
    if (*found == nullptr && !s.optional) {
      return absl::InvalidArgumentError(absl::StrCat(
          v->origin().ToString(), ": cannot resolve ", Render(*v), ": '",
          DescribePath(Unprefixed(s)), "' is not set",
          environment_ ? " (nor is an environment variable of that name)" : "",
          "; use ${?", DescribePath(Unprefixed(s)), "} if it may be missing"));
    }
    return found;
  }

  // `${a} -> ${b} -> ${a}`; a long chain shows its ends only.
  static std::string DescribeChain(const std::vector<const Value*>& chain) {
    constexpr std::size_t kEnds = 4;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < chain.size(); ++i) {
      if (chain.size() > 3 * kEnds && i == kEnds) {
        names.push_back(
            absl::StrCat("...(", chain.size() - 2 * kEnds, " more)"));
        i = chain.size() - kEnds;
      }
      names.push_back(Render(*chain[i]));
    }
    return absl::StrJoin(names, " -> ");
  }

  static std::vector<std::string> Unprefixed(const Substitution& s) {
    return {s.path.begin() + s.prefix_length, s.path.end()};
  }

  static std::string Render(const Value& subst) {
    const Substitution& s = subst.substitution();
    return absl::StrCat("${", s.optional ? "?" : "",
                        DescribePath(Unprefixed(s)), "}");
  }

  // The value a substitution stands for (null if none): the path below
  // the include point, then from the root, then in the environment.
  absl::StatusOr<ValuePtr> Lookup(const Substitution& s, const Source& src,
                                  Restrict restrict) {
    absl::StatusOr<ValuePtr> found = LookupPath(s.path, src, restrict);
    if (!found.ok() || *found) return found;
    std::vector<std::string> unprefixed = Unprefixed(s);
    if (s.prefix_length > 0) {
      found = LookupPath(unprefixed, src, restrict);
      if (!found.ok() || *found) return found;
    }
    // Resolved already: a plain walk.
    ValuePtr in_environment = environment_;
    for (const std::string& key : unprefixed) {
      if (in_environment == nullptr || !in_environment->is_object()) {
        return nullptr;
      }
      in_environment = in_environment->Field(key);
    }
    return in_environment;
  }

  absl::StatusOr<ValuePtr> LookupPath(const std::vector<std::string>& path,
                                      const Source& src, Restrict restrict) {
    ValuePtr current = root_;
    for (std::size_t i = 0; i < path.size(); ++i) {
      ValuePtr replacement;
      while (current && !current->resolved() &&
             src.Find(current.get(), &replacement)) {
        current = replacement;
      }
      if (current == nullptr) return nullptr;
      if (current->is_unmergeable()) {
        // Resolve just enough of it to walk on.
        std::vector<std::string> rest(path.begin() + i, path.end());
        rest.insert(rest.end(), restrict.begin(), restrict.end());
        absl::StatusOr<ValuePtr> r =
            Resolve(current, src, rest, Reach::kByLookup);
        if (!r.ok() || *r == nullptr) return r;
        current = *std::move(r);
      }
      if (!current->is_object()) return nullptr;
      current = current->Field(path[i]);
      if (current == nullptr) return nullptr;
    }
    return Resolve(current, src, restrict, Reach::kByLookup);
  }

  absl::StatusOr<ValuePtr> ResolveConcatenation(const ValuePtr& v,
                                                const Source& src,
                                                Restrict restrict) {
    ValuePtr joined;
    for (const ValuePtr& piece : v->items()) {
      absl::StatusOr<ValuePtr> r = Resolve(piece, src, restrict);
      if (!r.ok()) return r.status();
      if (*r == nullptr) continue;  // ${?x} with nothing behind it
      if (joined == nullptr) {
        joined = *std::move(r);
        continue;
      }
      absl::StatusOr<ValuePtr> j = Join(joined, *r);
      if (!j.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(j.status().message(), " (in the value at ",
                         v->origin().ToString(), ")"));
      }
      joined = *std::move(j);
    }
    return joined;
  }

  // Merges a stack top down. A value that may refer to this very field
  // (a substitution or concatenation) is resolved with the field replaced
  // by the rest of the stack below it, so `a = ${a} [x]` sees the
  // previous `a`. Once the result hides everything below, the rest is
  // never evaluated.
  absl::StatusOr<ValuePtr> ResolveMergeStack(const ValuePtr& v,
                                             const Source& src,
                                             Restrict restrict) {
    return ResolveStack(v, v.get(), src, restrict);
  }

  // ResolveMergeStack for the stack `v` of the field `self` (which
  // lookups reach): `v` itself, or `self`'s stack with the value below
  // the field added at the bottom (see ResolveOver).
  absl::StatusOr<ValuePtr> ResolveStack(const ValuePtr& v, const Value* self,
                                        const Source& src, Restrict restrict) {
    const std::vector<ValuePtr>& stack = v->items();
    if (std::size_t run = AppendRun(v, self, src); run > 1) {
      return ResolveAppendRun(v, self, run, src, restrict);
    }
    ValuePtr merged;
    for (std::size_t i = 0; i < stack.size(); ++i) {
      // A field along `restrict` replaced for a self-reference stands for
      // all of the field below this point (ResolveFieldOver puts the rest
      // of the stack's field into the replacement).
      ValuePtr replacement;
      const bool replaced =
          !restrict.empty() && stack[i]->is_object() &&
          stack[i]->Field(restrict.front()) != nullptr &&
          src.Find(stack[i]->Field(restrict.front()).get(), &replacement);
      absl::StatusOr<ValuePtr> r = ResolveElement(v, self, i, src, restrict);
      if (!r.ok()) return r.status();
      if (*r == nullptr) continue;
      merged = merged ? Merge(*r, merged) : *std::move(r);
      if (merged->ignores_fallbacks() || replaced ||
          Settles(*merged, restrict)) {
        break;
      }
    }
    return merged;
  }

  // Whether `merged`, resolved along `restrict`, has there a value that
  // nothing below it can change (not an object): a restricted lookup
  // reads only that path, so the rest of the stack need not be resolved.
  // Without this, each level of nested self-references in delayed merges
  // (`dN : ${dN-1}`, `dN { x : ${dN.x} [N] }`) would resolve the levels
  // below it again, in time exponential in their number.
  static bool Settles(const Value& merged, Restrict restrict) {
    if (restrict.empty() || !merged.is_object()) return false;
    ValuePtr field = merged.Field(restrict.front());
    if (field == nullptr) return false;
    if (field->ignores_fallbacks()) return true;
    return field->is_object() && Settles(*field, restrict.subspan(1));
  }

  // Element `i` of the merge stack `v` (of the field `self`); if it may
  // refer to the field itself, with the field replaced by the stack below
  // the element. An object over more of the stack resolves its fields
  // seeing the same fields below (ResolveOver).
  absl::StatusOr<ValuePtr> ResolveElement(const ValuePtr& v, const Value* self,
                                          std::size_t i, const Source& src,
                                          Restrict restrict) {
    const std::vector<ValuePtr>& stack = v->items();
    const ValuePtr& element = stack[i];
    if (element->is_object() && !element->resolved() && i + 1 < stack.size()) {
      ValuePtr lower = StackFrom(v, i + 1);
      return ResolveOver(
          element,
          [this, lower,
           &src](const std::string& key) -> absl::StatusOr<ValuePtr> {
            absl::StatusOr<ValuePtr> r = Resolve(lower, src, Restrict(&key, 1));
            if (!r.ok()) return r;
            // Below an object, a value that is not one has no fields: the
            // object replaces it (`b = [1], b.x += 2` gives b.x = [2]).
            if (*r == nullptr || !(*r)->is_object()) return ValuePtr();
            return (*r)->Field(key);
          },
          src, restrict);
    }
    if (!element->is_unmergeable()) return Resolve(element, src, restrict);
    return ResolveSeeing(element, self, StackFrom(v, i + 1), src, restrict);
  }

  // The value of field `key` below an object in a merge stack (resolved),
  // or null.
  using LowerField =
      std::function<absl::StatusOr<ValuePtr>(const std::string& key)>;

  // The object `object`, an element of a merge stack over other values,
  // resolved so that each of its fields that refers to itself (`c : ${d}`,
  // `c { x : ${c.x} [1] }`) sees, below its own earlier values, the same
  // field of what the object is merged over (`lower`), as a field of a
  // plain object sees the earlier values of its key: as the reference
  // does. Only fields that may refer to themselves look below, so a
  // field that does not is never delayed by (or caught in a cycle with)
  // what lies below it. With `restrict`, only the field along it.
  absl::StatusOr<ValuePtr> ResolveOver(const ValuePtr& object,
                                       const LowerField& lower,
                                       const Source& src, Restrict restrict) {
    Fields fields = object->fields();
    std::vector<Fields::value_type> resolved;
    resolved.reserve(fields.size());
    for (auto& [key, field] : fields) {
      if (!restrict.empty() && key != restrict.front()) {
        resolved.emplace_back(key, std::move(field));
        continue;
      }
      Restrict below = restrict.empty() ? restrict : restrict.subspan(1);
      absl::StatusOr<ValuePtr> r =
          ResolveFieldOver(field, key, lower, src, below);
      if (!r.ok()) return r.status();
      if (*r) resolved.emplace_back(key, *std::move(r));
    }
    return Value::Object(Fields::Sorted(std::move(resolved)), object->origin(),
                         object->ignores_fallbacks());
  }

  absl::StatusOr<ValuePtr> ResolveFieldOver(const ValuePtr& field,
                                            const std::string& key,
                                            const LowerField& lower,
                                            const Source& src,
                                            Restrict restrict) {
    ValuePtr replacement;
    if (field->resolved() || src.Find(field.get(), &replacement) ||
        !MayReferToItself(*field, key, 0)) {
      return Resolve(field, src, restrict);
    }
    absl::StatusOr<ValuePtr> under = lower(key);
    if (!under.ok()) return under.status();
    if (*under == nullptr) return Resolve(field, src, restrict);
    if (field->is_object()) {
      if (!(*under)->is_object()) return Resolve(field, src, restrict);
      ValuePtr under_object = *std::move(under);
      return ResolveOver(
          field,
          [under_object](const std::string& k) -> absl::StatusOr<ValuePtr> {
            return under_object->Field(k);
          },
          src, restrict);
    }
    if (field->kind() == Kind::kMergeStack) {
      std::vector<ValuePtr> stack = field->items();
      stack.push_back(*std::move(under));
      return ResolveStack(Value::MergeStack(std::move(stack), field->origin()),
                          field.get(), src, restrict);
    }
    // A substitution or concatenation: resolved in place (not looked up,
    // which would find `under` instead), seeing `under` where it refers
    // to itself.
    Source narrowed{std::make_shared<const Override>(Override{
                        field.get(), *std::move(under), src.overrides}),
                    ++last_source_id_};
    frames_.push_back({false, true, false});
    absl::StatusOr<ValuePtr> r =
        field->kind() == Kind::kSubstitution
            ? ResolveSubstitution(field, narrowed, restrict)
            : ResolveConcatenation(field, narrowed, restrict);
    frames_.pop_back();
    return r;
  }

  // Whether `v`, the value of the field `key`, may refer to that field as
  // a self-reference does: a substitution (alone, in a concatenation or a
  // merge stack) whose path ends in `key`; for an object, whether one of
  // its fields may (a substitution inside a list never looks back).
  static bool MayReferToItself(const Value& v, const std::string& key,
                               int depth) {
    if (v.resolved() || depth > kMaxNestingDepth) return false;
    switch (v.kind()) {
      case Kind::kSubstitution:
        return !v.substitution().path.empty() &&
               v.substitution().path.back() == key;
      case Kind::kConcatenation:
      case Kind::kMergeStack:
        for (const ValuePtr& item : v.items()) {
          if (item->kind() != Kind::kList &&
              MayReferToItself(*item, key, depth + 1)) {
            return true;
          }
        }
        return false;
      case Kind::kObject:
        for (const auto& [k, field] : v.fields()) {
          if (MayReferToItself(*field, k, depth + 1)) return true;
        }
        return false;
      default:
        return false;
    }
  }

  // The elements of the merge stack `v` from `from` down as one value;
  // null when there are none.
  static ValuePtr StackFrom(const ValuePtr& v, std::size_t from) {
    const std::vector<ValuePtr>& stack = v->items();
    if (from >= stack.size()) return nullptr;
    if (from + 1 == stack.size()) return stack.back();
    return Value::MergeStack({stack.begin() + from, stack.end()},
                             stack[from]->origin());
  }

  // `element` resolved with the field `self` replaced by `below`.
  absl::StatusOr<ValuePtr> ResolveSeeing(const ValuePtr& element,
                                         const Value* self, ValuePtr below,
                                         const Source& src, Restrict restrict) {
    Source narrowed{std::make_shared<const Override>(
                        Override{self, std::move(below), src.overrides}),
                    ++last_source_id_};
    return Resolve(element, narrowed, restrict, Reach::kOwnView);
  }

  // How many elements at the top of the merge stack `v` append a resolved
  // list to the field itself: `a += x` (`a = ${?a} [x]`) or
  // `a = ${a} [x]`, where the path leads from the root to `v` through
  // objects alone. Each of them would see the stack below it, so resolving
  // them one inside the other goes as deep as the run is long (and copies
  // the stack at each level); ResolveAppendRun does it in one pass.
  std::size_t AppendRun(const ValuePtr& v, const Value* self,
                        const Source& src) const {
    const std::vector<ValuePtr>& stack = v->items();
    const std::vector<std::string>* leads_to_v = nullptr;
    std::size_t run = 0;
    for (; run < stack.size(); ++run) {
      const Value& element = *stack[run];
      if (element.kind() != Kind::kConcatenation ||
          element.items().size() != 2) {
        break;
      }
      const Value& reference = *element.items()[0];
      const Value& list = *element.items()[1];
      if (reference.kind() != Kind::kSubstitution || !list.is_list() ||
          !list.resolved()) {
        break;
      }
      const std::vector<std::string>& path = reference.substitution().path;
      if (leads_to_v == nullptr || *leads_to_v != path) {
        if (!LeadsTo(path, src, self)) break;
        leads_to_v = &path;
      }
    }
    return run;
  }

  // Whether `path` leads from the root to `node` through objects (as seen
  // from `src`), with nothing on the way to resolve.
  bool LeadsTo(const std::vector<std::string>& path, const Source& src,
               const Value* node) const {
    ValuePtr current = root_;
    for (const std::string& key : path) {
      ValuePtr replacement;
      while (current && !current->resolved() &&
             src.Find(current.get(), &replacement)) {
        current = replacement;
      }
      if (current == nullptr || !current->is_object()) return false;
      current = current->Field(key);
    }
    return current.get() == node;
  }

  // The top `run` elements of `v` (see AppendRun), as resolving each with
  // the field replaced by the stack below it would give, but in one pass.
  // The lowest sees what it would see from inside the one above it: the
  // rest of the stack or, at the bottom, itself (so its self-reference is
  // a cycle, undefined for `${?a}`, as for a single `a += x`). Its result
  // is a list (a concatenation ending in a list is one), to which each
  // element above adds its own. Nothing below the run shows through a
  // list.
  absl::StatusOr<ValuePtr> ResolveAppendRun(const ValuePtr& v,
                                            const Value* self, std::size_t run,
                                            const Source& src,
                                            Restrict restrict) {
    const std::vector<ValuePtr>& stack = v->items();
    ValuePtr below = run == stack.size() ? stack.back() : StackFrom(v, run);
    absl::StatusOr<ValuePtr> lowest =
        ResolveSeeing(stack[run - 1], self, std::move(below), src, restrict);
    if (!lowest.ok()) return lowest.status();
    std::vector<ValuePtr> items = (*lowest)->items();
    for (std::size_t i = run - 1; i-- > 0;) {
      const std::vector<ValuePtr>& more = stack[i]->items()[1]->items();
      items.insert(items.end(), more.begin(), more.end());
    }
    return Value::List(std::move(items), (*lowest)->origin());
  }

  struct Memo {
    ValuePtr keep_alive;  // the key's node must outlive its entry
    ValuePtr result;
  };
  // (value, view or kEveryView, restrict joined)
  using MemoKey = std::tuple<const Value*, int, std::string>;
  static constexpr int kEveryView = -1;
  // A value being resolved.
  struct Frame {
    bool lookup;             // reached by a lookup (Reach::kByLookup)
    bool own_view;           // resolved in its own field's view (or a part)
    bool contains_override;  // see MarkContainingOverride
  };

  ValuePtr root_;
  ValuePtr environment_;  // null: no fallback
  absl::flat_hash_map<MemoKey, Memo> memo_;
  struct Active {
    const Value* node;
    std::string restrict;  // joined as in the memo key
  };
  std::vector<Active> active_;  // substitutions being resolved
  std::vector<Frame> frames_;   // innermost last
  // The last cycle found: the error it is, and the place in active_ of
  // the substitution it began (and is decided) at.
  std::string cycle_error_;
  std::size_t cycle_start_ = 0;
  int last_source_id_ = 0;
  int depth_ = 0;
  int64_t steps_ = 0;
};

}  // namespace

absl::StatusOr<ValuePtr> Resolve(const ValuePtr& root,
                                 const ValuePtr& environment) {
  if (root->resolved()) return root;
  return Resolver(root, environment).Run();
}

}  // namespace cairn::hocon::internal
