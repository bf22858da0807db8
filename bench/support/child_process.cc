#include "bench/support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/clock.h"

namespace cairn::bench {
namespace {

// Its first line, read a byte at a time so that nothing beyond it is
// taken; false if it ends or stays silent until the deadline.
bool ReadLine(int fd, absl::Time deadline, std::string* line) {
  while (true) {
    const int64_t left = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left <= 0) return false;
    struct pollfd p = {fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    char c;
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return false;
    if (c == '\n') return true;
    line->push_back(c);
  }
}

}  // namespace

absl::StatusOr<ChildProcess> ChildProcess::Start(std::vector<std::string> args,
                                                 absl::Duration timeout) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  // O_CLOEXEC: a later child does not inherit this one's pipes.
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) {
    return absl::FailedPreconditionError("pipe failed");
  }
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return absl::FailedPreconditionError("pipe failed");
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);  // the parent already died
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::execv("/proc/self/exe", argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  if (pid < 0) {
    ::close(in[1]);
    ::close(out[0]);
    return absl::FailedPreconditionError("fork failed");
  }
  ChildProcess child(pid, in[1]);
  const bool greeted =
      ReadLine(out[0], absl::Now() + timeout, &child.greeting_);
  ::close(out[0]);
  if (!greeted) {
    return absl::DeadlineExceededError(
        "it ended or said nothing before the deadline");
  }
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      in_(std::exchange(other.in_, -1)),
      greeting_(std::move(other.greeting_)) {}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) Finish(absl::Seconds(30));
}

bool ChildProcess::Signal(int signal) {
  return pid_ > 0 && ::kill(pid_, signal) == 0;
}

std::optional<int> ChildProcess::Finish(absl::Duration timeout) {
  if (in_ >= 0) ::close(std::exchange(in_, -1));
  if (pid_ <= 0) return std::nullopt;
  const pid_t pid = std::exchange(pid_, -1);
  const absl::Time deadline = absl::Now() + timeout;
  int status = 0;
  pid_t ended;
  while ((ended = ::waitpid(pid, &status, WNOHANG)) == 0 &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  if (ended == pid) return status;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return std::nullopt;
}

void Greet(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
}

void AwaitEndOfInput() {
  char chunk[256];
  while (true) {
    const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n == 0 || (n < 0 && errno != EINTR)) return;
  }
}

}  // namespace cairn::bench
