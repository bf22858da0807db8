#ifndef CAIRN_HOCON_CONFIG_H_
#define CAIRN_HOCON_CONFIG_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "hocon/config_value.h"
#include "hocon/units.h"

namespace cairn::hocon {

// How ParseString and ParseFile find included files.
struct ParseOptions {
  // Directories searched, in order, for `include classpath("name")`, and
  // for `include "name"` when nothing is found next to the including file
  // (the stand-in for the JVM classpath of Akka and lightbend/config).
  std::vector<std::string> resource_dirs;
};

// How Resolve() treats substitutions that the config does not define.
struct ResolveOptions {
  // Look them up among the environment variables. As in the reference
  // implementation, the variables form an object whose paths split their
  // names on '.': `${HOME}` names HOME, `${a.b}` the variable `a.b`, and
  // `${a}` with variables `a.b` and `a.c` is the object { b, c } (an
  // object wins over a variable `a` of its own).
  bool use_environment = true;
  // The variables to use (name to value); unset means those of the
  // process, read when Resolve() runs. Tests pass their own.
  std::optional<std::map<std::string, std::string>> environment;
};

// A HOCON configuration: an immutable tree of settings, cheap to copy (it
// shares the tree), safe to read from any thread. The format is the one
// specified by lightbend/config (JSON plus comments, omitted braces and
// commas, path keys, merging, includes, substitutions); docs/HOCON.md
// lists what is supported.
//
// Paths are dotted (`akka.actor.default-dispatcher.throughput`); quote a
// key that contains dots (`a."b.c"`). Every getter fails, rather than
// guessing, with a Status whose message names where the value was written
// (`file:line:column`) and the path:
//   NotFound            the path is not set, or is set to null
//   InvalidArgument     the value has another type, is not a valid number,
//                       duration or size, or is out of range; also for a
//                       bad path expression
//   FailedPrecondition  the value is not resolved (call Resolve())
class Config {
 public:
  Config();  // empty

  // Parses HOCON text. Substitutions stay unresolved until Resolve().
  // Relative includes are looked up in the working directory. Errors are
  // InvalidArgument "origin:line:column: message" (NotFound for a missing
  // `include required(...)`).
  [[nodiscard]] static absl::StatusOr<Config> ParseString(
      std::string_view text, std::string_view origin = "<string>",
      const ParseOptions& options = {});
  // Parses a file: `.properties` as Java properties, anything else as
  // HOCON. Includes resolve relative to its directory. A missing file is
  // NotFound; errors name the file.
  [[nodiscard]] static absl::StatusOr<Config> ParseFile(
      const std::string& path, const ParseOptions& options = {});
  // `app` over the reference.conf of every linked module (see
  // reference_registry.h), then resolved with the process environment. A
  // reference.conf that does not parse is an error naming its module.
  [[nodiscard]] static absl::StatusOr<Config> Load(const Config& app);
  [[nodiscard]] static absl::StatusOr<Config> Load();

  // This config with `fallback` filling in what this one does not set, as
  // if `fallback` had been written first in the same file: objects merge
  // key by key, anything else in this config wins. Unresolved configs
  // merge too; resolve the result.
  [[nodiscard]] Config WithFallback(const Config& fallback) const;
  // Replaces substitutions with their values: the path in this config
  // (looking forward: the final value), else an environment variable.
  // InvalidArgument naming the substitution and its origin when one is
  // undefined or part of a cycle.
  [[nodiscard]] absl::StatusOr<Config> Resolve(
      const ResolveOptions& options = {}) const;
  bool IsResolved() const;
  bool IsEmpty() const;

  // Set and not null. False for a bad path expression.
  bool HasPath(std::string_view path) const;
  // The keys of the root object, sorted.
  std::vector<std::string> Keys() const;
  // The root object.
  ConfigValue Root() const;

  // The value at `path`, which may be null (only a missing path is
  // NotFound).
  absl::StatusOr<ConfigValue> GetValue(std::string_view path) const;
  absl::StatusOr<ConfigValue> GetObject(std::string_view path) const;
  // A list, or an object with numeric keys read as one.
  absl::StatusOr<std::vector<ConfigValue>> GetList(std::string_view path) const;
  absl::StatusOr<Config> GetConfig(std::string_view path) const;

