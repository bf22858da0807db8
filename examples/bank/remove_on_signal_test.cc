// RemoveOnSignal, in child processes (a signal ends the process): the path
// goes and the process still ends by its signal; once the object is gone,
// or for a signal the process ignored, signals act as before.
#include "examples/bank/remove_on_signal.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::examples::bank {
namespace {

namespace fs = std::filesystem;
using persistence::testing::TempDir;

// A directory with a file in it, under a TempDir of the test.
std::string MakeCopyLikeDir(const TempDir& temp, const std::string& name) {
  const fs::path dir = fs::path(temp.path()) / name;
  fs::create_directories(dir / "store");
  std::ofstream(dir / "store" / "CURRENT") << "MANIFEST-000001\n";
  return dir.string();
}

// Runs `body` in a child process and returns its wait status. The child
// ends with exit code 0 after `body` unless a signal ends it first; an
// alarm ends it if it hangs.
int InChild(const std::function<void()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(30);
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(RemoveOnSignalTest, ASignalRemovesThePathAndStillEndsTheProcess) {
  absl::StatusOr<TempDir> temp = TempDir::Make();
  ASSERT_TRUE(temp.ok()) << temp.status();
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    const std::string dir = MakeCopyLikeDir(*temp, "copy");
    const int status = InChild([&] {
      RemoveOnSignal remove(dir);
      ::raise(signal);
      while (true) ::pause();  // until the signal's end of the process
    });
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal)
        << "signal " << signal << ": wait status " << status;
    EXPECT_FALSE(fs::exists(dir)) << "signal " << signal;
  }
}

TEST(RemoveOnSignalTest, OnceGoneSignalsActAsBefore) {
  absl::StatusOr<TempDir> temp = TempDir::Make();
  ASSERT_TRUE(temp.ok()) << temp.status();
  const std::string dir = MakeCopyLikeDir(*temp, "copy");
  const int status = InChild([&] {
    { RemoveOnSignal remove(dir); }
    ::raise(SIGTERM);
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_TRUE(fs::exists(dir));
}

TEST(RemoveOnSignalTest, ASignalTheProcessIgnoredStaysIgnored) {
  absl::StatusOr<TempDir> temp = TempDir::Make();
  ASSERT_TRUE(temp.ok()) << temp.status();
  const std::string dir = MakeCopyLikeDir(*temp, "copy");
  const int status = InChild([&] {
    ::signal(SIGINT, SIG_IGN);  // as for a background job of a shell
    RemoveOnSignal remove(dir);
    ::raise(SIGINT);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(fs::exists(dir));
}

}  // namespace
}  // namespace cairn::examples::bank
