#ifndef CAIRN_SHARDING_INTERNAL_ENTITY_NAME_H_
#define CAIRN_SHARDING_INTERNAL_ENTITY_NAME_H_

#include <string>
#include <string_view>

namespace cairn::sharding::internal {

// An actor name for an entity or shard id: letters, digits, '-', '_' and
// '.' as they are, anything else as '~' and two hex digits (Akka
// URL-encodes entity ids; '%' is not a character of cairn's actor names),
// so different ids never share a name. The empty id is "~".
std::string EntityName(std::string_view id);

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_ENTITY_NAME_H_
