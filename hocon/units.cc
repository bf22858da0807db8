#include "hocon/units.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
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

enum class Scaled { kOk, kNotANumber, kOutOfRange };

// How a product with a fraction becomes an integer.
enum class Rounding {
  kTowardZero,
  kNearest,  // an exact half toward zero
};

// `number` (optional sign, digits with an optional fraction, an optional
// exponent) times `unit`, computed exactly on the decimal digits and
// rounded to an integer as `rounding` says. Binary floating point would
// be off by one for many short decimals (2.01 s is 2009999999.99... ns as
// a double product). Linear in the length of `number`.
Scaled ScaleDecimal(std::string_view number, unsigned __int128 unit,
                    Rounding rounding, int64_t* out) {
  std::size_t i = 0;
  bool negative = false;
  if (i < number.size() && (number[i] == '+' || number[i] == '-')) {
    negative = number[i] == '-';
    ++i;
  }
  std::string digits;  // integer and fraction digits, without the point
  int64_t exponent = 0;
  while (i < number.size() && number[i] >= '0' && number[i] <= '9') {
    digits.push_back(number[i++]);
  }
  if (i < number.size() && number[i] == '.') {
    ++i;
    while (i < number.size() && number[i] >= '0' && number[i] <= '9') {
      digits.push_back(number[i++]);
      --exponent;
    }
  }
  if (digits.empty()) return Scaled::kNotANumber;
  if (i < number.size() && (number[i] == 'e' || number[i] == 'E')) {
    ++i;
    bool minus = false;
    if (i < number.size() && (number[i] == '+' || number[i] == '-')) {
      minus = number[i] == '-';
      ++i;
    }
    std::size_t first = i;
    int64_t e = 0;
    // Saturates: past a billion the value is 0 or out of range anyway.
    while (i < number.size() && number[i] >= '0' && number[i] <= '9') {
      e = std::min<int64_t>(e * 10 + (number[i++] - '0'), 1000000000);
    }
    if (i == first) return Scaled::kNotANumber;
    exponent += minus ? -e : e;
  }
  if (i != number.size()) return Scaled::kNotANumber;
  // value = digits * 10^exponent; trailing zeros move into the exponent.
  std::size_t lead = digits.find_first_not_of('0');
  if (lead == std::string::npos || unit == 0) {
    *out = 0;
    return Scaled::kOk;
  }
  digits.erase(0, lead);
  while (digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  // Far more digits than int64 holds, even times the smallest unit.
  if (exponent > 0 && static_cast<int64_t>(digits.size()) + exponent > 60) {
    return Scaled::kOutOfRange;
  }
  if (exponent > 0) {
    digits.append(static_cast<std::size_t>(exponent), '0');
    exponent = 0;
  }
  // digits * unit in base 10^9 limbs, least significant first: a limb
  // times the unit (below 2^81) plus the carry stays below 2^128.
  constexpr uint32_t kBase = 1000000000;
  std::vector<uint32_t> product;
  product.reserve(digits.size() / 9 + 4);
  unsigned __int128 carry = 0;
  for (std::size_t end = digits.size(); end > 0;) {
    std::size_t begin = end >= 9 ? end - 9 : 0;
    uint32_t limb = 0;
    for (std::size_t k = begin; k < end; ++k)
      limb = limb * 10 + (digits[k] - '0');
    carry += static_cast<unsigned __int128>(limb) * unit;
    product.push_back(static_cast<uint32_t>(carry % kBase));
    carry /= kBase;
    end = begin;
  }
  while (carry > 0) {
    product.push_back(static_cast<uint32_t>(carry % kBase));
    carry /= kBase;
  }
  std::string scaled;
  scaled.reserve(product.size() * 9);
  for (std::size_t k = product.size(); k-- > 0;) {
    std::string limb = std::to_string(product[k]);
    if (k + 1 != product.size()) scaled.append(9 - limb.size(), '0');
    scaled += limb;
  }
  // The last -exponent digits are the fraction (with zeros before them
  // when there are fewer digits than that).
  const std::size_t fraction = static_cast<std::size_t>(
      std::min<int64_t>(-exponent, static_cast<int64_t>(scaled.size())));
  // Above a half: the first digit of the fraction is more than 5, or is 5
  // with a digit other than 0 after it. (A fraction starting with an
  // implied zero is below a tenth.)
  bool round_up = false;
  if (rounding == Rounding::kNearest && fraction > 0 &&
      static_cast<int64_t>(fraction) == -exponent) {
    const std::string_view dropped =
        std::string_view(scaled).substr(scaled.size() - fraction);
    round_up = dropped[0] > '5' ||
               (dropped[0] == '5' &&
                dropped.find_first_not_of('0', 1) != std::string_view::npos);
  }
  scaled.resize(scaled.size() - fraction);
  if (round_up) {
    std::size_t k = scaled.size();
    while (k > 0 && scaled[k - 1] == '9') scaled[--k] = '0';
    if (k == 0) {
      scaled.insert(scaled.begin(), '1');
    } else {
      ++scaled[k - 1];
    }
  }
  lead = scaled.find_first_not_of('0');
  scaled.erase(0, lead == std::string::npos ? scaled.size() : lead);
  // int64 reaches one further below zero than above.
  const std::string_view limit =
      negative ? "9223372036854775808" : "9223372036854775807";
  if (scaled.size() > limit.size() ||
      (scaled.size() == limit.size() && scaled > limit)) {
    return Scaled::kOutOfRange;
  }
  uint64_t magnitude = 0;
  for (char c : scaled) magnitude = magnitude * 10 + (c - '0');
  // Modulo 2^64, then to int64 (well defined since C++20): -2^63 too.
  *out = static_cast<int64_t>(negative ? 0 - magnitude : magnitude);
  return Scaled::kOk;
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

// Bytes per unit, exact: YiB is 2^80.
const std::map<std::string, unsigned __int128, std::less<>>& ByteUnits() {
  static const auto* units = [] {
    auto* m = new std::map<std::string, unsigned __int128, std::less<>>;
    for (const char* b : {"", "B", "b", "byte", "bytes"}) (*m)[b] = 1;
    const char* decimal[] = {"kilo", "mega", "giga",  "tera",
                             "peta", "exa",  "zetta", "yotta"};
    const char* binary[] = {"kibi", "mebi", "gibi", "tebi",
                            "pebi", "exbi", "zebi", "yobi"};
    const char letters[] = "kmgtpezy";
    unsigned __int128 ten = 1;
    unsigned __int128 two = 1;
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
  int64_t nanos;
  // To the nearest nanosecond: the reference multiplies in double
  // precision, which turns 0.01666666666666666666666m (short of 1 s by
  // less than a nanosecond) into exactly 1 s; truncating the exact
  // product would give 999999999 ns.
  switch (ScaleDecimal(number, it->second, Rounding::kNearest, &nanos)) {
    case Scaled::kNotANumber:
      return Invalid("not a number in the duration", text);
    case Scaled::kOutOfRange:
      return Invalid("duration out of range", text);
    case Scaled::kOk:
      break;
  }
  return absl::Nanoseconds(nanos);
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
  int64_t bytes;
  // Toward zero: the reference multiplies exact decimals here
  // (BigDecimal) and drops the fraction.
  switch (ScaleDecimal(number, it->second, Rounding::kTowardZero, &bytes)) {
    case Scaled::kNotANumber:
      return Invalid("not a number in the size", text);
    case Scaled::kOutOfRange:
      return Invalid("size out of range for 64 bits", text);
    case Scaled::kOk:
      break;
  }
  return bytes;
}

}  // namespace cairn::hocon
