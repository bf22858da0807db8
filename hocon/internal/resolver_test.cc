#include "hocon/internal/resolver.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/internal/json_writer.h"
#include "hocon/internal/merge.h"
#include "hocon/internal/parser.h"
#include "hocon/internal/properties.h"

namespace cairn::hocon::internal {
namespace {

absl::StatusOr<ValuePtr> Resolved(std::string_view text,
                                  const ValuePtr& env = nullptr) {
  absl::StatusOr<ValuePtr> parsed =
      ParseHocon(text, SourceName("r.conf"), nullptr);
  if (!parsed.ok()) return parsed.status();
  return Resolve(*parsed, env);
}

std::string Json(std::string_view text, const ValuePtr& env = nullptr) {
  absl::StatusOr<ValuePtr> v = Resolved(text, env);
  EXPECT_OK(v) << text;
  return v.ok() ? RenderJson(**v, false) : "";
}

std::string Error(std::string_view text, const ValuePtr& env = nullptr) {
  absl::StatusOr<ValuePtr> v = Resolved(text, env);
  EXPECT_FALSE(v.ok()) << text;
  return v.ok() ? "" : std::string(v.status().message());
}

ValuePtr Env(const std::map<std::string, std::string>& vars) {
  return EnvironmentObject(vars);
}

TEST(ResolverTest, SubstitutionsLookForwardAndKeepTheirType) {
  EXPECT_EQ(Json("a = ${b}, b = { c = ${d} }, d = 1.50, e = ${b.c}"),
            R"({"a":{"c":1.50},"b":{"c":1.50},"d":1.50,"e":1.50})");
  EXPECT_EQ(Json("a = ${b} is ${c}, b = 1, c = true"),
            R"({"a":"1 is true","b":1,"c":true})");
  EXPECT_EQ(Json("a = ${x}${x}, x = [1]"), R"({"a":[1,1],"x":[1]})");
  EXPECT_EQ(Json("a = \"${b}\", b = 1"), R"({"a":"${b}","b":1})");
}

TEST(ResolverTest, TheLatestAssignmentWins) {
  EXPECT_EQ(Json("a = ${b}, b = 1, b = 2"), R"({"a":2,"b":2})");
  EXPECT_EQ(Json("a = ${b}, b { x = 1 }, b { y = 2 }"),
            R"({"a":{"x":1,"y":2},"b":{"x":1,"y":2}})");
}

TEST(ResolverTest, SelfReferencesSeeTheValueTheyOverride) {
  EXPECT_EQ(Json("path = \"a:b\", path = ${path}\":c\""),
            R"({"path":"a:b:c"})");
  EXPECT_EQ(Json("p = [/bin], p = ${p} [/usr/bin]"),
            R"({"p":["/bin","/usr/bin"]})");
  EXPECT_EQ(Json("a = [1], a = ${a} [2], b = ${a}, a = ${a} [3]"),
            R"({"a":[1,2,3],"b":[1,2,3]})");
  EXPECT_EQ(Json("foo { a = 1 }, foo = ${foo}"), R"({"foo":{"a":1}})");
  EXPECT_EQ(Json("a = ${?a}foo"), R"({"a":"foo"})");
  EXPECT_EQ(Json("x { y = 1 }, x = ${x} { z = ${x.y} }"),
            R"({"x":{"y":1,"z":1}})");
}

// A value computed while a self-reference is resolved (seeing the field
// replaced by its earlier values) is what every reader gets, as in the
// reference: lightbend/config's substSelfReferenceIndirectInConcat and
// avoidDelayedMergeObjectResolveProblem3.
TEST(ResolverTest, ValuesComputedForASelfReferenceAreKept) {
  EXPECT_EQ(Json("a = 1, b = ${a}foo, a = ${b}"), R"({"a":"1foo","b":"1foo"})");
  EXPECT_EQ(Json("a = [1], b = ${a}, a = ${b} [2]"), R"({"a":[1,2],"b":[1]})");
  EXPECT_EQ(Json("a = {x = 1}, b = ${a}, a = ${b} {z = 3}, c = ${b}"),
            R"({"a":{"x":1,"z":3},"b":{"x":1},"c":{"x":1}})");
  // Whatever the keys are called (the reference, resolving b first here,
  // reports a cycle).
  EXPECT_EQ(Json("b = 1, a = ${b}foo, b = ${a}"), R"({"a":"1foo","b":"1foo"})");
  EXPECT_EQ(Json(R"(
    item1.b.c = 100
    defaults { a = ${item1.b.c}, b = 2 }
    item1 = ${defaults}
    item1.b = { c : 43 }
    item2.b = ${item1.b}
  )"),
            R"({"defaults":{"a":100,"b":2},"item1":{"a":100,"b":{"c":43}},)"
            R"("item2":{"b":{"c":43}}})");
  // A value containing the field being resolved is not kept: it holds
  // for the self-reference alone.
  EXPECT_EQ(Json("x { a = { p = 1 }, a = ${x.a} { r = ${x} } }"),
            R"({"x":{"a":{"p":1,"r":{"a":{"p":1}}}}})");
  EXPECT_EQ(Json("x { a = [1], a = ${x.a} ${y} }, y = [${x}]"),
            R"({"x":{"a":[1,{"a":[1]}]},"y":[{"a":[1]}]})");
}

// Fields with several values set to each other: the first (by key) is
// resolved seeing itself replaced by its earlier values, and what the
// others compute for it is what they are, so all agree on one value, as
// in the reference (which resolves `a` first here too). They used to be
// resolved again for each reader and mixed the two answers (a = 1,
// b = {c = 5}).
TEST(ResolverTest, FieldsSetToEachOtherAgreeOnOneValue) {
  EXPECT_EQ(Json("a = 1, b = {c = 5}, b = ${a}, a = ${b}"), R"({"a":1,"b":1})");
  EXPECT_EQ(Json("b = {c = 5}, a = 1, a = ${b}, b = ${a}"), R"({"a":1,"b":1})");
  EXPECT_EQ(Json("a = 1, b = {c = 5}, a = ${b}, b = ${a}"), R"({"a":1,"b":1})");
  EXPECT_EQ(Json("a = {c = 5}, b = 1, b = ${a}, a = ${b}"),
            R"({"a":{"c":5},"b":{"c":5}})");
  EXPECT_EQ(Json("a : 1, b : 2, a : ${b}, b : ${a}"), R"({"a":1,"b":1})");
  EXPECT_EQ(Json("a = [1], b = [2], b = ${a}, a = ${b}"),
            R"({"a":[1],"b":[1]})");
  EXPECT_EQ(Json("a = 1, b = {c = 5}, b = ${?a}, a = ${?b}"),
            R"({"a":1,"b":1})");
  EXPECT_EQ(Json("x { a = 1, b = {c = 5}, b = ${x.a}, a = ${x.b} }"),
            R"({"x":{"a":1,"b":1}})");
  // Readers outside the cycle get the same value.
  EXPECT_EQ(Json("a = 1, b = {c = 5}, b = ${a}, a = ${b}, d = ${a}, "
                 "e = ${b}"),
            R"({"a":1,"b":1,"d":1,"e":1})");
  // Three fields in a cycle, through objects.
  EXPECT_EQ(Json("a = 1, b = {c = 5}, c = 2, b = ${a}, c = ${b}, a = ${c}"),
            R"({"a":1,"b":1,"c":1})");
  EXPECT_EQ(Json("a = 1, b = {c = 5}, c = {d = 6}, b = ${a}, c = ${b}, "
                 "a = ${c}"),
            R"({"a":1,"b":1,"c":1})");
  EXPECT_EQ(Json("a = 1, b = 2, c = {d = 6}, a = ${b}, b = ${c}, c = ${a}"),
            R"({"a":1,"b":1,"c":1})");
  // Objects merge: b is what a's self-reference saw, a is b over a.
  EXPECT_EQ(Json("a = {x = 1}, b = {y = 2}, b = ${a}, a = ${b}"),
            R"({"a":{"x":1,"y":2},"b":{"x":1,"y":2}})");
  EXPECT_EQ(Json("a = {p = 1}, b = {q = 2}, a = ${b} {r = 3}, b = ${a}"),
            R"({"a":{"p":1,"q":2,"r":3},"b":{"p":1,"q":2}})");
}

// Appends to a field of an object over an unresolved value: each sees the
// ones before it once, then what the unresolved value has there. (Kept as
// separate objects, each append saw the others twice, and the lists grew
// exponentially with their number.)
TEST(ResolverTest, AppendsToAFieldOverASubstitutionSeeEachOtherOnce) {
  EXPECT_EQ(Json("c = {x = [1]}, b = ${c}, b.x += 2, b.x += 3"),
            R"({"b":{"x":[1,2,3]},"c":{"x":[1]}})");
  // An object replaces a list below it: nothing of the list shows.
  EXPECT_EQ(Json("b += 1, b.x += 2, b.x += 3"), R"({"b":{"x":[2,3]}})");
  std::string text = "c = {}, b = ${c}\n";
  std::string expected;
  for (int i = 0; i < 40; ++i) {
    text += "b.x += 7\n";
    expected += expected.empty() ? "7" : ",7";
  }
  EXPECT_EQ(Json(text),
            absl::StrCat(R"({"b":{"x":[)", expected, R"(]},"c":{}})"));
}

// The spec: "${foo.a} would refer to { c : 1 } rather than 2".
TEST(ResolverTest, ASelfReferenceLooksBelowEvenThroughAPath) {
  EXPECT_EQ(Json("foo { a { c = 1 } }\nfoo = ${foo.a}\nfoo { a = 2 }"),
            R"({"foo":{"a":2,"c":1}})");
}

TEST(ResolverTest, PlusEquals) {
  EXPECT_EQ(Json("a = [1], a += 2, a += [3], b += x"),
            R"({"a":[1,2,[3]],"b":["x"]})");
  EXPECT_NE(Error("a = 1, a += 2")
                .find("cannot concatenate a number with a "
                      "list"),
            std::string::npos);
}

TEST(ResolverTest, ObjectsMayReferToThemselves) {
  EXPECT_EQ(Json("bar { foo = 42, baz = ${bar.foo} }"),
            R"({"bar":{"baz":42,"foo":42}})");
  EXPECT_EQ(Json("bar { foo = 42, baz = ${bar.foo} }, bar { foo = 43 }"),
            R"({"bar":{"baz":43,"foo":43}})");
  EXPECT_EQ(Json("bar { a = ${foo.d}, b = 1 }\nbar.b = 3\n"
                 "foo { c = ${bar.b}, d = 2 }\nfoo.d = 4"),
            R"({"bar":{"a":4,"b":3},"foo":{"c":3,"d":4}})");
  // Through a substitution and a concatenation too (the reference reports
  // a cycle for these two).
  EXPECT_EQ(Json("base { x = 1 }\na = ${base} { y = ${a.x} }"),
            R"({"a":{"x":1,"y":1},"base":{"x":1}})");
  EXPECT_EQ(Json("b { x = 1, y = ${a.x} }\na = ${b}"),
            R"({"a":{"x":1,"y":1},"b":{"x":1,"y":1}})");
}

TEST(ResolverTest, OptionalSubstitutionsDisappear) {
  EXPECT_EQ(Json("a = ${?x}, b = [1, ${?x}, 2], c = ${?x}${?y}"),
            R"({"b":[1,2]})");
  EXPECT_EQ(Json("a = 5, a = ${?x}"), R"({"a":5})");
  EXPECT_EQ(Json("a = x ${?y} z, b = [1] ${?y} [2]"),
            R"({"a":"x  z","b":[1,2]})");
  EXPECT_EQ(Json("a = ${?x} 5"), R"({"a":" 5"})");
  EXPECT_EQ(Json("foo = ${?foo}"), R"({})");
}

TEST(ResolverTest, HiddenSubstitutionsAreNeverEvaluated) {
  EXPECT_EQ(Json("foo = ${does-not-exist}, foo = 42"), R"({"foo":42})");
  EXPECT_EQ(Json("foo = ${foo}, foo = 42"), R"({"foo":42})");
  EXPECT_EQ(Json("x = ${missing}, x = ${b}, b = 2"), R"({"b":2,"x":2})");
}

TEST(ResolverTest, UndefinedSubstitutionsAreErrors) {
  EXPECT_EQ(Error("a = 1\nb = ${c.d}"),
            "r.conf:2:5: cannot resolve ${c.d}: 'c.d' is not set; use "
            "${?c.d} if it may be missing");
  EXPECT_NE(Error("a = ${a}").find("part of a cycle"), std::string::npos);
  EXPECT_NE(Error("a = [${a}]").find("part of a cycle"), std::string::npos);
  EXPECT_NE(Error("a = { b = ${a} }").find("part of a cycle"),
            std::string::npos);
  EXPECT_NE(Error("a = ${a.x}").find("part of a cycle"), std::string::npos);
  EXPECT_NE(Error("a = ${b}, b { x = ${a.x} }").find("part of a cycle"),
            std::string::npos);
}

// lightbend/config's ConcatenationTest (issue 177 there): a field of an
// object merged over a substitution (`c : ${d}`, `c { x : ... }`) that
// refers to itself sees the same field below it: first the field's own
// earlier values, then the field of what the object is merged over.
TEST(ResolverTest, SelfReferencesInsideDelayedMergeObjects) {
  EXPECT_EQ(Json("d { x = [] }, c : ${d}, c { x : ${c.x}[1], x : ${c.x}[2] }"),
            R"({"c":{"x":[1,2]},"d":{"x":[]}})");
  EXPECT_EQ(Json("c { x: [], x : ${c.x}[1], x : ${c.x}[2] }"),
            R"({"c":{"x":[1,2]}})");
  EXPECT_EQ(Json("d { x = [] }, c : ${d}, c { x += 1, x += 2 }"),
            R"({"c":{"x":[1,2]},"d":{"x":[]}})");
  // Three levels deep.
  EXPECT_EQ(Json("{ r: { d.x=[] }, q: ${r}, q : { d { x = [] }, c : ${q.d}, "
                 "c { x : ${q.c.x}[1], x : ${q.c.x}[2] } } }"),
            R"({"q":{"c":{"x":[1,2]},"d":{"x":[]}},"r":{"d":{"x":[]}}})");
  EXPECT_EQ(Json("d { y.x = [] }, c : ${d}, "
                 "c { y { x : ${c.y.x}[1], x : ${c.y.x}[2] } }, e = ${c.y.x}"),
            R"({"c":{"y":{"x":[1,2]}},"d":{"y":{"x":[]}},"e":[1,2]})");
  // One self-reference alone looks back the same way (the reference
  // reports a cycle here, though it resolves two of them).
  EXPECT_EQ(Json("d { x = [] }, c : ${d}, c { x : ${c.x}[1] }"),
            R"({"c":{"x":[1]},"d":{"x":[]}})");
  // A field that does not refer to itself still looks forward.
  EXPECT_EQ(Json("d { x = 1 }, c : ${d}, c { y : ${c.x} }"),
            R"({"c":{"x":1,"y":1},"d":{"x":1}})");
  EXPECT_NE(Error("d { y = 1 }, c : ${d}, c { x : ${c.x}[1] }")
                .find("part of a cycle"),
            std::string::npos);
}

// Thirty levels, each an object merged over the level below and
// appending to the field of the level below: each level's self-reference
// is resolved once, not once for every level above it (which took time
// exponential in the number of levels).
TEST(ResolverTest, ManyLevelsOfDelayedMergeSelfReferences) {
  std::string text = "d0 { x = [] }\n";
  std::string want;
  for (int i = 1; i < 30; ++i) {
    text += absl::StrCat("d", i, " : ${d", i - 1, "}, d", i, " { x : ${d", i,
                         ".x} [", i, "], y = ${d", i, ".x} }\n");
  }
  absl::StatusOr<ValuePtr> v = Resolved(text);
  ASSERT_OK(v);
  const Value& last = *(*v)->Field("d29")->Field("y");
  ASSERT_EQ(last.items().size(), 29u);
  EXPECT_EQ(last.items().back()->text(), "29");
}

// Objects merged over the level below with a self-reference each: what
// the levels below resolve to is kept, so each is resolved once.
TEST(ResolverTest, ManyLevelsOfObjectMergeSelfReferences) {
  std::string text = "d0 { o = { k0 = 0 } }\n";
  for (int i = 1; i < 30; ++i) {
    text += absl::StrCat("d", i, " : ${d", i - 1, "}, d", i, " { o : ${d", i,
                         ".o} { k", i, " = ", i, " }, y = ${d", i, ".o} }\n");
  }
  absl::StatusOr<ValuePtr> v = Resolved(text);
  ASSERT_OK(v);
  EXPECT_EQ((*v)->Field("d29")->Field("y")->fields().size(), 30u);
}

// Each level merged twice over the level below, with a self-reference:
// each field with several values is resolved once and kept (it was
// resolved again for each view of the document it was read in, in time
// exponential in the levels, and stopped at the step bound). The
// reference reports a cycle here from two levels on.
TEST(ResolverTest, SelfReferencesThroughManyObjectMergesResolveOnce) {
  std::string text = "d0 { o = { k0 = 0 } }\n";
  for (int i = 1; i <= 40; ++i) {
    text += absl::StrCat("d", i, " : ${d", i - 1, "}, d", i, " : ${d", i - 1,
                         "}, d", i, " { o : ${d", i, ".o} { k", i, " = ", i,
                         " } }\n");
  }
  absl::StatusOr<ValuePtr> v = Resolved(text);
  ASSERT_OK(v);
  EXPECT_EQ((*v)->Field("d40")->Field("o")->fields().size(), 41u);
  EXPECT_EQ((*v)->Field("d40")->Field("o")->Field("k40")->text(), "40");
}

// Optional substitutions into the value they are part of: each lookup
// resolves the value again along a longer path, through the others (time
// exponential in their number). A few resolve as the reference does (each
// is undefined, a cycle); a run of them, as libFuzzer found in a 611-byte
// file that ran for minutes, fails with a reason at once.
std::string OptionalReferencesIntoItself(int n) {
  std::string text = "a = x";
  for (int i = 0; i < n; ++i) absl::StrAppend(&text, " ${?a.p", i, "} y");
  return text;
}

TEST(ResolverTest, AFewOptionalReferencesIntoTheirOwnValueAreUndefined) {
  absl::StatusOr<ValuePtr> v = Resolved(OptionalReferencesIntoItself(4));
  ASSERT_OK(v);
  EXPECT_EQ((*v)->Field("a")->text(), "x  y  y  y  y");
}

TEST(ResolverTest, ManyOptionalReferencesIntoTheirOwnValueAreBounded) {
  absl::StatusOr<ValuePtr> v = Resolved(OptionalReferencesIntoItself(12));
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(v.status().message().find("takes more than 200000 steps"),
            std::string::npos)
      << v.status();
}

// ConfigSubstitutionTest: a cycle is decided where it begins. Through an
// optional substitution it makes that one undefined (`a = ${?b}foo`,
// `b = ${a}`: b leads back to a, so a is "foo"); with none optional it is
// an error, also when an optional substitution outside the cycle asks.
TEST(ResolverTest, OptionalSelfReferencesThroughOtherFields) {
  EXPECT_EQ(Json("a=${?b}foo,b=${a}"), R"({"a":"foo","b":"foo"})");
  EXPECT_EQ(Json("a=${?a}foo"), R"({"a":"foo"})");
  EXPECT_EQ(Json("a=${?a}foo${?a}"), R"({"a":"foo"})");
  EXPECT_EQ(Json("a=1,a=${?a}foo${?a}"), R"({"a":"1foo1"})");
  EXPECT_EQ(Json("foo : ${?bar}, bar : ${?a.b.c}, a.b.c : ${?foo}, "
                 "x = ${?foo}"),
            R"({"a":{"b":{}}})");
  EXPECT_NE(Error("foo : ${bar}, bar : ${a.b.c}, a.b.c : ${foo}, "
                  "x = ${?foo}")
                .find("part of a cycle"),
            std::string::npos);
  EXPECT_FALSE(Resolved("a = ${b}, b = ${?c}, c = ${b}").ok());
}

TEST(ResolverTest, CyclesAreErrorsThatNameTheChain) {
  std::string e = Error("a = ${b}\nb = ${c}\nc = ${a}");
  EXPECT_NE(e.find("is part of a cycle of substitutions"), std::string::npos);
  EXPECT_NE(e.find("r.conf:3:5: cannot resolve ${a}"), std::string::npos) << e;
  EXPECT_NE(e.find("(${b} -> ${c} -> ${a} -> ${b})"), std::string::npos) << e;
  EXPECT_NE(Error("bar = ${foo}, foo = ${bar}").find("cycle"),
            std::string::npos);
}

TEST(ResolverTest, EnvironmentIsTheLastResort) {
  ValuePtr env = Env({{"HOME", "/home/me"}, {"a.b", "dotted"}});
  EXPECT_EQ(Json("h = ${HOME}, o = ${?HOME}", env),
            R"({"h":"/home/me","o":"/home/me"})");
  EXPECT_EQ(Json("HOME = mine, h = ${HOME}", env),
            R"({"HOME":"mine","h":"mine"})");
  // A null in the config is a value: the environment is not consulted.
  EXPECT_EQ(Json("HOME = null, h = ${HOME}", env), R"({"HOME":null,"h":null})");
  // Names with dots are paths, as in the reference (which reads the
  // environment as properties).
  EXPECT_EQ(Json("x = ${?a.b}, y = ${a}", env),
            R"({"x":"dotted","y":{"b":"dotted"}})");
  EXPECT_EQ(Json("x = ${?a.b.c}, y = ${?HOME.x}", env), R"({})");
  EXPECT_EQ(Json("a { c = 1 }, x = ${a.b}", env),
            R"({"a":{"c":1},"x":"dotted"})");
  EXPECT_NE(Error("h = ${HOME}").find("not set"), std::string::npos);
  EXPECT_NE(Error("h = ${NOPE}", env).find("nor is an environment variable"),
            std::string::npos);
}

TEST(ResolverTest, IncludedSubstitutionsTryBelowTheIncludePointFirst) {
  // As if `sub { include "..." }` had brought in { a = ${x}, b = ${y} }.
  Origin o(SourceName("inc"), 1, 1);
  Fields included;
  included.emplace("a", Value::Substitution({{"x"}, false, 0}, o));
  included.emplace("b", Value::Substitution({{"y"}, false, 0}, o));
  included.emplace("x", Value::String("inner", o));
  Fields root;
  root.emplace("sub",
               Relativize(Value::Object(std::move(included), o), {"sub"}));
  root.emplace("x", Value::String("outer x", o));
  root.emplace("y", Value::String("outer y", o));
  absl::StatusOr<ValuePtr> v = Resolve(Value::Object(std::move(root), o), {});
  ASSERT_OK(v);
  EXPECT_EQ(RenderJson(**v, false),
            R"({"sub":{"a":"inner","b":"outer y","x":"inner"},)"
            R"("x":"outer x","y":"outer y"})");
}

TEST(ResolverTest, ValuesNestedTooDeepBySubstitutionsAreAnError) {
  // Each field 100 levels deep as written; c is 300 once resolved.
  std::string hundred = "k";
  for (int i = 1; i < 100; ++i) hundred += ".k";
  const std::string text = "a." + hundred + " = 1\n" +     //
                           "b." + hundred + " = ${a}\n" +  //
                           "c." + hundred + " = ${b}\n";
  const std::string error = Error(text);
  EXPECT_NE(error.find("nested more than 200 deep once substitutions are "
                       "resolved"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("r.conf"), std::string::npos) << error;
  // b alone is 200 deep once resolved: the deepest allowed.
  EXPECT_FALSE(
      Json("a." + hundred + " = 1\nb." + hundred + " = ${a}\n").empty());
}

TEST(ResolverTest, UnreasonablyDeepChainsAreAnErrorNotACrash) {
  std::string text = "a0 = 1\n";
  for (int i = 1; i < 2000; ++i) {
    text += "a" + std::to_string(i) + " = ${a" + std::to_string(i - 1) + "}\n";
  }
  EXPECT_NE(Error(text).find("nested more than"), std::string::npos);
}

}  // namespace
}  // namespace cairn::hocon::internal
