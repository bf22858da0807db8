#ifndef CAIRN_HOCON_INTERNAL_NUMBER_H_
#define CAIRN_HOCON_INTERNAL_NUMBER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cairn::hocon::internal {

// Number syntax as the reference implementation reads it (Java's
// Long.parseLong and Double.parseDouble over the characters a number token
// may hold): an integer is `[+-]?digits` within int64; a floating-point
// number is `[+-]?(digits[.digits?]|.digits)([eE][+-]?digits)?`.
bool IsIntegerSyntax(std::string_view text);  // and within int64
bool IsDoubleSyntax(std::string_view text);

// Whether a number written as `text` is an integer (no '.', 'e' or 'E').
bool IsIntegerText(std::string_view text);

// The value of number text (already checked); for a floating-point number,
// AsLong truncates toward zero and saturates, as Java's (long) cast does.
int64_t NumberAsLong(std::string_view text);
double NumberAsDouble(std::string_view text);

// A string as a number, as the reference converts strings a caller reads
// as numbers: integer syntax first, then floating point. nullopt if it is
// neither.
std::optional<std::string> StringAsNumberText(std::string_view text);

// `text` rewritten to be a valid JSON number with the same value and kind
// (integer or floating point): leading zeros dropped, "1." becomes "1.0",
// "1.e5" becomes "1e5", "-.5" becomes "-0.5".
std::string JsonNumber(std::string_view text);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_NUMBER_H_
