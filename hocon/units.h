#ifndef CAIRN_HOCON_UNITS_H_
#define CAIRN_HOCON_UNITS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cairn::hocon {

// The unit formats of HOCON's API recommendations, as Config::GetDuration
// and Config::GetBytes read string values: optional whitespace, a number,
// optional whitespace, an optional unit made of letters. Pure functions;
// errors are InvalidArgument naming the text (no origin or path, which
// the Config getters add).

// Units, case-sensitive: ns nano(s) nanosecond(s), us micro(s)
// microsecond(s), ms milli(s) millisecond(s), s second(s), m minute(s),
// h hour(s), d day(s); none means milliseconds. The number may have a
// fraction and an exponent (`1.5s`, `2.5e-3 s`); it is taken as the exact
// decimal it denotes, times the unit, rounded to the nearest nanosecond
// (an exact half toward zero), so `0.01666666666666666666666m` is 1 s as
// in the reference. Out of the int64 nanosecond range is an error.
absl::StatusOr<absl::Duration> ParseDuration(std::string_view text);

// Units: B b byte(s); powers of ten kB MB GB TB PB EB ZB YB and
// kilobyte(s)..yottabyte(s); powers of two K k Ki KiB, M m Mi MiB, ...
// Y y Yi YiB and kibibyte(s)..yobibyte(s); none means bytes. Fractions and
// exponents (`0.1 MiB`, `1e3 kB`) are exact decimals, the product rounded
// toward zero to whole bytes (as the reference does); results beyond
// int64 are an error.
absl::StatusOr<int64_t> ParseBytes(std::string_view text);

}  // namespace cairn::hocon

#endif  // CAIRN_HOCON_UNITS_H_
