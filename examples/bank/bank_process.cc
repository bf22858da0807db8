#include "examples/bank/bank_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace cairn::examples::bank::testing {
namespace {

// Forks and execs the bank with `args`; the child's stdin, stdout and
// stderr are `in`, `out` and `err` (-1: inherited).
pid_t Spawn(const std::vector<std::string>& args, int in, int out, int err) {
  const std::string binary = BankBinary();
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (in >= 0) ::dup2(in, STDIN_FILENO);
    if (out >= 0) ::dup2(out, STDOUT_FILENO);
    if (err >= 0) ::dup2(err, STDERR_FILENO);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

int PollTimeoutMs(absl::Time deadline) {
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  return static_cast<int>(
      std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1000));
}

int ExitCode(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string BankBinary() {
  if (const char* path = std::getenv("BANK_BINARY")) return path;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return absl::StrCat(srcdir == nullptr ? "." : srcdir,
                      "/cairn/examples/bank/bank");
}

Finished RunBank(const std::vector<std::string>& args, absl::Duration timeout) {
  Finished result;
  int out[2];
  int err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    result.err = "pipe failed";
    return result;
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    result.err = "pipe failed";
    return result;
  }
  const pid_t pid = Spawn(args, -1, out[1], err[1]);
  ::close(out[1]);
  ::close(err[1]);
  const absl::Time deadline = absl::Now() + timeout;
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  bool timed_out = false;
  while (open > 0) {
    if (absl::Now() >= deadline) {
      timed_out = true;
      break;
    }
    if (::poll(fds, 2, PollTimeoutMs(deadline)) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char chunk[4096];
      const ssize_t n = ::read(fds[i].fd, chunk, sizeof(chunk));
      if (n > 0) {
        sinks[i]->append(chunk, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (const pollfd& p : fds) {
    if (p.fd >= 0) ::close(p.fd);
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.exit_code = timed_out ? -1 : ExitCode(status);
  return result;
}

absl::StatusOr<BankProcess> BankProcess::Start(
    const std::vector<std::string>& args) {
  // A write to the stdin of a process that ended fails with EPIPE
  // (WriteLine returns false) instead of killing the test.
  ::signal(SIGPIPE, SIG_IGN);
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) {
    return absl::UnavailableError("pipe failed");
  }
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return absl::UnavailableError("pipe failed");
  }
  const pid_t pid = Spawn(args, in[0], out[1], -1);
  ::close(in[0]);
  ::close(out[1]);
  if (pid < 0) {
    ::close(in[1]);
    ::close(out[0]);
    return absl::UnavailableError("fork failed");
  }
  return BankProcess(pid, in[1], out[0]);
}

BankProcess::BankProcess(BankProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      in_(std::exchange(other.in_, -1)),
      out_(std::exchange(other.out_, -1)),
      buffer_(std::move(other.buffer_)),
      eof_(other.eof_) {}

BankProcess::~BankProcess() {
  if (pid_ > 0) Kill();
  CloseInput();
  if (out_ >= 0) ::close(out_);
}

bool BankProcess::WriteLine(const std::string& line) {
  if (in_ < 0) return false;
  const std::string text = line + "\n";
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n =
        ::write(in_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

void BankProcess::CloseInput() {
  if (in_ >= 0) ::close(std::exchange(in_, -1));
}

bool BankProcess::Signal(int signal) {
  return pid_ > 0 && ::kill(pid_, signal) == 0;
}

std::optional<std::string> BankProcess::ReadLine(absl::Time deadline) {
  while (true) {
    if (const size_t nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    if (eof_ || absl::Now() >= deadline) return std::nullopt;
    struct pollfd p = {out_, POLLIN, 0};
    if (::poll(&p, 1, PollTimeoutMs(deadline)) <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(out_, chunk, sizeof(chunk));
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      eof_ = true;
    }
  }
}

int BankProcess::Wait(absl::Time deadline) {
  while (pid_ > 0) {
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      pid_ = -1;
      return ExitCode(status);
    }
    if (done < 0 && errno != EINTR) break;
    if (absl::Now() >= deadline) break;
    // Polls: a child's end wakes no descriptor of ours (its stdout may be
    // open in a grandchild), and a test waits seconds at most.
    absl::SleepFor(absl::Milliseconds(10));
  }
  Kill();
  return -1;
}

int BankProcess::Kill() {
  int status = 0;
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  return status;
}

absl::StatusOr<std::map<int64_t, Balance>> ParseBalances(
    const std::string& out) {
  std::map<int64_t, Balance> balances;
  std::istringstream in(out);
  std::string line;
  int64_t previous = -1;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    int64_t account = -1;
    Balance b;
    fields >> account >> b.balance >> b.last_sequence_nr;
    if (fields.fail()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bank balances: a line that does not read: ", line));
    }
    if (account <= previous) {
      return absl::InvalidArgumentError(
          absl::StrCat("bank balances: accounts not in order at: ", line));
    }
    previous = account;
    balances[account] = b;
  }
  return balances;
}

}  // namespace cairn::examples::bank::testing
