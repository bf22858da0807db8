// StoreCopy: where the copy goes, what it says when $TMPDIR cannot take
// it, and that the copies of processes that are gone are removed.
#include "examples/bank/store_copy.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::examples::bank {
namespace {

namespace fs = std::filesystem;
using persistence::testing::TempDir;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Sets TMPDIR for the test's duration.
class ScopedTmpDir {
 public:
  explicit ScopedTmpDir(const std::string& value) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    ::setenv("TMPDIR", value.c_str(), 1);
  }
  ~ScopedTmpDir() {
    if (old_.empty()) {
      ::unsetenv("TMPDIR");
    } else {
      ::setenv("TMPDIR", old_.c_str(), 1);
    }
  }

 private:
  std::string old_;
};

// The copies in `dir`.
std::vector<std::string> Copies(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (absl::StartsWith(name, "cairn-bank-read-")) found.push_back(name);
  }
  return found;
}

class StoreCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TempDir> temp = TempDir::Make();
    ASSERT_TRUE(temp.ok()) << temp.status();
    temp_.emplace(*std::move(temp));
    store_ = (fs::path(temp_->path()) / "store").string();
    tmp_ = (fs::path(temp_->path()) / "tmp").string();
    fs::create_directories(store_);
    fs::create_directories(tmp_);
    std::ofstream(fs::path(store_) / "CURRENT") << "MANIFEST-000001\n";
    std::ofstream(fs::path(store_) / "MANIFEST-000001") << "manifest";
    std::ofstream(fs::path(store_) / "LOCK");
  }

  std::optional<TempDir> temp_;
  std::string store_;
  std::string tmp_;
};

TEST_F(StoreCopyTest, CopiesTheDatabaseFilesUnderTmpdirAndRemovesThem) {
  ScopedTmpDir tmpdir(tmp_);
  std::string path;
  {
    absl::StatusOr<StoreCopy> copy = StoreCopy::Make(store_);
    ASSERT_TRUE(copy.ok()) << copy.status();
    path = copy->path();
    EXPECT_TRUE(absl::StartsWith(path, tmp_ + "/cairn-bank-read-")) << path;
    EXPECT_TRUE(fs::exists(fs::path(path) / "CURRENT"));
    EXPECT_TRUE(fs::exists(fs::path(path) / "MANIFEST-000001"));
    EXPECT_FALSE(fs::exists(fs::path(path) / "LOCK"));
  }
  EXPECT_TRUE(Copies(tmp_).empty());
}

TEST_F(StoreCopyTest, ATmpdirThatDoesNotExistIsNamedWithTheReason) {
  ScopedTmpDir tmpdir(tmp_ + "/missing");
  absl::StatusOr<StoreCopy> copy = StoreCopy::Make(store_);
  ASSERT_FALSE(copy.ok());
  EXPECT_EQ(copy.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(copy.status().message(),
              AllOf(HasSubstr(absl::StrCat("TMPDIR (", tmp_, "/missing)")),
                    HasSubstr("it does not exist"), HasSubstr("set TMPDIR")));
}

TEST_F(StoreCopyTest, ATmpdirThatIsAFileIsNamedWithTheReason) {
  const std::string file = tmp_ + "/a-file";
  std::ofstream(file) << "x";
  ScopedTmpDir tmpdir(file);
  absl::StatusOr<StoreCopy> copy = StoreCopy::Make(store_);
  ASSERT_FALSE(copy.ok());
  EXPECT_EQ(copy.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(copy.status().message(),
              AllOf(HasSubstr(file), HasSubstr("not a directory")));
}

TEST_F(StoreCopyTest, RunningOutOfRoomInTmpdirIsSaidSo) {
  ScopedTmpDir tmpdir(tmp_);
  absl::StatusOr<StoreCopy> copy = StoreCopy::Make(store_);
  ASSERT_TRUE(copy.ok()) << copy.status();
  // What RocksDB says when opening the copy fills $TMPDIR.
  const absl::Status full = absl::UnavailableError(
      absl::StrCat("opening RocksDB store ", copy->path(),
                   ": IO error: No space left on device: While appending to "
                   "file: ",
                   copy->path(), "/000015.sst: ", std::strerror(ENOSPC)));
  const absl::Status explained = copy->Explain(full, store_);
  EXPECT_EQ(explained.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(explained.message(),
              AllOf(HasSubstr(absl::StrCat("TMPDIR (", tmp_, ")")),
                    HasSubstr("ran out of room")));
  // Any other error names the user's store, whose files the copy's are.
  const absl::Status corrupt = absl::DataLossError(
      absl::StrCat("Corruption: bad block in ", copy->path(), "/000015.sst"));
  EXPECT_EQ(copy->Explain(corrupt, store_),
            absl::DataLossError(absl::StrCat("Corruption: bad block in ",
                                             store_, "/000015.sst")));
}

TEST_F(StoreCopyTest, CopiesOfProcessesThatAreGoneAreRemovedOthersKept) {
  ScopedTmpDir tmpdir(tmp_);
  // A process that made a copy and ended without removing it (as one
  // killed with SIGKILL).
  const pid_t pid = ::fork();
  if (pid == 0) {
    absl::StatusOr<StoreCopy> copy = StoreCopy::Make(store_);
    ::_exit(copy.ok() ? 0 : 1);  // no destructors: the copy stays
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::vector<std::string> left = Copies(tmp_);
  ASSERT_EQ(left.size(), 1u);
  // A directory of that name without an `in-use` file (a copy being made
  // right now, or one of an older bank) is not touched.
  fs::create_directories(fs::path(tmp_) / "cairn-bank-read-unknown");

  absl::StatusOr<StoreCopy> first = StoreCopy::Make(store_);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(fs::exists(fs::path(tmp_) / left[0]));
  EXPECT_TRUE(fs::exists(fs::path(tmp_) / "cairn-bank-read-unknown"));
  // A copy in use is kept.
  absl::StatusOr<StoreCopy> second = StoreCopy::Make(store_);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(fs::exists(first->path()));
  EXPECT_EQ(Copies(tmp_).size(), 3u);
}

}  // namespace
}  // namespace cairn::examples::bank
