#include "sharding/internal/entity_name.h"

#include <cctype>

namespace cairn::sharding::internal {

std::string EntityName(std::string_view id) {
  if (id.empty()) return "~";
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string name;
  name.reserve(id.size());
  for (unsigned char c : id) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
      name.push_back(static_cast<char>(c));
    } else {
      name.push_back('~');
      name.push_back(kHex[c >> 4]);
      name.push_back(kHex[c & 15]);
    }
  }
  return name;
}

}  // namespace cairn::sharding::internal
