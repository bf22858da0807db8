#ifndef CAIRN_HOCON_INTERNAL_JSON_WRITER_H_
#define CAIRN_HOCON_INTERNAL_JSON_WRITER_H_

#include <string>

#include "hocon/internal/value.h"

namespace cairn::hocon::internal {

// JSON for a value: object keys sorted (byte order), numbers as written
// when that is valid JSON (otherwise the same number in JSON syntax).
// Pretty output indents by two spaces. Values not yet resolved appear as
// strings holding their HOCON form ("${a.b}").
std::string RenderJson(const Value& value, bool pretty);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_JSON_WRITER_H_
