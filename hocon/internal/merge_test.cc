#include "hocon/internal/merge.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/internal/json_writer.h"

namespace cairn::hocon::internal {
namespace {

Origin O() { return Origin(SourceName("m"), 1, 1); }
ValuePtr Num(const char* n) { return Value::Number(n, O()); }
ValuePtr Str(const char* s) { return Value::String(s, O()); }
ValuePtr Ws(const char* s) {
  return Value::String(s, O(), StringStyle::kWhitespace);
}
ValuePtr Obj(std::initializer_list<Fields::value_type> f) {
  return Value::Object(Fields(f), O());
}
ValuePtr Ref(const char* key) {
  return Value::Substitution({{key}, false, 0}, O());
}
std::string J(const ValuePtr& v) { return RenderJson(*v, false); }

TEST(MergeTest, ObjectsMergeKeyByKeyAndLaterScalarsWin) {
  EXPECT_EQ(J(Merge(Obj({{"a", Num("1")}, {"b", Obj({{"x", Num("1")}})}}),
                    Obj({{"b", Obj({{"y", Num("2")}})}, {"c", Num("3")}}))),
            R"({"a":1,"b":{"x":1,"y":2},"c":3})");
  EXPECT_EQ(J(Merge(Obj({{"a", Num("1")}}), Num("2"))), "2");
  EXPECT_EQ(J(Merge(Num("2"), Obj({{"a", Num("1")}}))), R"({"a":1})");
}

// The spec's example: an intermediate non-object hides the objects on
// either side of it from each other, however the merges are grouped.
TEST(MergeTest, NonObjectsHideWhatIsBehindThem) {
  ValuePtr x = Obj({{"x", Num("1")}});
  ValuePtr n = Num("42");
  ValuePtr y = Obj({{"y", Num("2")}});
  // x over 42 over y: first pair x with 42, then the result with y.
  EXPECT_EQ(J(Merge(y, Merge(n, x))), R"({"x":1})");
  // x over y over 42.
  EXPECT_EQ(J(Merge(n, Merge(y, x))), R"({"x":1,"y":2})");
  EXPECT_TRUE(Merge(n, x)->ignores_fallbacks());
}

std::string Shape(const ValuePtr& v);

TEST(MergeTest, UnresolvedValuesMakeAStack) {
  ValuePtr stack = Merge(Obj({{"a", Num("1")}}), Ref("b"));
  ASSERT_EQ(stack->kind(), Kind::kMergeStack);
  EXPECT_EQ(stack->items().size(), 2u);
  // An object over a stack joins it on top.
  ValuePtr taller = Merge(stack, Obj({{"c", Num("3")}}));
  ASSERT_EQ(taller->kind(), Kind::kMergeStack);
  EXPECT_EQ(taller->items().size(), 3u);
  // Below a value that ignores fallbacks nothing is kept.
  ValuePtr cut = Merge(Num("5"), Ref("b"));
  ASSERT_EQ(cut->kind(), Kind::kMergeStack);
  EXPECT_EQ(cut->items().size(), 2u);
  EXPECT_EQ(Merge(Obj({}), cut)->items().size(), 2u);
}

// Objects over the same unresolved value merge into one, so that each key
// has one value (one stack) above it: a self-reference in one of them
// then sees the others' values of its key below it, not above.
TEST(MergeTest, ObjectsOverAStackMergeIntoItsTopObject) {
  ValuePtr stack = Merge(Ref("c"), Obj({{"x", Ref("x")}}));
  ValuePtr more = Merge(stack, Obj({{"x", Ref("x")}, {"y", Num("1")}}));
  ASSERT_EQ(more->kind(), Kind::kMergeStack);
  ASSERT_EQ(more->items().size(), 2u);
  EXPECT_EQ(more->items()[0]->Field("x")->kind(), Kind::kMergeStack);
  const std::vector<ValuePtr> values = {
      Ref("c"), Obj({{"x", Ref("x")}}),
      Obj({{"x", Ref("x")}, {"y", Num("1")}})};
  EXPECT_EQ(Shape(MergeAll(values)), Shape(more));
}

// The tree with what JSON leaves out: kinds, and which values ignore
// fallbacks.
std::string Shape(const ValuePtr& v) {
  std::string out = absl::StrCat(static_cast<int>(v->kind()),
                                 v->ignores_fallbacks() ? "!" : "", "(");
  if (v->is_object()) {
    for (const auto& [key, field] : v->fields()) {
      absl::StrAppend(&out, key, ":", Shape(field), ",");
    }
  } else if (v->is_list() || v->is_unmergeable()) {
    if (v->kind() == Kind::kSubstitution) return J(v);
    for (const ValuePtr& item : v->items())
      absl::StrAppend(&out, Shape(item), ",");
  } else {
    out += J(v);
  }
  return out + ")";
}

// MergeAll is Merge folded, for every sequence of up to four of these
// values: objects (nested, replacing), scalars, substitutions and stacks.
TEST(MergeTest, MergeAllIsMergeFolded) {
  const std::vector<ValuePtr> samples = {
      Obj({{"a", Num("1")}, {"b", Obj({{"x", Num("1")}})}}),
      Obj({{"b", Obj({{"y", Ref("r")}})}, {"c", Num("3")}}),
      Value::Object({{"a", Num("9")}}, O(), /*ignores_fallbacks=*/true),
      Num("42"),
      Ref("s"),
      Merge(Num("5"), Ref("t")),
      Merge(Obj({{"d", Num("4")}}), Ref("u")),
      Merge(Ref("v"), Obj({{"b", Obj({{"z", Ref("w")}})}})),
  };
  std::vector<std::size_t> pick;
  std::function<void()> each = [&] {
    if (!pick.empty()) {
      std::vector<ValuePtr> values;
      for (std::size_t i : pick) values.push_back(samples[i]);
      ValuePtr folded = values.front();
      for (std::size_t i = 1; i < values.size(); ++i) {
        folded = Merge(folded, values[i]);
      }
      std::string which;
      for (std::size_t i : pick) absl::StrAppend(&which, i, " ");
      EXPECT_EQ(Shape(MergeAll(values)), Shape(folded)) << which;
    }
    if (pick.size() == 4) return;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      pick.push_back(i);
      each();
      pick.pop_back();
    }
  };
  each();
}

TEST(MergeTest, FieldsOfMergesRepeatedKeysInOrder) {
  Fields f = FieldsOf({{"b", Num("1")},
                       {"a", Obj({{"x", Num("1")}})},
                       {"b", Num("2")},
                       {"a", Obj({{"y", Num("2")}})},
                       {"c", Ref("r")},
                       {"b", Num("3")},
                       {"c", Num("4")}});
  EXPECT_EQ(J(Value::Object(std::move(f), O())),
            R"({"a":{"x":1,"y":2},"b":3,"c":4})");
}

TEST(MergeTest, JoinRules) {
  EXPECT_EQ(J(*Join(Str("a"), Num("1.50"))), R"("a1.50")");
  EXPECT_EQ(J(*Join(Value::Bool(true, O()), Value::Null(O()))),
            R"("truenull")");
  EXPECT_EQ(
      J(*Join(Value::List({Num("1")}, O()), Value::List({Num("2")}, O()))),
      "[1,2]");
  EXPECT_EQ(J(*Join(Value::List({Num("1")}, O()), Ws(" "))), "[1]");
  EXPECT_EQ(J(*Join(Ws(" "), Obj({}))), "{}");
  EXPECT_EQ(*Join(Ref("a"), Str("x")), nullptr);
  absl::StatusOr<ValuePtr> bad = Join(Obj({}), Str("x"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "m:1:1: cannot concatenate a object with a string"),
            std::string::npos);
  // A numerically indexed object joins a list as a list.
  EXPECT_EQ(J(*Join(Obj({{"1", Num("2")}, {"0", Num("1")}}),
                    Value::List({Num("3")}, O()))),
            "[1,2,3]");
}

TEST(MergeTest, ConcatenateJoinsWhatItCan) {
  absl::StatusOr<ValuePtr> v =
      Concatenate({Str("a"), Ws(" "), Str("b"), Ws(" "), Ref("c"), Str("d")});
  ASSERT_OK(v);
  ASSERT_EQ((*v)->kind(), Kind::kConcatenation);
  EXPECT_EQ((*v)->items().size(), 3u);
  EXPECT_EQ((*v)->items()[0]->text(), "a b ");
  EXPECT_EQ(J(*Concatenate({Num("1")})), "1");
}

TEST(MergeTest, RelativizeMovesSubstitutionsBelowAPrefix) {
  ValuePtr v = Obj({{"a", Ref("x")}, {"b", Value::List({Ref("y")}, O())}});
  ValuePtr moved = Relativize(v, {"p", "q"});
  const Substitution& s = moved->Field("a")->substitution();
  EXPECT_EQ(s.path, (std::vector<std::string>{"p", "q", "x"}));
  EXPECT_EQ(s.prefix_length, 2u);
  EXPECT_EQ(J(moved), R"({"a":"${p.q.x}","b":["${p.q.y}"]})");
  ValuePtr resolved = Obj({{"a", Num("1")}});
  EXPECT_EQ(Relativize(resolved, {"p"}), resolved);  // shared, not copied
}

TEST(MergeTest, NumericObjectToList) {
  ValuePtr o = Obj({{"2", Str("c")},
                    {"0", Str("a")},
                    {"10", Str("d")},
                    {"x", Str("ignored")},
                    {"-1", Str("ignored")},
                    {"+1", Str("b")}});
  EXPECT_EQ(J(NumericObjectToList(o)), R"(["a","b","c","d"])");
  EXPECT_EQ(NumericObjectToList(Obj({{"x", Num("1")}})), nullptr);
  EXPECT_EQ(NumericObjectToList(Obj({{" 1", Num("1")}})), nullptr);
}

}  // namespace
}  // namespace cairn::hocon::internal
