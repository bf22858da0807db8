// Durations and sizes written as text, as HOCON's getDuration/getBytes
// read them.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hocon/config.h"

namespace cairn::hocon {
namespace {

// Splits "1.5 h" into the number and the unit.
bool SplitNumberUnit(std::string_view text, std::string* number,
                     std::string* unit) {
  std::string t(absl::StripAsciiWhitespace(std::string(text)));
  size_t i = 0;
  while (i < t.size() &&
         (absl::ascii_isdigit(t[i]) || t[i] == '.' || t[i] == '-' ||
          t[i] == '+' || t[i] == 'e' || t[i] == 'E')) {
    // An 'e' that starts a unit word (e.g. none here) would need care; no
    // duration or size unit starts with e or E except "EB"/"E"/"Ei".
    if ((t[i] == 'e' || t[i] == 'E') &&
        (i + 1 >= t.size() || !(absl::ascii_isdigit(t[i + 1]) ||
                                t[i + 1] == '-' || t[i + 1] == '+'))) {
      break;
    }
    ++i;
  }
  *number = t.substr(0, i);
  *unit = std::string(absl::StripAsciiWhitespace(t.substr(i)));
  return !number->empty();
}

}  // namespace

absl::StatusOr<absl::Duration> ParseDuration(std::string_view text) {
  std::string number, unit;
  double value = 0;
  if (!SplitNumberUnit(text, &number, &unit) ||
      !absl::SimpleAtod(number, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", std::string(text), "' is not a duration"));
  }
  static const std::vector<std::pair<std::vector<std::string>, absl::Duration>>
      kUnits = {
          {{"", "ms", "milli", "millis", "millisecond", "milliseconds"},
           absl::Milliseconds(1)},
          {{"ns", "nano", "nanos", "nanosecond", "nanoseconds"},
           absl::Nanoseconds(1)},
          {{"us", "micro", "micros", "microsecond", "microseconds"},
           absl::Microseconds(1)},
          {{"s", "second", "seconds"}, absl::Seconds(1)},
          {{"m", "minute", "minutes"}, absl::Minutes(1)},
          {{"h", "hour", "hours"}, absl::Hours(1)},
          {{"d", "day", "days"}, absl::Hours(24)},
      };
  for (const auto& [names, scale] : kUnits) {
    for (const std::string& name : names) {
      if (unit == name) return scale * value;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("'", std::string(text), "': unknown duration unit '", unit,
                   "' (use ns, us, ms, s, m, h or d)"));
}

absl::StatusOr<int64_t> ParseBytes(std::string_view text) {
  std::string number, unit;
  double value = 0;
  if (!SplitNumberUnit(text, &number, &unit) ||
      !absl::SimpleAtod(number, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", std::string(text), "' is not a size in bytes"));
  }
  static const char* kPrefixes = "KMGTPEZY";
  static const char* kLong[] = {"kilo", "mega", "giga",  "tera",
                                "peta", "exa",  "zetta", "yotta"};
  static const char* kLongBinary[] = {"kibi", "mebi", "gibi", "tebi",
                                      "pebi", "exbi", "zebi", "yobi"};
  double scale = 0;
  if (unit.empty() || unit == "B" || unit == "b" || unit == "byte" ||
      unit == "bytes") {
    scale = 1;
  }
  for (int i = 0; i < 8 && scale == 0; ++i) {
    const char p = kPrefixes[i];
    const std::string upper(1, p);
    const std::string lower(1, static_cast<char>(absl::ascii_tolower(p)));
    const double decimal = std::pow(1000.0, i + 1);
    const double binary = std::pow(1024.0, i + 1);
    // kB (lower k) is the customary spelling of kilobyte.
    if (unit == upper + "B" || (i == 0 && unit == "kB") ||
        unit == std::string(kLong[i]) + "byte" ||
        unit == std::string(kLong[i]) + "bytes") {
      scale = decimal;
    } else if (unit == upper || unit == lower || unit == upper + "i" ||
               unit == upper + "iB" ||
               unit == std::string(kLongBinary[i]) + "byte" ||
               unit == std::string(kLongBinary[i]) + "bytes") {
      scale = binary;
    }
  }
  if (scale == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", std::string(text), "': unknown size unit '", unit, "'"));
  }
  const double bytes = value * scale;
  if (!(bytes >= -9.2e18 && bytes <= 9.2e18)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", std::string(text), "' is too large"));
  }
  return static_cast<int64_t>(std::llround(bytes));
}

}  // namespace cairn::hocon
