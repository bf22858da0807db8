#ifndef CAIRN_HOCON_INTERNAL_PATH_H_
#define CAIRN_HOCON_INTERNAL_PATH_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace cairn::hocon::internal {

// Builds the keys of a path expression from its pieces, in order. Dots
// separate keys only in unquoted text (numbers count as unquoted text, so
// `1.2` is two keys), never inside quotes. An empty key must be quoted:
// `a."".b` has three keys, `a..b` is an error.
class PathBuilder {
 public:
  PathBuilder() : keys_(1) {}

  void AppendQuoted(std::string_view text);
  void AppendUnquoted(std::string_view text);
  // Whitespace between the pieces of a key belongs to it (`a b` is one
  // key) but does not make an empty key legal.
  void AppendWhitespace(std::string_view text);

  // InvalidArgument (without an origin; callers add theirs) for an empty
  // key that was not quoted, which includes a leading or trailing dot.
  absl::StatusOr<std::vector<std::string>> Finish() &&;

 private:
  std::vector<std::string> keys_;
  std::vector<bool> quoted_ = std::vector<bool>(1, false);
  std::string written_;  // for the error message
};

// `a.b."c.d"`: keys that are not plain words are quoted.
std::string RenderPath(const std::vector<std::string>& path);

// RenderPath for an error message: each key an Excerpt, and only the first
// keys of a long path, followed by the number of keys.
std::string DescribePath(const std::vector<std::string>& path);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_PATH_H_
