#include "bench/remote/far_side.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>

#include "bench/remote/side.h"

namespace cairn::bench::remote {
namespace {

constexpr std::chrono::seconds kDeadline{30};

// Its first line, read a byte at a time so that nothing beyond it is
// taken; false if it ends or stays silent until the deadline.
bool ReadGreeting(int fd, std::string* line) {
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    struct pollfd p = {fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
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

FarSide FarSide::Start(const std::string& side) {
  // O_CLOEXEC: a later far side does not inherit this one's pipes.
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    Die("pipe failed");
  }
  const std::string flag = "--serve=" + side;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);  // the benchmark already died
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    char* argv[] = {const_cast<char*>("remote_vs_caf"),
                    const_cast<char*>(flag.c_str()), nullptr};
    ::execv("/proc/self/exe", argv);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  if (pid < 0) Die("fork failed");
  FarSide far(pid, in[1], "");
  const bool greeted = ReadGreeting(out[0], &far.greeting_);
  ::close(out[0]);
  if (!greeted) {
    Die("the far side (" + flag + ") did not say where it listens");
  }
  return far;
}

FarSide::FarSide(FarSide&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      in_(std::exchange(other.in_, -1)),
      greeting_(std::move(other.greeting_)) {}

FarSide::~FarSide() {
  if (in_ >= 0) ::close(in_);
  if (pid_ <= 0) return;
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  int status = 0;
  pid_t ended;
  while ((ended = ::waitpid(pid_, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (ended == 0) {
    std::fprintf(stderr, "remote_vs_caf: the far side did not exit; killed\n");
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  } else if (ended > 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
    std::fprintf(stderr, "remote_vs_caf: the far side ended badly (%d)\n",
                 status);
  }
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

}  // namespace cairn::bench::remote
