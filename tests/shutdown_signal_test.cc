// SIGTERM to a process running an actor system runs coordinated shutdown:
// the phases run in order and the process exits with the configured code.
// Spawns //examples/shutdown and talks to it through a pipe.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

std::string ExampleBinary() {
  if (const char* path = std::getenv("CAIRN_SHUTDOWN_EXAMPLE")) return path;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir == nullptr ? "." : srcdir) +
         "/cairn/examples/shutdown/shutdown";
}

// Reads one line (without '\n'); false at end of input.
bool ReadLine(int fd, std::string* line) {
  line->clear();
  char c;
  while (true) {
    ssize_t n = ::read(fd, &c, 1);
    if (n <= 0) return !line->empty();
    if (c == '\n') return true;
    line->push_back(c);
  }
}

TEST(ShutdownSignalTest, SigtermRunsThePhasesAndExitsWithTheConfiguredCode) {
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const std::string binary = ExampleBinary();
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execl(binary.c_str(), binary.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(out[1]);
  std::string line;
  ASSERT_TRUE(ReadLine(out[0], &line)) << "no output from " << binary;
  ASSERT_EQ(line, "ready");
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  std::vector<std::string> lines;
  while (ReadLine(out[0], &line)) lines.push_back(line);
  ::close(out[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 7);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "phase service-unbind", "phase service-stop",
                       "phase before-actor-system-terminate"}));
}

}  // namespace
