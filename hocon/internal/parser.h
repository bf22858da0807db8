#ifndef CAIRN_HOCON_INTERNAL_PARSER_H_
#define CAIRN_HOCON_INTERNAL_PARSER_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hocon/internal/value.h"

namespace cairn::hocon::internal {

enum class IncludeKind {
  kHeuristic,  // include "name"
  kFile,       // include file("name")
  kUrl,        // include url("name")
  kClasspath,  // include classpath("name")
};

struct IncludeRequest {
  IncludeKind kind = IncludeKind::kHeuristic;
  std::string name;
  bool required = false;  // include required(...)
  Origin origin;          // of the include statement, for errors
};

// Finds and parses what an include statement names. The parser merges the
// result into the including object and moves its substitutions below the
// include point.
class Includer {
 public:
  virtual ~Includer() = default;
  // The included document's root object; an empty object when an optional
  // include finds nothing. Errors: NotFound for a missing required
  // include, the included file's own parse errors, anything else that
  // stops the include (a cycle, an unsupported kind).
  virtual absl::StatusOr<ValuePtr> Include(const IncludeRequest& request) = 0;
};

// Parses a HOCON document into an unresolved tree whose root is an object
// (the root braces may be omitted; a root list is an error). `file` names
// the text in origins and errors ("file:line:column: message", all
// InvalidArgument). `includer` may be null, which makes include
// statements an error.
absl::StatusOr<ValuePtr> ParseHocon(std::string_view text, SourceName file,
                                    Includer* includer);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_PARSER_H_
