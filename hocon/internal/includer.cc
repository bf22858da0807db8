#include "hocon/internal/includer.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hocon/internal/merge.h"
#include "hocon/internal/parser.h"
#include "hocon/internal/properties.h"
#include "hocon/internal/string_view.h"

namespace cairn::hocon::internal {
namespace {

namespace fs = std::filesystem;

// The reference implementation gives up at this depth too; a deeper chain
// is almost surely a cycle through differently spelled paths.
constexpr std::size_t kMaxIncludeDepth = 50;

constexpr std::string_view kExtensions[] = {".conf", ".json", ".properties"};

bool IsFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

bool HasKnownExtension(std::string_view name) {
  for (std::string_view ext : kExtensions) {
    if (absl::EndsWith(Av(name), Av(ext))) return true;
  }
  return false;
}

std::string Join(const std::string& dir, const std::string& name) {
  if (dir.empty() || fs::path(name).is_absolute()) return name;
  return (fs::path(dir) / name).string();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!IsFile(path)) {
      return absl::NotFoundError(absl::StrCat(path, ": file not found"));
    }
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot read"));
  }
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat(path, ": read error"));
  }
  return content.str();
}

// Resolves the include statements of one file. `stack` holds the files
// being parsed, outermost first, to catch include cycles.
class FileIncluder : public Includer {
 public:
  FileIncluder(const LoadOptions& options, std::vector<std::string>* stack,
               std::string dir)
      : options_(options), stack_(stack), dir_(std::move(dir)) {}

  absl::StatusOr<ValuePtr> Include(const IncludeRequest& request) override {
    std::vector<std::string> candidates;
    switch (request.kind) {
      case IncludeKind::kUrl:
        return absl::UnimplementedError(absl::StrCat(
            request.origin.ToString(), ": url() includes are not supported"));
      case IncludeKind::kFile:
        // As in the reference implementation, file() names are relative
        // to the working directory, not to the including file.
        candidates.push_back(request.name);
        break;
      case IncludeKind::kHeuristic:
        candidates.push_back(Join(dir_, request.name));
        AddResourceCandidates(request.name, candidates);
        break;
      case IncludeKind::kClasspath:
        AddResourceCandidates(request.name, candidates);
        break;
    }
    for (const std::string& candidate : candidates) {
      absl::StatusOr<std::optional<ValuePtr>> found = LoadNamed(candidate);
      if (!found.ok()) {
        return absl::Status(
            found.status().code(),
            absl::StrCat(found.status().message(), " (included at ",
                         request.origin.ToString(), ")"));
      }
      if (*found) return **found;
    }
    if (request.required) {
      return absl::NotFoundError(absl::StrCat(
          request.origin.ToString(), ": required include \"", request.name,
          "\" not found (looked for ", absl::StrJoin(candidates, ", "),
          HasKnownExtension(request.name) ? ""
                                          : " with .conf, .json, .properties",
          ")"));
    }
    return Value::Object({}, request.origin);
  }

  // Parses one existing file.
  absl::StatusOr<ValuePtr> ParseOne(const std::string& path) {
    std::error_code ec;
    std::string canonical = fs::weakly_canonical(path, ec).string();
    if (ec) canonical = path;
    for (const std::string& open : *stack_) {
      if (open == canonical) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": include cycle: ", path,
                         " includes itself (directly or through other "
                         "files)"));
      }
    }
    if (stack_->size() >= kMaxIncludeDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": includes nested more than ", kMaxIncludeDepth, " deep"));
    }
    absl::StatusOr<std::string> text = ReadFile(path);
    if (!text.ok()) return text.status();
    auto origin = std::make_shared<const std::string>(path);
    if (absl::EndsWith(path, ".properties")) {
      return ParseProperties(*text, std::move(origin));
    }
    stack_->push_back(canonical);
    FileIncluder nested(options_, stack_,
                        fs::path(path).parent_path().string());
    absl::StatusOr<ValuePtr> parsed =
        ParseHocon(*text, std::move(origin), &nested);
    stack_->pop_back();
    return parsed;
  }

 private:
  void AddResourceCandidates(const std::string& name,
                             std::vector<std::string>& candidates) const {
    std::string relative = name;
    while (!relative.empty() && relative.front() == '/') relative.erase(0, 1);
    for (const std::string& dir : options_.resource_dirs) {
      candidates.push_back(Join(dir, relative));
    }
  }

  // What `path` names: the file itself when it has a known extension,
  // otherwise path.conf, path.json and path.properties merged in that
  // order of priority. nullopt when none exists.
  absl::StatusOr<std::optional<ValuePtr>> LoadNamed(const std::string& path) {
    if (HasKnownExtension(path)) {
      if (!IsFile(path)) return std::nullopt;
      absl::StatusOr<ValuePtr> v = ParseOne(path);
      if (!v.ok()) return v.status();
      return *std::move(v);
    }
    ValuePtr merged;
    for (std::string_view ext : kExtensions) {
      std::string file = absl::StrCat(path, Av(ext));
      if (!IsFile(file)) continue;
      absl::StatusOr<ValuePtr> v = ParseOne(file);
      if (!v.ok()) return v.status();
      merged = merged ? Merge(*v, merged) : *v;
    }
    if (!merged) return std::nullopt;
    return merged;
  }

  const LoadOptions& options_;
  std::vector<std::string>* stack_;
  std::string dir_;
};

}  // namespace

absl::StatusOr<ValuePtr> LoadFile(const std::string& path,
                                  const LoadOptions& options) {
  if (!IsFile(path)) {
    return absl::NotFoundError(absl::StrCat(path, ": file not found"));
  }
  std::vector<std::string> stack;
  FileIncluder includer(options, &stack, "");
  return includer.ParseOne(path);
}

absl::StatusOr<ValuePtr> LoadText(std::string_view text, std::string origin,
                                  const LoadOptions& options) {
  std::vector<std::string> stack;
  FileIncluder includer(options, &stack, "");
  return ParseHocon(
      text, std::make_shared<const std::string>(std::move(origin)), &includer);
}

}  // namespace cairn::hocon::internal
