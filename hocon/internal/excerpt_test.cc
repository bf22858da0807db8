#include "hocon/internal/excerpt.h"

#include <string>

#include "gtest/gtest.h"

namespace cairn::hocon::internal {
namespace {

TEST(ExcerptTest, ShortTextIsQuotedWhole) {
  EXPECT_EQ(Excerpt(""), "");
  EXPECT_EQ(Excerpt("akka.actor"), "akka.actor");
  std::string limit(kMaxExcerptBytes, 'x');
  EXPECT_EQ(Excerpt(limit), limit);
}

TEST(ExcerptTest, LongTextIsClippedWithItsLength) {
  std::string e = Excerpt(std::string(10 << 20, 'a'));
  EXPECT_EQ(e, std::string(kMaxExcerptBytes, 'a') + "...(10485760 bytes)");
}

TEST(ExcerptTest, NeverSplitsAUtf8Character) {
  // "é" is two bytes; one byte of padding puts a character across the cut.
  std::string text = "x";
  while (text.size() < 2 * kMaxExcerptBytes) text += "\xC3\xA9";
  std::string e = Excerpt(text);
  std::string kept = e.substr(0, e.find("..."));
  EXPECT_EQ(kept.size() % 2, 1u);  // "x" and whole characters
  EXPECT_LE(kept.size(), kMaxExcerptBytes);
}

}  // namespace
}  // namespace cairn::hocon::internal
