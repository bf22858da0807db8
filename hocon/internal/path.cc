#include "hocon/internal/path.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hocon/internal/excerpt.h"
#include "hocon/internal/json_string.h"
#include "hocon/internal/string_view.h"

namespace cairn::hocon::internal {

void PathBuilder::AppendQuoted(std::string_view text) {
  keys_.back().append(text);
  quoted_.back() = true;
  absl::StrAppend(&written_, "\"", Av(text), "\"");
}

void PathBuilder::AppendUnquoted(std::string_view text) {
  written_.append(text);
  for (char c : text) {
    if (c == '.') {
      keys_.emplace_back();
      quoted_.push_back(false);
    } else {
      keys_.back().push_back(c);
    }
  }
}

void PathBuilder::AppendWhitespace(std::string_view text) {
  keys_.back().append(text);
  written_.append(text);
}

absl::StatusOr<std::vector<std::string>> PathBuilder::Finish() && {
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i].empty() && !quoted_[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid path '", Excerpt(written_),
          "': a key is empty (a path may not start or end with '.' or have "
          "'..'; write an empty key as \"\")"));
    }
  }
  return std::move(keys_);
}

namespace {

void AppendKey(std::string_view key, std::string* out) {
  bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
  if (plain) {
    out->append(key);
  } else {
    AppendJsonQuoted(key, out);
  }
}

}  // namespace

std::string RenderPath(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& key : path) {
    if (!out.empty()) out.push_back('.');
    AppendKey(key, &out);
  }
  return out;
}

std::string DescribePath(const std::vector<std::string>& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (out.size() >= kMaxExcerptBytes) {
      absl::StrAppend(&out, "...(", path.size(), " keys)");
      break;
    }
    if (i > 0) out.push_back('.');
    AppendKey(Excerpt(path[i]), &out);
  }
  return out;
}

}  // namespace cairn::hocon::internal
