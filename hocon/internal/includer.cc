#include "hocon/internal/includer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hocon/internal/excerpt.h"
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

// A file name as an error message quotes it.
std::string Quoted(std::string_view path) {
  return Excerpt(path, kMaxFileNameExcerptBytes);
}

// What a name refers to on disk. Only a regular file can be included: a
// directory cannot be read, and reading a FIFO would wait for a writer.
enum class FileKind { kMissing, kRegular, kDirectory, kOther };

absl::Status FileError(absl::StatusCode code, std::string_view path,
                       std::string_view why) {
  return absl::Status(code, absl::StrCat(Quoted(path), ": ", Av(why)));
}

absl::Status ErrnoError(std::string_view path, int error) {
  if (error == EACCES || error == EPERM) {
    return FileError(absl::StatusCode::kPermissionDenied, path,
                     "permission denied");
  }
  return FileError(absl::StatusCode::kFailedPrecondition, path,
                   std::strerror(error));
}

std::string_view WhatItIs(FileKind kind) {
  return kind == FileKind::kDirectory ? "is a directory"
                                      : "is not a regular file";
}

absl::Status NotRegular(std::string_view path, FileKind kind) {
  return FileError(absl::StatusCode::kFailedPrecondition, path, WhatItIs(kind));
}

FileKind KindOf(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return FileKind::kRegular;
  if (S_ISDIR(st.st_mode)) return FileKind::kDirectory;
  return FileKind::kOther;
}

// Looks at `path` without opening it. A name that cannot exist (too long,
// below a file) is missing; a directory on the way that may not be
// searched is PermissionDenied.
absl::StatusOr<FileKind> Probe(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG) {
      return FileKind::kMissing;
    }
    return ErrnoError(path, errno);
  }
  return KindOf(st);
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

// Closes a file descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// The contents of a regular file. Opened without blocking (a FIFO put in
// its place after a Probe is refused, not waited on) and checked again
// once open.
absl::StatusOr<std::string> ReadFile(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG) {
      return FileError(absl::StatusCode::kNotFound, path, "file not found");
    }
    return ErrnoError(path, errno);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoError(path, errno);
  if (FileKind kind = KindOf(st); kind != FileKind::kRegular) {
    return NotRegular(path, kind);
  }
  // Sized once from the file, so the text is never copied; a file that
  // grows meanwhile is read to its end all the same.
  std::string content(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t size = 0;
  char more[4096];
  while (true) {
    bool full = size == content.size();
    char* into = full ? more : content.data() + size;
    std::size_t room = full ? sizeof(more) : content.size() - size;
    ssize_t n = ::read(fd.get(), into, room);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return FileError(absl::StatusCode::kDataLoss, path,
                       absl::StrCat("read error: ", std::strerror(errno)));
    }
    if (n == 0) break;
    if (full) content.append(more, static_cast<std::size_t>(n));
    size += static_cast<std::size_t>(n);
  }
  content.resize(size);
  return content;
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
      std::vector<std::string> quoted;
      std::string found_instead;
      for (const std::string& candidate : candidates) {
        quoted.push_back(Quoted(candidate));
        // The name itself, when the files it stands for are missing.
        absl::StatusOr<FileKind> kind = Probe(candidate);
        if (found_instead.empty() && kind.ok() && *kind != FileKind::kMissing &&
            *kind != FileKind::kRegular) {
          found_instead =
              absl::StrCat("; ", Quoted(candidate), " ", Av(WhatItIs(*kind)));
        }
      }
      return absl::NotFoundError(absl::StrCat(
          request.origin.ToString(), ": required include \"",
          Quoted(request.name), "\" not found (looked for ",
          absl::StrJoin(quoted, ", "),
          HasKnownExtension(request.name) ? ""
                                          : " with .conf, .json, .properties",
          found_instead, ")"));
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
            absl::StrCat(Quoted(path), ": include cycle: ", Quoted(path),
                         " includes itself (directly or through other "
                         "files)"));
      }
    }
    if (stack_->size() >= kMaxIncludeDepth) {
      return absl::InvalidArgumentError(
          absl::StrCat(Quoted(path), ": includes nested more than ",
                       kMaxIncludeDepth, " deep"));
    }
    absl::StatusOr<std::string> text = ReadFile(path);
    if (!text.ok()) return text.status();
    SourceName origin(path);
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
    if (HasKnownExtension(path)) return LoadExisting(path);
    ValuePtr merged;
    for (std::string_view ext : kExtensions) {
      absl::StatusOr<std::optional<ValuePtr>> v =
          LoadExisting(absl::StrCat(path, Av(ext)));
      if (!v.ok()) return v.status();
      if (!*v) continue;
      merged = merged ? Merge(**v, merged) : **v;
    }
    if (!merged) return std::nullopt;
    return merged;
  }

  // The file `path` parsed; nullopt when there is nothing of that name.
  // Something else of that name (a directory, a FIFO, a file that cannot
  // be read) is an error that says what it is.
  absl::StatusOr<std::optional<ValuePtr>> LoadExisting(
      const std::string& path) {
    absl::StatusOr<FileKind> kind = Probe(path);
    if (!kind.ok()) return kind.status();
    if (*kind == FileKind::kMissing) return std::nullopt;
    if (*kind != FileKind::kRegular) return NotRegular(path, *kind);
    absl::StatusOr<ValuePtr> v = ParseOne(path);
    if (!v.ok()) return v.status();
    return *std::move(v);
  }

  const LoadOptions& options_;
  std::vector<std::string>* stack_;
  std::string dir_;
};

}  // namespace

absl::StatusOr<ValuePtr> LoadFile(const std::string& path,
                                  const LoadOptions& options) {
  std::vector<std::string> stack;
  FileIncluder includer(options, &stack, "");
  return includer.ParseOne(path);
}

absl::StatusOr<ValuePtr> LoadText(std::string_view text, std::string origin,
                                  const LoadOptions& options) {
  std::vector<std::string> stack;
  FileIncluder includer(options, &stack, "");
  return ParseHocon(text, SourceName(std::move(origin)), &includer);
}

}  // namespace cairn::hocon::internal
