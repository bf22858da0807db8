#ifndef CAIRN_HOCON_INTERNAL_JSON_STRING_H_
#define CAIRN_HOCON_INTERNAL_JSON_STRING_H_

#include <string>
#include <string_view>

namespace cairn::hocon::internal {

// `text` as a JSON string literal, quotes included: `"`, `\` and control
// characters escaped, other UTF-8 kept as is.
std::string JsonQuote(std::string_view text);
void AppendJsonQuoted(std::string_view text, std::string* out);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_JSON_STRING_H_
