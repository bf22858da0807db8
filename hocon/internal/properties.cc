#include "hocon/internal/properties.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hocon/internal/excerpt.h"
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

// One value at a path of a properties file or of the environment.
struct PathEntry {
  std::vector<std::string> path;
  ValuePtr value;
};

// The object holding every entry at its path (no path twice). An object
// wins over a value at its path, however the entries are ordered: a value
// is hidden when another path extends its path.
ValuePtr ObjectFromPaths(std::vector<PathEntry> entries, Origin root_origin) {
  // In path order, the paths extending one come right after it.
  std::vector<std::size_t> by_path(entries.size());
  for (std::size_t i = 0; i < by_path.size(); ++i) by_path[i] = i;
  std::sort(by_path.begin(), by_path.end(), [&](std::size_t a, std::size_t b) {
    return entries[a].path < entries[b].path;
  });
  std::vector<bool> hidden(entries.size(), false);
  for (std::size_t k = 0; k + 1 < by_path.size(); ++k) {
    const std::vector<std::string>& path = entries[by_path[k]].path;
    const std::vector<std::string>& next = entries[by_path[k + 1]].path;
    hidden[by_path[k]] = next.size() > path.size() &&
                         std::equal(path.begin(), path.end(), next.begin());
  }
  // The rest merged at once, longer paths first (each object's origin is
  // that of the last value put below it, as when they were merged one by
  // one).
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!hidden[i]) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) {
                     return entries[a].path.size() > entries[b].path.size();
                   });
  FieldEntries fields;
  fields.reserve(order.size());
  for (std::size_t i : order) {
    PathEntry& e = entries[i];
    root_origin = e.value->origin();
    ValuePtr nested = e.value;
    for (std::size_t k = e.path.size(); k-- > 1;) {
      nested = Value::Object({{e.path[k], std::move(nested)}}, root_origin);
    }
    fields.emplace_back(std::move(e.path[0]), std::move(nested));
  }
  return Value::Object(FieldsOf(std::move(fields)), root_origin);
}

}  // namespace

absl::StatusOr<ValuePtr> ParseProperties(std::string_view text,
                                         SourceName file) {
  std::vector<PathEntry> entries;
  std::map<std::vector<std::string>, std::size_t> index;
  for (const LogicalLine& line : LogicalLines(text)) {
    auto [raw_key, raw_value] = SplitLine(line.text);
    Origin origin(file, line.line, 1);
    std::vector<std::string> path = absl::StrSplit(Unescape(raw_key), '.');
    // As in a HOCON file, where `a.b.c` nests as deep as `a { b { c } }`.
    if (path.size() - 1 > static_cast<std::size_t>(kMaxNestingDepth)) {
      return absl::InvalidArgumentError(
          absl::StrCat(origin.ToString(), ": objects nested more than ",
                       kMaxNestingDepth, " deep"));
    }
    ValuePtr value = Value::String(Unescape(raw_value), origin);
    // Java Properties keep the last of duplicate keys.
    auto [it, inserted] = index.emplace(path, entries.size());
    if (inserted) {
      entries.push_back({std::move(path), std::move(value)});
    } else {
      entries[it->second].value = std::move(value);
    }
  }
  return ObjectFromPaths(std::move(entries), Origin(file, 1, 1));
}

ValuePtr EnvironmentObject(const std::map<std::string, std::string>& vars) {
  std::vector<PathEntry> entries;
  entries.reserve(vars.size());
  for (const auto& [name, value] : vars) {
    std::vector<std::string> path = absl::StrSplit(name, '.');
    // Deeper than a document may nest: such a variable cannot be named by
    // a substitution that parses, so it is left out.
    if (path.size() - 1 > static_cast<std::size_t>(kMaxNestingDepth)) {
      continue;
    }
    SourceName origin(absl::StrCat("environment variable ", Excerpt(name)));
    entries.push_back({std::move(path),
                       Value::String(value, Origin(std::move(origin), 0, 0))});
  }
  return ObjectFromPaths(std::move(entries),
                         Origin(SourceName("the environment"), 0, 0));
}

}  // namespace cairn::hocon::internal
