#include "hocon/units.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/status_testing.h"
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
      {"1.0000000009s", absl::Nanoseconds(1000000001)},  // to the nearest
  };
  for (const Case& c : cases) {
    absl::StatusOr<absl::Duration> d = ParseDuration(c.text);
    ASSERT_OK(d) << c.text;
    EXPECT_EQ(*d, c.want) << c.text;
  }
}

// A fraction or an exponent denotes an exact decimal: the result is that
// decimal times the unit, rounded to the nearest nanosecond (an exact
// half toward zero), never off by one through binary floating point.
TEST(ParseDurationTest, FractionsAndExponentsAreExactDecimals) {
  struct Case {
    const char* text;
    int64_t nanos;
  } cases[] = {
      {"1.5s", 1500000000},
      // Each of these was one nanosecond short through long double.
      {"260494.24890e-3 s", 260494248900},
      {"8.819482891 m", 529168973460},
      {"8794.31 h", 31659516000000000},
      {"1.3e-4 h", 468000000},
      {"142.26530 d", 12291721920000000},
      {"1e3 ms", 1000000000},
      {"1E3ms", 1000000000},
      {"2.5e-3 s", 2500000},
      {"4.35 s", 4350000000},
      {"0.29 s", 290000000},
      {"1.1 s", 1100000000},
      {"12345.6789 us", 12345679},  // 12345678.9 ns
      {"12345.6784 us", 12345678},  // 12345678.4 ns
      {"-12345.6789 us", -12345679},
      {"1.5 ns", 1},  // an exact half: toward zero
      {"2.5 ns", 2},
      {"1.5000000000000000000001 ns", 2},
      {"-1.5 ns", -1},
      {"-0.5 ns", 0},
      {"0.5000000000000000000001 ns", 1},
      {"-0.5000000000000000000001 ns", -1},
      {"0.9999 ns", 1},
      {"1e-9 s", 1},
      {"1e-10 s", 0},
      {"6e-10 s", 1},
      {"9.99999999951 s", 10000000000},  // the carry runs through
      {"2.01 s", 2010000000},            // 2009999999 in the reference's double
      {"0.000000001e9 ns", 1},
      {"1.00000000000000000000000000001 s", 1000000000},
      {"9223372036.854775807 s", 9223372036854775807},
      {"106751.99116730063741 d", 9223372036854775072},  // .224
      {"9223372036854775807.4 ns", 9223372036854775807},
      {"-9223372036854775808 ns", std::numeric_limits<int64_t>::min()},
      {".5 s", 500000000},
      {"5. ms", 5000000},
      {"0e999999999999 s", 0},
  };
  for (const Case& c : cases) {
    absl::StatusOr<absl::Duration> d = ParseDuration(c.text);
    ASSERT_OK(d) << c.text;
    EXPECT_EQ(*d, absl::Nanoseconds(c.nanos)) << c.text;
  }
  // Every millisecond of a second written as a fraction of seconds.
  for (int ms = 0; ms < 1000; ++ms) {
    std::string text = absl::StrFormat("7.%03d s", ms);
    absl::StatusOr<absl::Duration> d = ParseDuration(text);
    ASSERT_OK(d) << text;
    EXPECT_EQ(*d, absl::Nanoseconds(7000000000 + ms * int64_t{1000000}))
        << text;
  }
  EXPECT_NE(ParseDuration("9223372036854775807.5000001 ns")
                .status()
                .message()
                .find("out of range"),
            std::string::npos);
  EXPECT_NE(ParseDuration("9223372036.854775808 s")
                .status()
                .message()
                .find("out of range"),
            std::string::npos);
  EXPECT_NE(ParseDuration("1e999999999999999999999 ns")
                .status()
                .message()
                .find("out of range"),
            std::string::npos);
}

