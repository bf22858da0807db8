#ifndef CAIRN_HOCON_TESTING_JSON_H_
#define CAIRN_HOCON_TESTING_JSON_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hocon/config_value.h"

namespace cairn::hocon::testing {

// A strict JSON reader, independent of the HOCON parser, so that
// expected values in tests are not read by the code under test.
struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json* Find(std::string_view key) const;
};

// nullopt (with `error` set) when `text` is not one JSON value.
std::optional<Json> ParseJson(std::string_view text, std::string* error);

// Whether `actual` equals `expected`: numbers by value (1 == 1.0), object
// keys in any order. On a difference, `why` says where and what.
bool SameValue(const ConfigValue& actual, const Json& expected,
               const std::string& at, std::string* why);

}  // namespace cairn::hocon::testing

#endif  // CAIRN_HOCON_TESTING_JSON_H_