  // Numbers and booleans read as strings (numbers as written).
  absl::StatusOr<std::string> GetString(std::string_view path) const;
  // true/yes/on and false/no/off.
  absl::StatusOr<bool> GetBool(std::string_view path) const;
  // Numbers, or strings holding one; out of range is an error; a fraction
  // is truncated toward zero (as the reference implementation does).
  absl::StatusOr<int> GetInt(std::string_view path) const;
  absl::StatusOr<int64_t> GetLong(std::string_view path) const;
  absl::StatusOr<double> GetDouble(std::string_view path) const;
  // A number with a unit (ns, us, ms, s, m, h, d and their long forms); a
  // bare number is milliseconds. See units.h.
  absl::StatusOr<absl::Duration> GetDuration(std::string_view path) const;
  // A number of bytes with an optional unit: B, kB..YB (powers of 1000),
  // K/Ki/KiB..Y/Yi/YiB (powers of 1024), and long forms. See units.h.
  absl::StatusOr<int64_t> GetBytes(std::string_view path) const;

  // Lists of one type; an element of another type is an error naming its
  // index.
  absl::StatusOr<std::vector<std::string>> GetStringList(
      std::string_view path) const;
  absl::StatusOr<std::vector<bool>> GetBoolList(std::string_view path) const;
  absl::StatusOr<std::vector<int>> GetIntList(std::string_view path) const;
  absl::StatusOr<std::vector<int64_t>> GetLongList(std::string_view path) const;
  absl::StatusOr<std::vector<double>> GetDoubleList(
      std::string_view path) const;
  absl::StatusOr<std::vector<absl::Duration>> GetDurationList(
      std::string_view path) const;
  absl::StatusOr<std::vector<int64_t>> GetBytesList(
      std::string_view path) const;
  absl::StatusOr<std::vector<Config>> GetConfigList(
      std::string_view path) const;

  // `fallback` when the path is not set (or null); a value of the wrong
  // type is still an error, so a typo in a config file is never silently
  // replaced by the default.
  absl::StatusOr<std::string> GetStringOr(std::string_view path,
                                          std::string_view fallback) const;
  absl::StatusOr<bool> GetBoolOr(std::string_view path, bool fallback) const;
  absl::StatusOr<int> GetIntOr(std::string_view path, int fallback) const;
  absl::StatusOr<int64_t> GetLongOr(std::string_view path,
                                    int64_t fallback) const;
  absl::StatusOr<double> GetDoubleOr(std::string_view path,
                                     double fallback) const;
  absl::StatusOr<absl::Duration> GetDurationOr(std::string_view path,
                                               absl::Duration fallback) const;
  absl::StatusOr<int64_t> GetBytesOr(std::string_view path,
                                     int64_t fallback) const;

  // The whole tree as JSON, keys sorted, numbers as written.
  std::string ToJson(JsonFormat format = JsonFormat::kPretty) const;
  // The value at `path` as JSON.
  absl::StatusOr<std::string> ValueToJson(
      std::string_view path, JsonFormat format = JsonFormat::kPretty) const;

 private:
  explicit Config(std::shared_ptr<const internal::Value> root);

  // The value at `path`; NotFound when missing (or null unless
  // `allow_null`).
  absl::StatusOr<std::shared_ptr<const internal::Value>> Find(
      std::string_view path, bool allow_null) const;
  template <typename T, typename Convert>
  absl::StatusOr<T> Get(std::string_view path, Convert convert) const;
  template <typename T, typename Convert>
  absl::StatusOr<std::vector<T>> GetListOf(std::string_view path,
                                           Convert convert) const;
  template <typename T, typename Getter>
  absl::StatusOr<T> GetOr(std::string_view path, T fallback,
                          Getter getter) const;

  std::shared_ptr<const internal::Value> root_;  // an object, never null
};

}  // namespace cairn::hocon

#endif  // CAIRN_HOCON_CONFIG_H_