// Every case of the reference's UnitParserTest.parseDuration (and
// parseOneDayAsMilliseconds): all one second. The fractional ones are
// short of it by less than a nanosecond as exact decimals, which the
// reference's double arithmetic rounds away.
TEST(ParseDurationTest, ReferenceUnitParserCases) {
  for (const char* text : {"1s",
                           "1 s",
                           "1seconds",
                           "1 seconds",
                           "   1s    ",
                           "   1    s   ",
                           "1second",
                           "1000",
                           "1000ms",
                           "1000 ms",
                           "1000   milliseconds",
                           "   1000       milliseconds    ",
                           "1000millisecond",
                           "1000000us",
                           "1000000   us",
                           "1000000 microseconds",
                           "1000000microsecond",
                           "1000000000ns",
                           "1000000000 ns",
                           "1000000000  nanoseconds",
                           "1000000000nanosecond",
                           "0.01666666666666666666666m",
                           "0.01666666666666666666666 minutes",
                           "0.01666666666666666666666 minute",
                           "0.00027777777777777777777h",
                           "0.00027777777777777777777 hours",
                           "0.00027777777777777777777hour",
                           "1.1574074074074073e-05d",
                           "1.1574074074074073e-05  days",
                           "1.1574074074074073e-05day"}) {
    absl::StatusOr<absl::Duration> d = ParseDuration(text);
    ASSERT_OK(d) << text;
    EXPECT_EQ(*d, absl::Seconds(1)) << text;
  }
  EXPECT_EQ(ParseDuration("1d").value_or(absl::ZeroDuration()),
            absl::Hours(24));
  EXPECT_NE(ParseDuration("100 dollars").status().message().find("time unit"),
            std::string::npos);
  EXPECT_NE(ParseDuration("1 00 seconds").status().message().find("number"),
            std::string::npos);
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
    ASSERT_OK(b) << c.text;
    EXPECT_EQ(*b, c.want) << c.text;
  }
}

// The exact decimal times the unit, rounded toward zero as the reference
// does (unlike durations, which it computes in double precision).
TEST(ParseBytesTest, FractionsAndExponentsAreExactDecimals) {
  struct Case {
    const char* text;
    int64_t want;
  } cases[] = {
      {"0.1 MiB", 104857},  // 104857.6
      {"0.1 MB", 100000},
      {"1.1 GB", 1100000000},
      {"1.5e3 KiB", 1536000},
      {"1E2 kB", 100000},
      {"2.5e-3 MB", 2500},
      {"0.5 B", 0},
      {"0.7 KiB", 716},  // 716.8
      {"0.9999 B", 0},
      {"-1.5 B", -1},
      {"0.3 kB", 300},
      {"0.7 TB", 700000000000},
      {"1e-24 YB", 1},
      {"0.0000001 YiB", 120892581961462917},  // 120892581961462917.4706176
      {"7.999999999999999999 E", 9223372036854775806},
  };
  for (const Case& c : cases) {
    absl::StatusOr<int64_t> b = ParseBytes(c.text);
    ASSERT_OK(b) << c.text;
    EXPECT_EQ(*b, c.want) << c.text;
  }
  for (int permille = 0; permille < 1000; ++permille) {
    std::string text = absl::StrFormat("3.%03d MB", permille);
    absl::StatusOr<int64_t> b = ParseBytes(text);
    ASSERT_OK(b) << text;
    EXPECT_EQ(*b, 3000000 + permille * 1000) << text;
  }
  EXPECT_NE(ParseBytes("8.0 E").status().message().find("out of range"),
            std::string::npos);
}

