#include "hocon/internal/number.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "absl/strings/numbers.h"
#include "hocon/internal/string_view.h"

namespace cairn::hocon::internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Skips digits from `pos`; returns how many.
std::size_t Digits(std::string_view text, std::size_t& pos) {
  std::size_t start = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  return pos - start;
}

}  // namespace

bool IsIntegerSyntax(std::string_view text) {
  std::size_t pos = 0;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  if (Digits(text, pos) == 0 || pos != text.size()) return false;
  int64_t unused;
  std::string_view digits = text[0] == '+' ? text.substr(1) : text;
  return absl::SimpleAtoi(Av(digits), &unused);
}

bool IsDoubleSyntax(std::string_view text) {
  std::size_t pos = 0;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  std::size_t whole = Digits(text, pos);
  std::size_t fraction = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    fraction = Digits(text, pos);
  }
  if (whole == 0 && fraction == 0) return false;
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    ++pos;
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
    if (Digits(text, pos) == 0) return false;
  }
  return pos == text.size();
}

bool IsIntegerText(std::string_view text) {
  return text.find_first_of(".eE") == std::string_view::npos;
}

int64_t NumberAsLong(std::string_view text) {
  if (IsIntegerText(text)) {
    int64_t v = 0;
    std::string_view digits = text[0] == '+' ? text.substr(1) : text;
    if (absl::SimpleAtoi(Av(digits), &v)) return v;
  }
  double d = NumberAsDouble(text);
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

double NumberAsDouble(std::string_view text) {
  std::string s(text);
  return std::strtod(s.c_str(), nullptr);
}

std::optional<std::string> StringAsNumberText(std::string_view text) {
  if (IsIntegerSyntax(text) || IsDoubleSyntax(text)) return std::string(text);
  return std::nullopt;
}

std::string JsonNumber(std::string_view text) {
  std::string out;
  std::size_t pos = 0;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    if (text[pos] == '-') out.push_back('-');
    ++pos;
  }
  std::size_t start = pos;
  Digits(text, pos);
  std::string_view whole = text.substr(start, pos - start);
  while (whole.size() > 1 && whole.front() == '0') whole.remove_prefix(1);
  out.append(whole.empty() ? "0" : whole);
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    start = pos;
    if (Digits(text, pos) > 0) {
      out.push_back('.');
      out.append(text.substr(start, pos - start));
    } else if (pos == text.size()) {
      // "1." is floating point: "1" would read back as an integer, and one
      // beyond int64 as a string.
      out.append(".0");
    }
  }
  out.append(text.substr(pos));  // the exponent, valid JSON as written
  return out;
}

}  // namespace cairn::hocon::internal
