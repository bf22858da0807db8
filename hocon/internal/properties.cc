#include "hocon/internal/properties.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hocon/internal/merge.h"
#include "hocon/internal/unicode.h"

namespace cairn::hocon::internal {
namespace {

bool IsPropertiesSpace(char c) { return c == ' ' || c == '\t' || c == '\f'; }

struct LogicalLine {
  std::string text;  // continuation lines joined, escapes still in place
  int line = 0;
};

// Java's Properties.load: a line ending in an odd number of backslashes
// continues on the next one, whose leading whitespace is dropped.
std::vector<LogicalLine> LogicalLines(std::string_view text) {
  std::vector<LogicalLine> out;
  std::vector<std::string_view> lines;
  for (std::size_t start = 0;;) {
    std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  LogicalLine current;
  bool continuing = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t start = 0;
    while (start < line.size() && IsPropertiesSpace(line[start])) ++start;
    line.remove_prefix(start);
    if (!continuing) {
      if (line.empty() || line.front() == '#' || line.front() == '!') {
        continue;
      }
      current = LogicalLine{"", static_cast<int>(i) + 1};
    }
    std::size_t backslashes = 0;
    while (backslashes < line.size() &&
           line[line.size() - 1 - backslashes] == '\\') {
      ++backslashes;
    }
    continuing = backslashes % 2 == 1;
    if (continuing) line.remove_suffix(1);
    current.text.append(line);
    if (!continuing) out.push_back(std::move(current));
  }
  if (continuing) out.push_back(std::move(current));
  return out;
}

// Applies the escapes of a key or value: \t \n \r \f, \uXXXX, and a
// backslash before any other character stands for that character.
std::string Unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 == s.size()) {
      out.push_back(c);
      continue;
    }
    char e = s[++i];
    switch (e) {
      case 't':
        out.push_back('\t');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'u': {
        char32_t cp = 0;
        std::size_t j = 0;
        for (; j < 4 && i + 1 + j < s.size(); ++j) {
          char h = s[i + 1 + j];
          int d = (h >= '0' && h <= '9')   ? h - '0'
                  : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                  : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                           : -1;
          if (d < 0) break;
          cp = cp * 16 + d;
        }
        if (j < 4) {
          out.push_back('u');  // not an escape after all
          break;
        }
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
        AppendUtf8(cp, &out);
        break;
      }
      default:
        out.push_back(e);
    }
  }
  return out;
}

// Splits a logical line into its raw key and raw value: the key ends at
// the first unescaped '=', ':' or whitespace; one '=' or ':' (with the
// whitespace around it) separates it from the value.
std::pair<std::string_view, std::string_view> SplitLine(std::string_view l) {
  std::size_t i = 0;
  while (i < l.size()) {
    char c = l[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '=' || c == ':' || IsPropertiesSpace(c)) break;
    ++i;
  }
  std::string_view key = l.substr(0, std::min(i, l.size()));
  std::size_t v = std::min(i, l.size());
  while (v < l.size() && IsPropertiesSpace(l[v])) ++v;
  if (v < l.size() && (l[v] == '=' || l[v] == ':')) ++v;
  while (v < l.size() && IsPropertiesSpace(l[v])) ++v;
  return {key, l.substr(v)};
}

}  // namespace

absl::StatusOr<ValuePtr> ParseProperties(std::string_view text,
                                         SourceName file) {
  struct Entry {
    std::vector<std::string> path;
    ValuePtr value;
  };
  std::vector<Entry> entries;
  std::map<std::vector<std::string>, std::size_t> index;
  for (const LogicalLine& line : LogicalLines(text)) {
    auto [raw_key, raw_value] = SplitLine(line.text);
    Origin origin(file, line.line, 1);
    std::vector<std::string> path = absl::StrSplit(Unescape(raw_key), '.');
    ValuePtr value = Value::String(Unescape(raw_value), origin);
    // Java Properties keep the last of duplicate keys.
    auto [it, inserted] = index.emplace(path, entries.size());
    if (inserted) {
      entries.push_back({std::move(path), std::move(value)});
    } else {
      entries[it->second].value = std::move(value);
    }
  }
  // Longer paths first, so that an object always wins over a value at
  // one of its prefixes however the file orders them.
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) {
                     return a.path.size() > b.path.size();
                   });
  Origin root_origin(file, 1, 1);
  ValuePtr root = Value::Object({}, root_origin);
  for (const Entry& e : entries) {
    // Skip a value whose path is already an object (or lies inside one
    // that is a value: impossible, since longer paths came first).
    ValuePtr node = root;
    bool shadowed = false;
    for (std::size_t i = 0; i < e.path.size() && node; ++i) {
      node = node->is_object() ? node->Field(e.path[i]) : nullptr;
      if (node && i + 1 == e.path.size()) shadowed = true;
    }
    if (shadowed) continue;
    ValuePtr nested = e.value;
    for (std::size_t i = e.path.size(); i-- > 1;) {
      nested =
          Value::Object({{e.path[i], std::move(nested)}}, e.value->origin());
    }
    root = Merge(root, Value::Object({{e.path[0], std::move(nested)}},
                                     e.value->origin()));
  }
  return root;
}

}  // namespace cairn::hocon::internal