// Every case of the reference's UnitParserTest.parseMemorySizeInBytes and
// parseHugeMemorySizes, and the int64 limits the reference accepts.
TEST(ParseBytesTest, ReferenceUnitParserCases) {
  for (const char* text : {"1048576",
                           "1048576b",
                           "1048576bytes",
                           "1048576byte",
                           "1048576  b",
                           "1048576  bytes",
                           "    1048576  b   ",
                           "  1048576  bytes   ",
                           "1048576B",
                           "1024k",
                           "1024K",
                           "1024Ki",
                           "1024KiB",
                           "1024 kibibytes",
                           "1024 kibibyte",
                           "1m",
                           "1M",
                           "1 M",
                           "1Mi",
                           "1MiB",
                           "1 mebibytes",
                           "1 mebibyte",
                           "0.0009765625g",
                           "0.0009765625G",
                           "0.0009765625Gi",
                           "0.0009765625GiB",
                           "0.0009765625 gibibytes",
                           "0.0009765625 gibibyte"}) {
    absl::StatusOr<int64_t> b = ParseBytes(text);
    ASSERT_OK(b) << text;
    EXPECT_EQ(*b, 1024 * 1024) << text;
  }
  for (const char* text :
       {"1000000", "1000000b", "1000000bytes", "1000000byte", "1000000  b",
        "1000000  bytes", "    1000000  b   ", "  1000000  bytes   ",
        "1000000B", "1000kB", "1000 kilobytes", "1000 kilobyte", "1MB",
        "1 megabytes", "1 megabyte", ".001GB", ".001 gigabytes",
        ".001 gigabyte"}) {
    absl::StatusOr<int64_t> b = ParseBytes(text);
    ASSERT_OK(b) << text;
    EXPECT_EQ(*b, 1000 * 1000) << text;
  }
  int64_t binary = int64_t{1} << 30;
  for (std::string unit : {"tebi", "pebi", "exbi"}) {
    std::string first(1, static_cast<char>(unit[0] - 'a' + 'A'));
    binary *= 1024;
    for (const std::string& text :
         {"1" + first, "1" + first + "i", "1" + first + "iB",
          "1" + unit + "byte", "1" + unit + "bytes"}) {
      EXPECT_EQ(ParseBytes(text).value_or(-1), binary) << text;
    }
  }
  int64_t decimal = 1000000000;
  for (std::string unit : {"tera", "peta", "exa"}) {
    std::string first(1, static_cast<char>(unit[0] - 'a' + 'A'));
    decimal *= 1000;
    for (const std::string& text :
         {"1" + first + "B", "1" + unit + "byte", "1" + unit + "bytes"}) {
      EXPECT_EQ(ParseBytes(text).value_or(-1), decimal) << text;
    }
  }
  EXPECT_NE(ParseBytes("100 dollars").status().message().find("size unit"),
            std::string::npos);
  EXPECT_NE(ParseBytes("1 00 bytes").status().message().find("number"),
            std::string::npos);
  std::vector<std::string> too_big = {"1000 exabytes", "10000000 petabytes",
                                      "9223372036854775808 bytes",
                                      "-9223372036854775809 bytes"};
  for (std::string unit : {"zebi", "yobi"}) {
    std::string first(1, static_cast<char>(unit[0] - 'a' + 'A'));
    for (const std::string& text :
         {"1" + first, "1" + first + "i", "1" + first + "iB",
          "1" + unit + "byte", "1" + unit + "bytes", "1.1" + first,
          "-1" + first}) {
      too_big.push_back(text);
    }
  }
  for (std::string unit : {"zetta", "yotta"}) {
    std::string first(1, static_cast<char>(unit[0] - 'a' + 'A'));
    for (const std::string& text :
         {"1" + first + "B", "1" + unit + "byte", "1" + unit + "bytes",
          "1.1" + first + "B", "-1" + first + "B"}) {
      too_big.push_back(text);
    }
  }
  for (const std::string& text : too_big) {
    EXPECT_NE(ParseBytes(text).status().message().find("out of range"),
              std::string::npos)
        << text;
  }
  EXPECT_EQ(ParseBytes("9223372036854775807 bytes").value_or(0),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseBytes("-9223372036854775808 bytes").value_or(0),
            std::numeric_limits<int64_t>::min());
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
