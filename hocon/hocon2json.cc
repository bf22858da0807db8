// hocon2json: prints a HOCON file, resolved, as JSON (keys sorted).
//
//   bazel run //hocon:hocon2json -- FILE                 (- reads stdin)
//   bazel run //hocon:hocon2json -- --path P FILE        the value at P
//   bazel run //hocon:hocon2json -- --duration P FILE    ... in nanoseconds
//   bazel run //hocon:hocon2json -- --bytes P FILE       ... in bytes
//   --no-env: substitutions do not fall back to environment variables.
//
// Includes resolve relative to FILE's directory (the working directory
// for stdin). Bad input: "FILE:LINE:COL: message" on stderr, exit 1. Bad
// usage: exit 2.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "hocon/config.h"

namespace {

using cairn::hocon::Config;

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "%.*s\n", static_cast<int>(s.message().size()),
               s.message().data());
  return 1;
}

int Usage() {
  std::fprintf(stderr,
               "usage: hocon2json [--no-env] [--path P | --duration P | "
               "--bytes P] FILE|-\n");
  return 2;
}

// `bazel run` starts programs in their runfiles; a relative FILE means
// the directory the user ran Bazel from.
std::string UserPath(const std::string& file) {
  const char* dir = std::getenv("BUILD_WORKING_DIRECTORY");
  if (dir == nullptr || file.empty() || file[0] == '/') return file;
  return std::string(dir) + "/" + file;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode, path, file;
  bool use_environment = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--path" || arg == "--duration" || arg == "--bytes") {
      if (i + 1 >= argc || !mode.empty()) return Usage();
      mode = arg;
      path = argv[++i];
    } else if (arg == "--no-env") {
      use_environment = false;
    } else if (file.empty() && (arg == "-" || arg[0] != '-')) {
      file = arg;
    } else {
      return Usage();
    }
  }
  if (file.empty()) return Usage();
  absl::StatusOr<Config> config;
  if (file == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)),
                     std::istreambuf_iterator<char>());
    config = Config::ParseString(text, "<stdin>");
  } else {
    config = Config::ParseFile(UserPath(file));
  }
  if (!config.ok()) return Fail(config.status());
  cairn::hocon::ResolveOptions options;
  options.use_environment = use_environment;
  absl::StatusOr<Config> resolved = config->Resolve(options);
  if (!resolved.ok()) return Fail(resolved.status());
  if (mode.empty()) {
    std::printf("%s\n", resolved->ToJson().c_str());
  } else if (mode == "--path") {
    absl::StatusOr<std::string> json = resolved->ValueToJson(path);
    if (!json.ok()) return Fail(json.status());
    std::printf("%s\n", json->c_str());
  } else if (mode == "--duration") {
    absl::StatusOr<absl::Duration> d = resolved->GetDuration(path);
    if (!d.ok()) return Fail(d.status());
    std::printf("%lld\n", static_cast<long long>(absl::ToInt64Nanoseconds(*d)));
  } else {
    absl::StatusOr<int64_t> b = resolved->GetBytes(path);
    if (!b.ok()) return Fail(b.status());
    std::printf("%lld\n", static_cast<long long>(*b));
  }
  return 0;
}
