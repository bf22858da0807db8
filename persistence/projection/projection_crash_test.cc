// A projection killed with SIGKILL in the middle resumes without losing an
// event: at-least-once, every event is handled at least once over the two
// runs; exactly-once, the read model counts every event exactly once.
//
// The child (projection_crash_child) writes a line per envelope to a pipe
// this test stops reading after kLinesBeforeKill lines: the child then
// blocks inside its handler, at most a pipe's buffer ahead, and is killed
// there, far from the end of the kEvents events.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/rocksdb_projection_store.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using testing::TempDir;

constexpr int kIds = 4;
constexpr int kEventsPerId = 2500;
constexpr int kEvents = kIds * kEventsPerId;
// Far below what the pipe's buffer lets the child run ahead of the test
// (64 KiB of ~10-byte lines) subtracted from kEvents.
constexpr int kLinesBeforeKill = 1000;

std::string ChildBinary() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return absl::StrCat(srcdir == nullptr ? "." : srcdir,
                      "/cairn/persistence/projection/projection_crash_child");
}

// The journal: kEvents events tagged "t", of ids "p0".."p3", interleaved.
void FillJournal(const std::string& path) {
  RocksDbOptions options;
  options.path = path;
  options.fsync = false;
  absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
  ASSERT_OK(store);
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      store->NewJournal(testing::NewTestSerialization());
  ASSERT_OK(journal);
  for (int seq = 1; seq <= kEventsPerId; seq += 50) {
    std::vector<AtomicWrite> writes;
    for (int s = seq; s < seq + 50; ++s) {
      for (int id = 0; id < kIds; ++id) {
        AtomicWrite w =
            testing::Single(absl::StrCat("p", id), s,
                            serialization::Payload::Of(absl::StrCat("e", s)));
        w.events[0].tags = {"t"};
        writes.push_back(std::move(w));
      }
    }
    testing::WriteOutcome out = testing::WriteMessages(**journal, writes);
    ASSERT_OK(out.batch);
  }
}

struct Child {
  pid_t pid = -1;
  int out = -1;  // the read end of its stdout
};

Child Start(const std::string& mode, const std::string& journal,
            const std::string& store, const std::string& log) {
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0) return {};
  const std::string binary = ChildBinary();
  std::vector<std::string> args = {binary,    "--journal", journal,
                                   "--store", store,       "--mode",
                                   mode,      "--log",     log};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe[1], STDOUT_FILENO);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(pipe[1]);
  return {pid, pipe[0]};
}

// Reads lines from `fd` until `max` lines or the end; the count.
int ReadLines(int fd, int max) {
  int lines = 0;
  char c;
  while (lines < max && ::read(fd, &c, 1) == 1) {
    if (c == '\n') ++lines;
  }
  return lines;
}

int Wait(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

class ProjectionCrashTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    absl::StatusOr<TempDir> dir = TempDir::Make("projection-crash");
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    journal_ = dir_->path() + "/journal";
    store_ = dir_->path() + "/projection";
    log_ = dir_->path() + "/handled.log";
    FillJournal(journal_);
  }

  // Runs the child, kills it after kLinesBeforeKill lines, runs it again
  // to the end.
  void KillThenResume() {
    Child first = Start(GetParam(), journal_, store_, log_);
    ASSERT_GT(first.pid, 0);
    ASSERT_EQ(ReadLines(first.out, kLinesBeforeKill), kLinesBeforeKill)
        << "the child ended early";
    ASSERT_EQ(::kill(first.pid, SIGKILL), 0);
    EXPECT_EQ(Wait(first.pid), -SIGKILL);
    ::close(first.out);

    Child second = Start(GetParam(), journal_, store_, log_);
    ASSERT_GT(second.pid, 0);
    resumed_lines_ = ReadLines(second.out, kEvents + 1);
    ::close(second.out);
    ASSERT_EQ(Wait(second.pid), 0);
  }

  std::optional<TempDir> dir_;
  std::string journal_, store_, log_;
  int resumed_lines_ = 0;
};

TEST_P(ProjectionCrashTest, AKilledProjectionResumesWithoutLosingAnEvent) {
  KillThenResume();
  // The second run resumed: it did not start again from the beginning.
  EXPECT_LT(resumed_lines_, kEvents);
  absl::StatusOr<std::shared_ptr<ProjectionStore>> store =
      RocksDbProjectionStore::Open(store_);
  ASSERT_OK(store);
  absl::StatusOr<ProjectionOffset> offset =
      (*store)->ReadOffset({"crash", "t"});
  ASSERT_OK(offset);
  EXPECT_EQ(*offset, (ProjectionOffset{kEvents, 1}));

  if (GetParam() == "exactly-once") {
    EXPECT_EQ(**(*store)->Get("count"), absl::StrCat(kEvents));
    int seen = 0;
    int dups = 0;
    ASSERT_OK(
        (*store)->ForEach("seen/", [&](std::string_view, std::string_view) {
          ++seen;
          return true;
        }));
    ASSERT_OK(
        (*store)->ForEach("dup/", [&](std::string_view, std::string_view) {
          ++dups;
          return true;
        }));
    EXPECT_EQ(seen, kEvents);
    EXPECT_EQ(dups, 0);
    return;
  }
  // At-least-once: every event in the log, some perhaps twice.
  std::string text;
  {
    FILE* f = std::fopen(log_.c_str(), "r");
    ASSERT_NE(f, nullptr);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
      text.append(buf, n);
    }
    std::fclose(f);
  }
  std::map<std::string, int> handled;
  for (const std::string& line : std::vector<std::string>(
           absl::StrSplit(text, '\n', absl::SkipEmpty()))) {
    ++handled[line];
  }
  for (int id = 0; id < kIds; ++id) {
    for (int s = 1; s <= kEventsPerId; ++s) {
      ASSERT_GE(handled[absl::StrCat("p", id, " ", s)], 1)
          << "p" << id << " " << s << " was never handled";
    }
  }
  EXPECT_EQ(handled.size(), static_cast<std::size_t>(kEvents));
}

INSTANTIATE_TEST_SUITE_P(Modes, ProjectionCrashTest,
                         ::testing::Values("at-least-once", "exactly-once"),
                         [](const auto& info) {
                           return info.param == "exactly-once"
                                      ? std::string("ExactlyOnce")
                                      : std::string("AtLeastOnce");
                         });

}  // namespace
}  // namespace cairn::persistence
