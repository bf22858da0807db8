#include "hocon/internal/path.h"

#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/internal/path_expression.h"

namespace cairn::hocon::internal {
namespace {

using Keys = std::vector<std::string>;

Keys Parse(std::string_view p) {
  absl::StatusOr<Keys> k = ParsePathExpression(p);
  EXPECT_OK(k) << p;
  return k.ok() ? *k : Keys{};
}

TEST(PathTest, BuilderSplitsUnquotedTextOnly) {
  PathBuilder b;
  b.AppendUnquoted("foo.bar");
  b.AppendQuoted("hello.world");
  b.AppendUnquoted(".x");
  EXPECT_EQ(*std::move(b).Finish(), (Keys{"foo", "barhello.world", "x"}));
}

TEST(PathTest, EmptyKeysMustBeQuoted) {
  PathBuilder ok;
  ok.AppendUnquoted("a.");
  ok.AppendQuoted("");
  ok.AppendUnquoted(".b");
  EXPECT_EQ(*std::move(ok).Finish(), (Keys{"a", "", "b"}));
  for (std::string_view bad : {"a..b", ".a", "a.", "."}) {
    PathBuilder b;
    b.AppendUnquoted(bad);
    EXPECT_FALSE(std::move(b).Finish().ok()) << bad;
  }
  PathBuilder space;  // whitespace alone does not make a key
  space.AppendUnquoted("a.");
  space.AppendWhitespace("");
  EXPECT_FALSE(std::move(space).Finish().ok());
}

TEST(PathTest, ParsePathExpression) {
  EXPECT_EQ(Parse("akka.actor.default-dispatcher"),
            (Keys{"akka", "actor", "default-dispatcher"}));
  EXPECT_EQ(Parse("a.\"b.c\".d"), (Keys{"a", "b.c", "d"}));
  EXPECT_EQ(Parse("\"\""), (Keys{""}));
  EXPECT_EQ(Parse("1.2.3"), (Keys{"1", "2", "3"}));
  EXPECT_EQ(Parse("a b"), (Keys{"a b"}));
  EXPECT_EQ(Parse("\"/app/service-ping\".router"),
            (Keys{"/app/service-ping", "router"}));
  for (std::string_view bad :
       {"", "a..b", "a.", "${a}", "a:b", "a[0]", "\"a"}) {
    absl::StatusOr<Keys> k = ParsePathExpression(bad);
    EXPECT_FALSE(k.ok()) << bad;
    if (!k.ok()) {
      EXPECT_NE(k.status().message().find("invalid path"), std::string::npos);
    }
  }
}

TEST(PathTest, RenderQuotesWhatNeedsIt) {
  EXPECT_EQ(RenderPath({"a", "b-c_d", "x.y", "", "s p"}),
            "a.b-c_d.\"x.y\".\"\".\"s p\"");
}

}  // namespace
}  // namespace cairn::hocon::internal
