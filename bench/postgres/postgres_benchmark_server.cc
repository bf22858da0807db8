#include "bench/postgres/postgres_benchmark_server.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace cairn::bench {
namespace {

constexpr char kScript[] = "tools/postgres_test_server.sh";
// What the script says when no PostgreSQL server is installed.
constexpr char kNotInstalled[] = "no PostgreSQL server found";

// `text` quoted for sh.
std::string ShellQuoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string Workspace() {
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (workspace != nullptr && *workspace != '\0') return workspace;
  char cwd[4096];
  return getcwd(cwd, sizeof(cwd)) != nullptr ? cwd : ".";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `command` with sh, stderr into `errors`; its stdout, and its exit
// status in `status` (-1 if it could not run).
std::string Run(const std::string& command, const std::string& errors,
                int& status) {
  FILE* pipe =
      popen(absl::StrCat(command, " 2>", ShellQuoted(errors)).c_str(), "r");
  if (pipe == nullptr) {
    status = -1;
    return "";
  }
  std::string out;
  char buffer[512];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    out.append(buffer, n);
  }
  const int wait_status = pclose(pipe);
  status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BenchServer>> BenchServer::Start() {
  const std::string script = absl::StrCat(Workspace(), "/", kScript);
  struct stat info;
  if (stat(script.c_str(), &info) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no ", kScript, " in ", Workspace(),
        ": run the benchmark from the workspace (bazel run, bench/report.sh) "
        "or give --url"));
  }
  // /tmp, not $TMPDIR: the server runs as the postgres user when we are
  // root, and must reach it.
  char dir_template[] = "/tmp/cairn-pgbench.XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    return absl::InternalError("cannot make a directory in /tmp");
  }
  const std::string dir = dir_template;
  const std::string errors = dir + ".log";
  int status = 0;
  std::string url = Run(
      absl::StrCat(ShellQuoted(script), " start --durable ", ShellQuoted(dir)),
      errors, status);
  const std::string said = ReadFile(errors);
  std::remove(errors.c_str());
  while (!url.empty() && (url.back() == '\n' || url.back() == ' ')) {
    url.pop_back();
  }
  if (status != 0 || url.empty()) {
    rmdir(dir.c_str());  // the script removed what it put there
    if (said.find(kNotInstalled) != std::string::npos) {
      return absl::NotFoundError(said);
    }
    return absl::InternalError(absl::StrCat(
        kScript, " start --durable failed (exit status ", status, "): ", said));
  }
  return std::unique_ptr<BenchServer>(new BenchServer(script, dir, url));
}

BenchServer::~BenchServer() {
  const std::string errors = dir_ + ".log";
  int status = 0;
  Run(absl::StrCat(ShellQuoted(script_), " stop ", ShellQuoted(dir_)), errors,
      status);
  if (status != 0) {
    std::fprintf(stderr, "%s stop %s failed: %s\n", kScript, dir_.c_str(),
                 ReadFile(errors).c_str());
  }
  std::remove(errors.c_str());
}

}  // namespace cairn::bench
