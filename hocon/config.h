#ifndef CAIRN_HOCON_CONFIG_H_
#define CAIRN_HOCON_CONFIG_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cairn::hocon {

namespace internal {
struct Node;
}

// How Resolve() treats substitutions that the config does not define.
struct ResolveOptions {
  // Look them up as environment variables.
  bool use_environment = true;
  // The environment to use; unset means the process environment. Returns
  // nullopt for an unset variable.
  std::function<std::optional<std::string>(const std::string&)> environment;
};

// A HOCON configuration: an immutable tree of settings, cheap to copy (it
// shares the tree), safe to read from any thread.
//
// Paths are dotted (`akka.actor.default-dispatcher.throughput`); quote a
// key that contains dots (`a."b.c"`). Every getter fails, rather than
// guessing, with a Status whose message names the path and, where the value
// was written, its `file:line:column`:
//   NotFound         the path is not set (or is null)
//   InvalidArgument  the value has another type, or is not a valid number,
//                    duration or size; also for a bad path expression.
// Getters work on resolved values; a config with substitutions is resolved
// with Resolve() (Load does it).
class Config {
 public:
  Config();  // empty

  // Parses HOCON text. Substitutions stay unresolved until Resolve().
  // Errors are InvalidArgument with "origin:line:column: message".
  static absl::StatusOr<Config> ParseString(
      std::string_view text, std::string_view origin = "<string>");
  // Parses a file; includes resolve relative to its directory. A missing
  // file is NotFound.
  static absl::StatusOr<Config> ParseFile(const std::string& path);
  // `app` over the reference.conf of every linked module (see
  // reference_registry.h), resolved.
  static absl::StatusOr<Config> Load(const Config& app);
  static absl::StatusOr<Config> Load();

  // This config with `fallback` filling in what this one does not set
  // (objects merge key by key).
  Config WithFallback(const Config& fallback) const;
  // Replaces substitutions with their values (looking in this config, then
  // the process environment). Fails naming an undefined substitution or a
  // cycle.
  absl::StatusOr<Config> Resolve(const ResolveOptions& options = {}) const;
  bool IsResolved() const;

  // Set and not null.
  bool HasPath(std::string_view path) const;
  // The keys of the root object, sorted.
  std::vector<std::string> Keys() const;

  absl::StatusOr<std::string> GetString(std::string_view path) const;
  // true/yes/on and false/no/off.
  absl::StatusOr<bool> GetBool(std::string_view path) const;
  absl::StatusOr<int> GetInt(std::string_view path) const;
  absl::StatusOr<int64_t> GetLong(std::string_view path) const;
  absl::StatusOr<double> GetDouble(std::string_view path) const;
  // A number with a unit (ns, us, ms, s, m, h, d and their long forms); a
  // bare number is milliseconds.
  absl::StatusOr<absl::Duration> GetDuration(std::string_view path) const;
  // A number of bytes with an optional unit: B, kB..EB (powers of 1000),
  // K/Ki/KiB..E/Ei/EiB (powers of 1024), and long forms.
  absl::StatusOr<int64_t> GetBytes(std::string_view path) const;
  absl::StatusOr<Config> GetConfig(std::string_view path) const;
  absl::StatusOr<std::vector<std::string>> GetStringList(
      std::string_view path) const;
  absl::StatusOr<std::vector<int64_t>> GetLongList(std::string_view path) const;

  // The whole tree as JSON, keys sorted (numbers as written).
  std::string ToJson() const;
  // The value at `path` as JSON.
  absl::StatusOr<std::string> ValueToJson(std::string_view path) const;

 private:
  explicit Config(std::shared_ptr<const internal::Node> root)
      : root_(std::move(root)) {}
  absl::StatusOr<std::shared_ptr<const internal::Node>> Find(
      std::string_view path) const;

  std::shared_ptr<const internal::Node> root_;
};

// Parses "10s", "1.5 h", "100" (ms) as Config::GetDuration does.
absl::StatusOr<absl::Duration> ParseDuration(std::string_view text);
// Parses "64 KiB", "1MB", "100" (bytes) as Config::GetBytes does.
absl::StatusOr<int64_t> ParseBytes(std::string_view text);

}  // namespace cairn::hocon

#endif  // CAIRN_HOCON_CONFIG_H_
