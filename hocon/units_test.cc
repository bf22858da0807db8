#include "hocon/units.h"

#include "gtest/gtest.h"

namespace cairn::hocon {
namespace {

TEST(ParseDurationTest, EveryUnit) {
  struct Case {
    const char* text;
    absl::Duration want;
  } cases[] = {
      {"10", absl::Milliseconds(10)},
      {"10ns", absl::Nanoseconds(10)},
      {"10 nanos", absl::Nanoseconds(10)},
      {"10nanosecond", absl::Nanoseconds(10)},
      {"10 nanoseconds", absl::Nanoseconds(10)},
      {"10us", absl::Microseconds(10)},
      {"10 micro", absl::Microseconds(10)},
      {"10 microseconds", absl::Microseconds(10)},
      {"10ms", absl::Milliseconds(10)},
      {"10 millis", absl::Milliseconds(10)},
      {"10 millisecond", absl::Milliseconds(10)},
      {"10s", absl::Seconds(10)},
      {"10 second", absl::Seconds(10)},
      {"10 seconds", absl::Seconds(10)},
      {"10m", absl::Minutes(10)},
      {"10 minute", absl::Minutes(10)},
      {"10h", absl::Hours(10)},
      {"10 hours", absl::Hours(10)},
      {"10d", absl::Hours(240)},
      {"10 day", absl::Hours(240)},
      {" 1.5 days ", absl::Hours(36)},
      {"1e3", absl::Seconds(1)},
      {"0.5s", absl::Milliseconds(500)},
      {"-2s", absl::Seconds(-2)},
      {"+2s", absl::Seconds(2)},
      {"1.0000000009s", absl::Nanoseconds(1000000000)},  // toward zero
  };
  for (const Case& c : cases) {
    absl::StatusOr<absl::Duration> d = ParseDuration(c.text);
    ASSERT_TRUE(d.ok()) << c.text << ": " << d.status();
    EXPECT_EQ(*d, c.want) << c.text;
  }
}

TEST(ParseDurationTest, Errors) {
  EXPECT_NE(ParseDuration("10 mins").status().message().find(
                "unknown time unit 'mins'"),
            std::string::npos);
  EXPECT_FALSE(ParseDuration("10S").ok());  // units are case-sensitive
  EXPECT_FALSE(ParseDuration("10 sec").ok());
  EXPECT_NE(ParseDuration("s").status().message().find("no number"),
            std::string::npos);
  EXPECT_FALSE(ParseDuration("").ok());
  EXPECT_FALSE(ParseDuration("1.2.3s").ok());
  EXPECT_FALSE(ParseDuration("ten s").ok());
  EXPECT_NE(ParseDuration("9999999999999999 d")
                .status()
                .message()
                .find("out of range"),
            std::string::npos);
  EXPECT_NE(ParseDuration("1e300 d").status().message().find("out of range"),
            std::string::npos);
}

TEST(ParseBytesTest, EveryUnit) {
  struct Case {
    const char* text;
    int64_t want;
  } cases[] = {
      {"100", 100},
      {"100B", 100},
      {"100 b", 100},
      {"1 byte", 1},
      {"2 bytes", 2},
      {"1kB", 1000},
      {"1 kilobyte", 1000},
      {"1MB", 1000000},
      {"1 megabytes", 1000000},
      {"1GB", 1000000000},
      {"1TB", 1000000000000},
      {"1PB", 1000000000000000},
      {"1EB", 1000000000000000000},
      {"0.000001 ZB", 1000000000000000},
      {"1K", 1024},
      {"1k", 1024},
      {"1Ki", 1024},
      {"1KiB", 1024},
      {"1 kibibyte", 1024},
      {"2M", 2 << 20},
      {"2 MiB", 2 << 20},
      {"1G", int64_t{1} << 30},
      {"1 gibibytes", int64_t{1} << 30},
      {"1T", int64_t{1} << 40},
      {"1P", int64_t{1} << 50},
      {"1E", int64_t{1} << 60},
      {"1.5KiB", 1536},
      {" 0.5 k ", 512},
      {"-1", -1},
  };
  for (const Case& c : cases) {
    absl::StatusOr<int64_t> b = ParseBytes(c.text);
    ASSERT_TRUE(b.ok()) << c.text << ": " << b.status();
    EXPECT_EQ(*b, c.want) << c.text;
  }
}

TEST(ParseBytesTest, Errors) {
  EXPECT_NE(ParseBytes("1 KB").status().message().find("unknown size unit"),
            std::string::npos);  // kB or K, but not KB
  EXPECT_FALSE(ParseBytes("1 kb").ok());
  EXPECT_FALSE(ParseBytes("KiB").ok());
  EXPECT_NE(ParseBytes("1ZB").status().message().find("out of range"),
            std::string::npos);
  EXPECT_NE(ParseBytes("8E").status().message().find("out of range"),
            std::string::npos);
  EXPECT_NE(ParseBytes("1 YiB").status().message().find("out of range"),
            std::string::npos);
  EXPECT_FALSE(ParseBytes("99999999999999999999").ok());
  EXPECT_EQ(*ParseBytes("0 YiB"), 0);
}

}  // namespace
}  // namespace cairn::hocon
