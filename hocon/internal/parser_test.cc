#include "hocon/internal/parser.h"

#include <string>
#include <vector>

#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/internal/json_writer.h"

namespace cairn::hocon::internal {
namespace {

// Records include requests; answers each with { included = <name> } and
// a substitution, to show where the result lands.
class FakeIncluder : public Includer {
 public:
  absl::StatusOr<ValuePtr> Include(const IncludeRequest& r) override {
    requests.push_back(r);
    Fields f;
    f.emplace("included", Value::String(r.name, r.origin));
    f.emplace("ref", Value::Substitution({{"x"}, false, 0}, r.origin));
    return Value::Object(std::move(f), r.origin);
  }
  std::vector<IncludeRequest> requests;
};

absl::StatusOr<ValuePtr> ParseWith(std::string_view text, Includer* inc) {
  return ParseHocon(text, SourceName("f.conf"), inc);
}

// The parsed (unresolved) tree as compact JSON.
std::string Json(std::string_view text) {
  absl::StatusOr<ValuePtr> v = ParseWith(text, nullptr);
  EXPECT_OK(v) << text;
  return v.ok() ? RenderJson(**v, false) : "";
}

std::string Error(std::string_view text) {
  FakeIncluder includer;
  absl::StatusOr<ValuePtr> v = ParseWith(text, &includer);
  EXPECT_FALSE(v.ok()) << text;
  return v.ok() ? "" : std::string(v.status().message());
}

TEST(ParserTest, JsonIsHocon) {
  EXPECT_EQ(Json(R"({"a": [1, 2.5, "x", true, false, null, {}], "b": {}})"),
            R"({"a":[1,2.5,"x",true,false,null,{}],"b":{}})");
  EXPECT_EQ(Json(""), "{}");
  EXPECT_EQ(Json("{}"), "{}");
}

TEST(ParserTest, OmittedBracesSeparatorsAndCommas) {
  EXPECT_EQ(Json("a = 1\nb : 2, c { d = 3 }\ne\n{\n f = 4 }"),
            R"({"a":1,"b":2,"c":{"d":3},"e":{"f":4}})");
  EXPECT_EQ(Json("a = [1\n2\n\n3,]"), R"({"a":[1,2,3]})");
  EXPECT_EQ(Json("a = [1\n,2]"), R"({"a":[1,2]})");
  EXPECT_EQ(Json("a {x = 1,}"), R"({"a":{"x":1}})");
  EXPECT_EQ(Json("a\n:\n1"), R"({"a":1})");
}

TEST(ParserTest, CommaErrors) {
  EXPECT_NE(Error("a = [1,,2]").find("f.conf:1:8: expected a value"),
            std::string::npos);
  EXPECT_NE(Error("a = [,1]").find("expected a value"), std::string::npos);
  EXPECT_NE(Error("a = [1,2,,]").find("expected a value"), std::string::npos);
  EXPECT_NE(Error("a {x = 1,,}").find("expected a key"), std::string::npos);
  EXPECT_NE(Error("a {,x = 1}").find("expected a key"), std::string::npos);
  EXPECT_NE(Error("a = 1 b = 2")
                .find("expected ',' or a new line after a "
                      "field, found '='"),
            std::string::npos);
  EXPECT_NE(Error("a.b c").find("expected ':', '=', '+=' or '{' after the "
                                "key 'a.\"b c\"', found end of file"),
            std::string::npos);
  EXPECT_NE(Error("a = [1 : 2]").find("expected ',' or a new line"),
            std::string::npos);
}

TEST(ParserTest, BraceErrors) {
  EXPECT_NE(Error("a = {").find("'}' missing"), std::string::npos);
  EXPECT_NE(Error("a = 1 }").find("'}' without a matching '{'"),
            std::string::npos);
  EXPECT_NE(Error("{ a = 1 } b = 2").find("expected the end of the document"),
            std::string::npos);
  EXPECT_NE(Error("[1, 2]").find("must be an object"), std::string::npos);
  EXPECT_NE(Error("a = [1").find("']' missing"), std::string::npos);
  EXPECT_NE(Error("a = ").find("expected a value, found end of file"),
            std::string::npos);
  EXPECT_NE(Error("a = " + std::string(300, '[')).find("nested more than"),
            std::string::npos);
}

// A path key nests its value as deep as braces would, so a document the
// parser takes prints as JSON that it takes again (found by the fuzzer).
// The tokens are read as the parser goes, but a tokenizer error anywhere
// is still the error reported, as when the whole text was tokenized first.
TEST(ParserTest, TokenizerErrorsComeFirst) {
  EXPECT_NE(Error("a = }\nb = \"open").find("f.conf:2:5: unterminated quoted"),
            std::string::npos)
      << Error("a = }\nb = \"open");
  EXPECT_NE(Error("a = [\n\n  ^").find("f.conf:3:3: reserved character '^'"),
            std::string::npos);
  FakeIncluder inc;
  EXPECT_FALSE(ParseWith("include \"x\"\na = `", &inc).ok());
}

TEST(ParserTest, PathKeysCountTowardTheNestingLimit) {
  auto path = [](int segments) {
    std::string key = "k";
    for (int i = 1; i < segments; ++i) key += ".k";
    return key;
  };
  // n segments nest n - 1 objects below the root: 200 levels is the
  // deepest allowed, as with 200 nested braces.
  EXPECT_FALSE(Json(path(201) + " = 1").empty());
  EXPECT_FALSE(Json(path(200) + " = {}").empty());
  EXPECT_FALSE(Json("a { " + path(200) + " = 1 }").empty());
  EXPECT_NE(Error(path(202) + " = 1").find("nested more than 200 deep"),
            std::string::npos);
  EXPECT_NE(Error(path(201) + " = {}").find("nested more than 200 deep"),
            std::string::npos);
  EXPECT_NE(Error("a { " + path(201) + " = 1 }").find("nested more than"),
            std::string::npos);
}

TEST(ParserTest, DuplicateKeysMergeObjectsAndNullResets) {
  EXPECT_EQ(Json("foo { a = 42 }, foo { b = 43 }"),
            R"({"foo":{"a":42,"b":43}})");
  EXPECT_EQ(Json("foo { a = 42 }, foo = null, foo { b = 43 }"),
            R"({"foo":{"b":43}})");
  EXPECT_EQ(Json("a = 1, a = 2"), R"({"a":2})");
  EXPECT_EQ(Json("a = {x = 1}, a = 2"), R"({"a":2})");
}

TEST(ParserTest, PathKeys) {
  EXPECT_EQ(Json("a.b.c = 1, a.b.d = 2, a.x = 3"),
            R"({"a":{"b":{"c":1,"d":2},"x":3}})");
  EXPECT_EQ(Json("\"a.b\" = 1, a.\"\".c = 2"), R"({"a":{"":{"c":2}},"a.b":1})");
  EXPECT_EQ(Json("3.14 : 42, true : 1, 10.0foo = 2"),
            R"({"10":{"0foo":2},"3":{"14":42},"true":1})");
  EXPECT_EQ(Json("a b c : 42"), R"({"a b c":42})");
  EXPECT_EQ(Json("foo\"10.0\" = 1"), R"({"foo10.0":1})");
  EXPECT_NE(Error("a..b = 1").find("a key is empty"), std::string::npos);
  EXPECT_NE(Error(".a = 1").find("a key is empty"), std::string::npos);
  EXPECT_NE(Error("${a} = 1").find("not allowed in keys"), std::string::npos);
}

TEST(ParserTest, ValueConcatenation) {
  EXPECT_EQ(Json("a = foo bar  baz"), R"({"a":"foo bar  baz"})");
  EXPECT_EQ(Json("a = true foo, b = 1 2, c = null x"),
            R"({"a":"true foo","b":"1 2","c":"null x"})");
  EXPECT_EQ(Json("a = \"x\" y\"z\""), R"({"a":"x yz"})");
  EXPECT_EQ(Json("a = 10.0foo"), R"({"a":"10.0foo"})");
  EXPECT_EQ(Json("a = [1, 2] [3]"), R"({"a":[1,2,3]})");
  EXPECT_EQ(Json("a = { x = 1 } { y = 2 }"), R"({"a":{"x":1,"y":2}})");
  EXPECT_EQ(Json("a = [ [1] [2], [3]\n[4] ]"), R"({"a":[[1,2],[3],[4]]})");
  EXPECT_EQ(Json("a = [ 1 2 ]"), R"({"a":["1 2"]})");
  EXPECT_EQ(Json("a = 1 include \"x\""), R"({"a":"1 include x"})");
  EXPECT_NE(Error("a = [1] x").find("cannot concatenate a list with a string"),
            std::string::npos);
  EXPECT_NE(Error("a = 5 { x = 1 }").find("cannot concatenate"),
            std::string::npos);
}

TEST(ParserTest, SingleValuesKeepTheirType) {
  absl::StatusOr<ValuePtr> v = ParseWith("a = true, b = 10, c = null", nullptr);
  ASSERT_OK(v);
  EXPECT_EQ((*v)->Field("a")->kind(), Kind::kBool);
  EXPECT_EQ((*v)->Field("b")->kind(), Kind::kNumber);
  EXPECT_EQ((*v)->Field("c")->kind(), Kind::kNull);
}

TEST(ParserTest, SubstitutionsStayUnresolved) {
  EXPECT_EQ(Json("a = ${b.c}, d = x ${?e} y"),
            R"({"a":"${b.c}","d":"x ${?e} y"})");
  // A self-reference becomes a stack over the earlier value.
  absl::StatusOr<ValuePtr> v = ParseWith("a = 1, a = ${a}", nullptr);
  ASSERT_OK(v);
  EXPECT_EQ((*v)->Field("a")->kind(), Kind::kMergeStack);
}

TEST(ParserTest, PlusEqualsAppendsToTheFieldsOwnPath) {
  EXPECT_EQ(Json("x { a += 1 }"), R"({"x":{"a":"${?x.a}[1]"}})");
}

TEST(ParserTest, IncludeForms) {
  FakeIncluder inc;
  absl::StatusOr<ValuePtr> v = ParseWith(
      "include \"a\"\n"
      "include file(\"b\")\n"
      "include url( \"c\" )\n"
      "include classpath(\"d\")\n"
      "include required(\"e\")\n"
      "include required(file(\"f\"))\n"
      "include\n  \"g\"\n",
      &inc);
  ASSERT_OK(v);
  ASSERT_EQ(inc.requests.size(), 7u);
  EXPECT_EQ(inc.requests[0].kind, IncludeKind::kHeuristic);
  EXPECT_EQ(inc.requests[1].kind, IncludeKind::kFile);
  EXPECT_EQ(inc.requests[2].kind, IncludeKind::kUrl);
  EXPECT_EQ(inc.requests[2].name, "c");
  EXPECT_EQ(inc.requests[3].kind, IncludeKind::kClasspath);
  EXPECT_TRUE(inc.requests[4].required);
  EXPECT_EQ(inc.requests[4].kind, IncludeKind::kHeuristic);
  EXPECT_TRUE(inc.requests[5].required);
  EXPECT_EQ(inc.requests[5].kind, IncludeKind::kFile);
  EXPECT_EQ(inc.requests[5].name, "f");
  EXPECT_FALSE(inc.requests[6].required);
  EXPECT_EQ(inc.requests[6].origin.ToString(), "f.conf:7:1");
}

// As in the reference: inside the parentheses of file(), url(),
// classpath() and required() any whitespace, new lines and comments may
// stand around the name; none may stand before the '('.
TEST(ParserTest, IncludeParenthesesMaySpanLines) {
  FakeIncluder inc;
  absl::StatusOr<ValuePtr> v = ParseWith(
      "include file(\n\"a\"\n)\n"
      "include file(\n  \"b\"  \n  )\n"
      "include required(\nfile(\n\"c\"\n)\n)\n"
      "include url(\n\n \"d\" \n\n)\n"
      "include classpath( # a comment\n \"e\" // another\n)\n"
      "include required(\n \"f\"\n)\n"
      "x = 1\n",
      &inc);
  ASSERT_OK(v);
  ASSERT_EQ(inc.requests.size(), 6u);
  EXPECT_EQ(inc.requests[0].kind, IncludeKind::kFile);
  EXPECT_EQ(inc.requests[0].name, "a");
  EXPECT_EQ(inc.requests[1].name, "b");
  EXPECT_TRUE(inc.requests[2].required);
  EXPECT_EQ(inc.requests[2].kind, IncludeKind::kFile);
  EXPECT_EQ(inc.requests[2].name, "c");
  EXPECT_EQ(inc.requests[3].kind, IncludeKind::kUrl);
  EXPECT_EQ(inc.requests[3].name, "d");
  EXPECT_EQ(inc.requests[4].kind, IncludeKind::kClasspath);
  EXPECT_EQ(inc.requests[4].name, "e");
  EXPECT_TRUE(inc.requests[5].required);
  EXPECT_EQ(inc.requests[5].kind, IncludeKind::kHeuristic);
  EXPECT_EQ((*v)->Field("x")->text(), "1");
  EXPECT_NE(Error("include file(\n\"x\"\n").find("expected ')'"),
            std::string::npos);
  EXPECT_NE(Error("include required (file(\"x\"))")
                .find("expected a quoted file name"),
            std::string::npos);
}

// The reference rejects `+=` inside a list element, and inside the value
// of another `+=` (which becomes a list element): `a += x` stands for
// `a = ${?a} [x]`, and a substitution cannot name a list element.
TEST(ParserTest, PlusEqualsInsideAListIsAnError) {
  EXPECT_EQ(Error("x = [ { a += 1, a += 2, a += 3 } ]"),
            "f.conf:1:9: '+=' is not supported inside a list (it stands for "
            "'a = ${?a} [...]', and a substitution cannot refer to a list "
            "element); set 'a' outside the list and refer to it with ${}");
  EXPECT_EQ(Error("x += { a += 1, a += 2, a += 3 }"),
            "f.conf:1:8: '+=' is not supported inside the value of another "
            "'+=' (it stands for 'a = ${?a} [...]', and a substitution cannot "
            "refer to a list element); set 'a' outside and refer to it with "
            "${}");
  EXPECT_NE(Error("x = [[1], [{ y { a += 1 } }]]").find("inside a list"),
            std::string::npos);
  // Not inside a list: fine, also under a path or an object value.
  EXPECT_EQ(Json("x { a += 1 }, y = [ { b = 1 } ]"),
            R"({"x":{"a":"${?x.a}[1]"},"y":[{"b":1}]})");
}

TEST(ParserTest, IncludedFieldsMergeAndMoveBelowTheIncludePoint) {
  FakeIncluder inc;
  absl::StatusOr<ValuePtr> v = ParseWith(
      "a { included = first, x = 1, include \"i\" }\n"
      "b { include \"j\", included = last }",
      &inc);
  ASSERT_OK(v);
  EXPECT_EQ(RenderJson(**v, false),
            R"({"a":{"included":"i","ref":"${a.x}","x":1},)"
            R"("b":{"included":"last","ref":"${b.x}"}})");
}

TEST(ParserTest, IncludeErrors) {
  EXPECT_NE(Error("include foo").find("expected a quoted file name"),
            std::string::npos);
  EXPECT_NE(Error("include file (\"x\")").find("expected a quoted file name"),
            std::string::npos);
  EXPECT_NE(Error("include file(x)").find("a quoted name inside file()"),
            std::string::npos);
  EXPECT_NE(Error("include file(\"x\"").find("expected ')'"),
            std::string::npos);
  EXPECT_NE(Error("include required(\"x\"").find("expected ')'"),
            std::string::npos);
  EXPECT_NE(Error("a = [ { include \"x\" } ]")
                .find("not supported inside a "
                      "list"),
            std::string::npos);
  EXPECT_NE(ParseWith("include \"x\"", nullptr)
                .status()
                .message()
                .find("include is not available"),
            std::string::npos);
  // A quoted "include" is an ordinary key.
  EXPECT_EQ(Json("\"include\" = 1"), R"({"include":1})");
}

}  // namespace
}  // namespace cairn::hocon::internal
