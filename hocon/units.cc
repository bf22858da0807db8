#include "hocon/units.h"

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hocon/internal/excerpt.h"

namespace cairn::hocon {
namespace {

bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsAsciiLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Splits "1.5 KiB" into ("1.5", "KiB").
std::pair<std::string_view, std::string_view> SplitUnit(std::string_view s) {
  s = Trim(s);
  std::size_t unit = s.size();
  while (unit > 0 && IsAsciiLetter(s[unit - 1])) --unit;
  return {Trim(s.substr(0, unit)), s.substr(unit)};
}

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A decimal number: optional sign, digits with an optional fraction, an
// optional exponent.
bool ParseDecimal(std::string_view s, long double* out) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exp = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp;
    if (exp == 0) return false;
  }
  if (i != s.size()) return false;
  *out = std::strtold(std::string(s).c_str(), nullptr);
  return true;
}

absl::Status Invalid(absl::string_view what, std::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " '", internal::Excerpt(text), "'"));
}

const std::map<std::string, int64_t, std::less<>>& DurationUnits() {
  static const auto* units = new std::map<std::string, int64_t, std::less<>>{
      {"", 1000000},
      {"ns", 1},
      {"nano", 1},
      {"nanos", 1},
      {"nanosecond", 1},
      {"nanoseconds", 1},
      {"us", 1000},
      {"micro", 1000},
      {"micros", 1000},
      {"microsecond", 1000},
      {"microseconds", 1000},
      {"ms", 1000000},
      {"milli", 1000000},
      {"millis", 1000000},
      {"millisecond", 1000000},
      {"milliseconds", 1000000},
      {"s", 1000000000LL},
      {"second", 1000000000LL},
      {"seconds", 1000000000LL},
      {"m", 60000000000LL},
      {"minute", 60000000000LL},
      {"minutes", 60000000000LL},
      {"h", 3600000000000LL},
      {"hour", 3600000000000LL},
      {"hours", 3600000000000LL},
      {"d", 86400000000000LL},
      {"day", 86400000000000LL},
      {"days", 86400000000000LL},
  };
  return *units;
}

// Bytes per unit as a long double: exact up to 2^64, and YiB (2^80) is
// still exact as a power of two.
const std::map<std::string, long double, std::less<>>& ByteUnits() {
  static const auto* units = [] {
    auto* m = new std::map<std::string, long double, std::less<>>;
    for (const char* b : {"", "B", "b", "byte", "bytes"}) (*m)[b] = 1;
    const char* decimal[] = {"kilo", "mega", "giga",  "tera",
                             "peta", "exa",  "zetta", "yotta"};
    const char* binary[] = {"kibi", "mebi", "gibi", "tebi",
                            "pebi", "exbi", "zebi", "yobi"};
    const char letters[] = "kmgtpezy";
    long double ten = 1;
    long double two = 1;
    for (int i = 0; i < 8; ++i) {
      ten *= 1000;
      two *= 1024;
      std::string d = decimal[i];
      (*m)[d + "byte"] = ten;
      (*m)[d + "bytes"] = ten;
      std::string upper(1, static_cast<char>(letters[i] - 'a' + 'A'));
      (*m)[i == 0 ? std::string("kB") : upper + "B"] = ten;
      std::string bi = binary[i];
      (*m)[bi + "byte"] = two;
      (*m)[bi + "bytes"] = two;
      (*m)[std::string(1, letters[i])] = two;
      (*m)[upper] = two;
      (*m)[upper + "i"] = two;
      (*m)[upper + "iB"] = two;
    }
    return m;
  }();
  return *units;
}

}  // namespace

absl::StatusOr<absl::Duration> ParseDuration(std::string_view text) {
  auto [number, unit] = SplitUnit(text);
  if (number.empty()) return Invalid("no number in the duration", text);
  auto it = DurationUnits().find(unit);
  if (it == DurationUnits().end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown time unit '", internal::Excerpt(unit), "' in '",
        internal::Excerpt(text), "' (use ns, us, ms, s, m, h or d)"));
  }
  int64_t per_unit = it->second;
  std::string_view digits = number;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    digits.remove_prefix(1);
  }
  if (IsDigits(digits)) {
    int64_t n;
    int64_t nanos;
    if (!absl::SimpleAtoi(absl::string_view(number.data(), number.size()),
                          &n) ||
        __builtin_mul_overflow(n, per_unit, &nanos)) {
      return Invalid("duration out of range", text);
    }
    return absl::Nanoseconds(nanos);
  }
  long double value;
  if (!ParseDecimal(number, &value)) {
    return Invalid("not a number in the duration", text);
  }
  long double nanos = std::trunc(value * per_unit);
  if (!(nanos >= -9223372036854775807.0L && nanos <= 9223372036854775807.0L)) {
    return Invalid("duration out of range", text);
  }
  return absl::Nanoseconds(static_cast<int64_t>(nanos));
}

absl::StatusOr<int64_t> ParseBytes(std::string_view text) {
  auto [number, unit] = SplitUnit(text);
  if (number.empty()) return Invalid("no number in the size", text);
  auto it = ByteUnits().find(unit);
  if (it == ByteUnits().end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown size unit '", internal::Excerpt(unit), "' in '",
                     internal::Excerpt(text),
                     "' (use B, kB, MB, .. or K, Ki, KiB, M, Mi, MiB, ..)"));
  }
  long double value;
  if (!ParseDecimal(number, &value)) {
    return Invalid("not a number in the size", text);
  }
  if (IsDigits(number)) {
    // Exact for integers: 128-bit arithmetic covers int64 times 2^64.
    __int128 n = 0;
    for (char c : number) {
      n = n * 10 + (c - '0');
      if (n > static_cast<__int128>(INT64_MAX)) {
        return Invalid("size out of range for 64 bits", text);
      }
    }
    long double per_unit = it->second;
    if (per_unit > 9223372036854775807.0L) {
      if (n == 0) return 0;
      return Invalid("size out of range for 64 bits", text);
    }
    __int128 bytes = n * static_cast<__int128>(per_unit);
    if (bytes > static_cast<__int128>(INT64_MAX)) {
      return Invalid("size out of range for 64 bits", text);
    }
    return static_cast<int64_t>(bytes);
  }
  long double bytes = std::trunc(value * it->second);
  if (!(bytes >= -9223372036854775807.0L && bytes <= 9223372036854775807.0L)) {
    return Invalid("size out of range for 64 bits", text);
  }
  return static_cast<int64_t>(bytes);
}

}  // namespace cairn::hocon
