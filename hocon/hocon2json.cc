// hocon2json: prints a HOCON file, resolved, as JSON.
//
//   bazel run //hocon:hocon2json -- FILE            (or - for stdin)
//   bazel run //hocon:hocon2json -- --path P FILE   the value at P as JSON
//   bazel run //hocon:hocon2json -- --duration P FILE   ... in nanoseconds
//   bazel run //hocon:hocon2json -- --bytes P FILE      ... in bytes
//
// Bad input: "FILE:LINE:COL: message" on stderr, exit 1. Bad usage: exit 2.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>

#include "absl/time/time.h"
#include "hocon/config.h"

namespace {

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
  return 1;
}

int Usage() {
  std::fprintf(stderr,
               "usage: hocon2json [--path P | --duration P | --bytes P] "
               "FILE|-\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode, path, file;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--path" || arg == "--duration" || arg == "--bytes") {
      if (i + 1 >= argc || !mode.empty()) return Usage();
      mode = arg;
      path = argv[++i];
    } else if (file.empty()) {
      file = arg;
    } else {
      return Usage();
    }
  }
  if (file.empty()) return Usage();
  absl::StatusOr<cairn::hocon::Config> config;
  if (file == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)),
                     std::istreambuf_iterator<char>());
    config = cairn::hocon::Config::ParseString(text, "<stdin>");
  } else {
    config = cairn::hocon::Config::ParseFile(file);
  }
  if (!config.ok()) return Fail(config.status());
  absl::StatusOr<cairn::hocon::Config> resolved = config->Resolve();
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
