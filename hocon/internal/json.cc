#include "hocon/internal/json.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace cairn::hocon::internal {
namespace {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out + "\"";
}

void Render(const Node& n, int indent, std::string* out) {
  const std::string pad(indent * 2, ' ');
  const std::string inner((indent + 1) * 2, ' ');
  switch (n.kind) {
    case Node::Kind::kNull:
      *out += "null";
      return;
    case Node::Kind::kBool:
      *out += n.boolean ? "true" : "false";
      return;
    case Node::Kind::kNumber:
      *out += n.text;
      return;
    case Node::Kind::kString:
      *out += Quote(n.text);
      return;
    case Node::Kind::kList: {
      if (n.items.empty()) {
        *out += "[]";
        return;
      }
      *out += "[\n";
      for (size_t i = 0; i < n.items.size(); ++i) {
        *out += inner;
        Render(*n.items[i], indent + 1, out);
        *out += i + 1 < n.items.size() ? ",\n" : "\n";
      }
      *out += pad + "]";
      return;
    }
    case Node::Kind::kObject: {
      if (n.fields.empty()) {
        *out += "{}";
        return;
      }
      *out += "{\n";
      size_t i = 0;
      for (const auto& [key, value] : n.fields) {
        *out += inner + Quote(key) + ": ";
        Render(*value, indent + 1, out);
        *out += ++i < n.fields.size() ? ",\n" : "\n";
      }
      *out += pad + "}";
      return;
    }
    case Node::Kind::kSubstitution:
      *out += Quote(absl::StrCat("${", n.optional ? "?" : "",
                                 absl::StrJoin(n.path, "."), "}"));
      return;
    case Node::Kind::kConcatenation:
    case Node::Kind::kDelayedMerge:
      *out += Quote("<unresolved>");
      return;
  }
}

}  // namespace

std::string ToJson(const Node& node) {
  std::string out;
  Render(node, 0, &out);
  return out;
}

}  // namespace cairn::hocon::internal
