#include "bench/cluster/node_process.h"

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
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bench/cluster/die.h"

namespace cairn::bench::cluster {
namespace {

constexpr std::chrono::seconds kDeadline{60};

// Its first line, read a byte at a time so that nothing beyond it is
// taken; false if it ends or stays silent until the deadline.
bool ReadLine(int fd, std::string* line) {
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

NodeProcess::NodeProcess(const ClusterOptions& options,
                         const std::string& type) {
  std::vector<std::string> args = {
      "cluster_sharding", "--serve=" + type,
      "--postgres=" + options.postgres_url, "--schema=" + options.schema,
      absl::StrCat("--lease_ttl_seconds=",
                   absl::ToInt64Seconds(options.lease_ttl))};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  // O_CLOEXEC: a later node does not inherit this one's pipes.
  int in[2];
  int out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    Die("pipe failed");
  }
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);  // the driver already died
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::execv("/proc/self/exe", argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  if (pid_ < 0) Die("fork failed");
  in_ = in[1];
  const bool greeted = ReadLine(out[0], &address_);
  ::close(out[0]);
  if (!greeted) Die("the node of " + type + " did not say where it listens");
}

NodeProcess::~NodeProcess() {
  ::close(in_);
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  int status = 0;
  pid_t ended;
  while ((ended = ::waitpid(pid_, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (ended == 0) {
    std::fprintf(stderr, "cluster_sharding: node %s did not exit; killed\n",
                 address_.c_str());
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  } else if (!killed_ && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    Die(absl::StrCat("node ", address_, " ended badly (wait status ", status,
                     ")"));
  }
}

void NodeProcess::Signal(int signal) {
  killed_ = signal == SIGKILL;
  if (::kill(pid_, signal) != 0) {
    Die(absl::StrCat("cannot signal node ", address_));
  }
}

}  // namespace cairn::bench::cluster
