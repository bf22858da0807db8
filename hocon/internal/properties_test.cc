#include "hocon/internal/properties.h"

#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/internal/json_writer.h"

namespace cairn::hocon::internal {
namespace {

std::string Json(std::string_view text) {
  absl::StatusOr<ValuePtr> v = ParseProperties(text, SourceName("p"));
  EXPECT_OK(v);
  return v.ok() ? RenderJson(**v, false) : "";
}

TEST(PropertiesTest, SeparatorsCommentsAndStringValues) {
  EXPECT_EQ(Json("# comment\n! comment\na=1\nb : true\nc d e\n  f=  x  \n"),
            R"({"a":"1","b":"true","c":"d e","f":"x  "})");
}

TEST(PropertiesTest, KeysArePaths) {
  EXPECT_EQ(Json("a.b=1\na.c=2\nh.=5\n.i=6"),
            R"({"":{"i":"6"},"a":{"b":"1","c":"2"},"h":{"":"5"}})");
}

TEST(PropertiesTest, ObjectsWinOverValuesAtTheirPath) {
  EXPECT_EQ(Json("a=1\na.b=2"), R"({"a":{"b":"2"}})");
  EXPECT_EQ(Json("a.b=2\na=1"), R"({"a":{"b":"2"}})");
  EXPECT_EQ(Json("a.b.c=1\na.b=2"), R"({"a":{"b":{"c":"1"}}})");
}

TEST(PropertiesTest, ContinuationsAndEscapes) {
  EXPECT_EQ(Json("e : x y \\\n   z\nu=\\u00e9\\t\\q\nk\\=ey=v\nw=a\\\\\nx=1"),
            R"({"e":"x y z","k=ey":"v","u":"é\tq","w":"a\\","x":"1"})");
}

// Each line used to be merged into everything before it: quadratic.
TEST(PropertiesTest, ManyKeysParseInLinearTime) {
  std::string text;
  for (int i = 0; i < 200000; ++i) {
    text += "k" + std::to_string(i) + "=" + std::to_string(i) + "\n";
  }
  text += "k.x=object\n";
  absl::StatusOr<ValuePtr> v = ParseProperties(text, SourceName("p"));
  ASSERT_OK(v);
  EXPECT_EQ((*v)->fields().size(), 200001u);
  EXPECT_EQ((*v)->Field("k199999")->text(), "199999");
  EXPECT_EQ((*v)->Field("k")->Field("x")->text(), "object");
}

// As deep as the parser allows objects to nest, and no deeper: the tree
// is walked recursively.
TEST(PropertiesTest, KeysNestAtMostAsDeepAsObjects) {
  std::string key = "a";
  for (int i = 0; i < kMaxNestingDepth; ++i) key += ".a";
  EXPECT_OK(ParseProperties(key + "=1", SourceName("p")));
  absl::StatusOr<ValuePtr> deep =
      ParseProperties("x=1\n" + key + ".a=1", SourceName("p"));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().message(),
            "p:2:1: objects nested more than 200 deep");
  std::string hostile = "a";
  for (int i = 0; i < 100000; ++i) hostile += ".a";
  EXPECT_FALSE(ParseProperties(hostile + "=1", SourceName("p")).ok());
}

TEST(PropertiesTest, LaterDuplicatesWin) {
  EXPECT_EQ(Json("a=1\na=2\r\n"), R"({"a":"2"})");
}

}  // namespace
}  // namespace cairn::hocon::internal
