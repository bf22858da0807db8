// A decoder's bytes, used as users use them: with Abseil's helpers (which
// take Debian's distinct absl::string_view) and with the standard library
// (std::string_view), with no conversion written out.

#include "base/bytes.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace cairn::base {
namespace {

// What a user's decoder might call, taking each kind of view.
std::size_t StdLength(std::string_view s) { return s.size(); }
std::size_t AbslLength(absl::string_view s) { return s.size(); }

TEST(BytesTest, AbseilStringHelpersTakeBytesAsTheyAre) {
  const std::string stored = "12,34";
  Bytes bytes(stored);
  std::vector<std::string> parts = absl::StrSplit(bytes, ',');
  ASSERT_EQ(parts.size(), 2u);
  int64_t first = 0;
  ASSERT_TRUE(absl::SimpleAtoi(parts[0], &first));
  EXPECT_EQ(first, 12);
  int second = 0;
  EXPECT_TRUE(absl::SimpleAtoi(bytes.substr(3), &second));
  EXPECT_EQ(second, 34);
  EXPECT_TRUE(absl::StartsWith(bytes, "12"));
}

TEST(BytesTest, StandardAndAbseilViewsBothTakeBytes) {
  const std::string stored("a\0b", 3);  // bytes, not a C string
  Bytes bytes(stored);
  EXPECT_EQ(StdLength(bytes), 3u);
  EXPECT_EQ(AbslLength(bytes), 3u);
  const std::string_view std_view = bytes;
  EXPECT_EQ(std_view, stored);
  EXPECT_EQ(std::string(bytes), stored);
}

TEST(BytesTest, MadeFromEitherView) {
  const std::string stored = "xyz";
  EXPECT_EQ(std::string(Bytes(std::string_view(stored))), "xyz");
  EXPECT_EQ(std::string(Bytes(absl::string_view(stored))), "xyz");
  EXPECT_TRUE(Bytes().empty());
}

}  // namespace
}  // namespace cairn::base
