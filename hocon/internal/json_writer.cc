#include "hocon/internal/json_writer.h"

#include "absl/strings/str_cat.h"
#include "hocon/internal/json_string.h"
#include "hocon/internal/merge.h"
#include "hocon/internal/number.h"
#include "hocon/internal/path.h"

namespace cairn::hocon::internal {
namespace {

// HOCON text for a value that is still unresolved.
std::string Unresolved(const Value& v) {
  switch (v.kind()) {
    case Kind::kSubstitution: {
      const Substitution& s = v.substitution();
      return absl::StrCat("${", s.optional ? "?" : "", RenderPath(s.path), "}");
    }
    case Kind::kConcatenation: {
      std::string out;
      for (const ValuePtr& piece : v.items()) {
        out += piece->resolved() && !piece->is_list() && !piece->is_object()
                   ? ConcatenationText(*piece)
                   : Unresolved(*piece);
      }
      return out;
    }
    case Kind::kMergeStack: {
      std::string out;
      for (const ValuePtr& element : v.items()) {
        if (!out.empty()) out += " over ";
        out += element->resolved() ? RenderJson(*element, false)
                                   : Unresolved(*element);
      }
      return out;
    }
    default:
      return RenderJson(v, false);
  }
}

void Newline(bool pretty, int indent, std::string* out) {
  if (!pretty) return;
  out->push_back('\n');
  out->append(2 * indent, ' ');
}

void Write(const Value& v, bool pretty, int indent, std::string* out) {
  switch (v.kind()) {
    case Kind::kNull:
      out->append("null");
      return;
    case Kind::kBool:
      out->append(v.boolean() ? "true" : "false");
      return;
    case Kind::kNumber:
      out->append(JsonNumber(v.text()));
      return;
    case Kind::kString:
      AppendJsonQuoted(v.text(), out);
      return;
    case Kind::kList: {
      if (v.items().empty()) {
        out->append("[]");
        return;
      }
      out->push_back('[');
      bool first = true;
      for (const ValuePtr& item : v.items()) {
        if (!first) out->push_back(',');
        first = false;
        Newline(pretty, indent + 1, out);
        Write(*item, pretty, indent + 1, out);
      }
      Newline(pretty, indent, out);
      out->push_back(']');
      return;
    }
    case Kind::kObject: {
      if (v.fields().empty()) {
        out->append("{}");
        return;
      }
      out->push_back('{');
      bool first = true;
      for (const auto& [key, field] : v.fields()) {
        if (!first) out->push_back(',');
        first = false;
        Newline(pretty, indent + 1, out);
        AppendJsonQuoted(key, out);
        out->append(pretty ? ": " : ":");
        Write(*field, pretty, indent + 1, out);
      }
      Newline(pretty, indent, out);
      out->push_back('}');
      return;
    }
    default:
      AppendJsonQuoted(Unresolved(v), out);
      return;
  }
}

}  // namespace

std::string RenderJson(const Value& value, bool pretty) {
  std::string out;
  Write(value, pretty, 0, &out);
  return out;
}

}  // namespace cairn::hocon::internal
