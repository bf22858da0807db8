#include "hocon/internal/number.h"

#include "gtest/gtest.h"

namespace cairn::hocon::internal {
namespace {

TEST(NumberTest, Syntax) {
  for (const char* n : {"0", "-1", "+1", "01", "9223372036854775807"}) {
    EXPECT_TRUE(IsIntegerSyntax(n)) << n;
  }
  for (const char* n : {"", "-", "1-2", "9223372036854775808", "1.0"}) {
    EXPECT_FALSE(IsIntegerSyntax(n)) << n;
  }
  for (const char* n : {"1.5", "1.", ".5", "-.5", "1e5", "1E+5", "1.e-3"}) {
    EXPECT_TRUE(IsDoubleSyntax(n)) << n;
  }
  for (const char* n : {".", "e5", "1e", "1.2.3", "1e5.0", "--1"}) {
    EXPECT_FALSE(IsDoubleSyntax(n)) << n;
  }
}

TEST(NumberTest, Values) {
  EXPECT_EQ(NumberAsLong("-42"), -42);
  EXPECT_EQ(NumberAsLong("1.9"), 1);  // truncated, as Java's (long) cast
  EXPECT_EQ(NumberAsLong("-1.9"), -1);
  EXPECT_EQ(NumberAsLong("1e30"), INT64_MAX);  // saturates
  EXPECT_DOUBLE_EQ(NumberAsDouble("1.5e3"), 1500);
  EXPECT_EQ(StringAsNumberText("12"), "12");
  EXPECT_EQ(StringAsNumberText("1.5"), "1.5");
  EXPECT_EQ(StringAsNumberText("abc"), std::nullopt);
}

TEST(NumberTest, JsonNumber) {
  EXPECT_EQ(JsonNumber("42"), "42");
  EXPECT_EQ(JsonNumber("-1.50e3"), "-1.50e3");
  EXPECT_EQ(JsonNumber("007"), "7");
  EXPECT_EQ(JsonNumber("1."), "1.0");
  // Found by the fuzzer: without ".0" this read back as a string (an
  // integer beyond int64 is unquoted text, as in the reference).
  EXPECT_EQ(JsonNumber("555555555555555555555555555555.").back(), '0');
  EXPECT_EQ(JsonNumber("-.5"), "-0.5");
  EXPECT_EQ(JsonNumber("+3"), "3");
  EXPECT_EQ(JsonNumber("1.e5"), "1e5");
}

}  // namespace
}  // namespace cairn::hocon::internal
