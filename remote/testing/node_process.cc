#include "remote/testing/node_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/time/clock.h"

namespace cairn::remote::testing {
namespace {

std::string NodeBinary() {
  if (const char* path = std::getenv("CAIRN_REMOTE_NODE")) return path;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir == nullptr ? "." : srcdir, "/",
                      workspace == nullptr ? "cairn" : workspace,
                      "/remote/testing/node");
}

int PollTimeoutMs(absl::Time deadline) {
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  return static_cast<int>(
      std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1000));
}

}  // namespace

absl::StatusOr<NodeProcess> NodeProcess::Start(
    const std::string& name, absl::Time deadline,
    const std::string& extra_config) {
  std::vector<std::string> args = {name};
  if (!extra_config.empty()) args.push_back(extra_config);
  return StartProgram(NodeBinary(), args, deadline);
}

absl::StatusOr<NodeProcess> NodeProcess::StartProgram(
    const std::string& binary, const std::vector<std::string>& args,
    absl::Time deadline) {
  std::vector<char*> argv = {const_cast<char*>(binary.c_str())};
  for (const std::string& arg : args) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  const std::string name = args.empty() ? binary : args[0];
  // O_CLOEXEC: no other node inherits this one's stdout.
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    return absl::UnavailableError("pipe failed");
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Dies with the test, even one killed at its timeout.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);
    ::dup2(out[1], STDOUT_FILENO);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  if (pid < 0) {
    ::close(out[0]);
    return absl::UnavailableError("fork failed");
  }
  NodeProcess node(pid, out[0]);
  std::string line;
  if (!node.ReadLine(deadline, &line)) {
    const int code = node.Terminate(absl::Now());
    return absl::UnavailableError(absl::StrCat(
        "node ", name, " (", binary, ") printed no address; exit code ", code));
  }
  node.address_ = std::move(line);
  return node;
}

NodeProcess::NodeProcess(NodeProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      out_(std::exchange(other.out_, -1)),
      buffer_(std::move(other.buffer_)),
      address_(std::move(other.address_)) {}

NodeProcess::~NodeProcess() {
  Kill();
  if (out_ >= 0) ::close(out_);
}

bool NodeProcess::ReadLine(absl::Time deadline, std::string* line) {
  while (true) {
    if (const size_t nl = buffer_.find('\n'); nl != std::string::npos) {
      *line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return true;
    }
    if (out_ < 0 || absl::Now() >= deadline) return false;
    struct pollfd p = {out_, POLLIN, 0};
    if (::poll(&p, 1, PollTimeoutMs(deadline)) <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(out_, chunk, sizeof(chunk));
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      ::close(std::exchange(out_, -1));
    }
  }
}

int NodeProcess::Terminate(absl::Time deadline) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  // Its stdout ends when it exits (a node starts no process of its own
  // that could hold it): a wait with a deadline, without polling waitpid.
  std::string ignored;
  while (ReadLine(deadline, &ignored)) {
  }
  if (out_ >= 0) {
    Kill();  // the deadline passed
    return -1;
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void NodeProcess::Pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void NodeProcess::Resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

int NodeProcess::AwaitExit(absl::Time deadline) {
  if (pid_ <= 0) return -1;
  // Its stdout ends when it exits.
  std::string ignored;
  while (ReadLine(deadline, &ignored)) {
  }
  if (out_ >= 0) return -1;  // the deadline passed
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void NodeProcess::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace cairn::remote::testing
