// Where RocksDB's own messages go: never to a LOG file in the store (on a
// full disk, RocksDB's writes of it failed and then aborted the process),
// but to RocksDbOptions::log (which the Persistence extension points at the
// actor system's log: //persistence:rocksdb_log_test).

#include <cstdarg>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/internal/rocksdb_logger.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/env.h"

namespace cairn::persistence {
namespace {

using testing::TempDir;

struct Logged {
  RocksDbLogLevel level;
  std::string message;
};

// Collects what a sink is given, from any thread.
class Collected {
 public:
  RocksDbLogSink Sink() {
    return [this](RocksDbLogLevel level, std::string_view message) {
      base::MutexLock lock(&mu_);
      logged_.push_back(Logged{level, std::string(message)});
    };
  }
  std::vector<Logged> Get() {
    base::MutexLock lock(&mu_);
    return logged_;
  }

 private:
  base::Mutex mu_;
  std::vector<Logged> logged_ ABSL_GUARDED_BY(mu_);
};

void Log(rocksdb::Logger& logger, rocksdb::InfoLogLevel level,
         const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  logger.Logv(level, format, ap);
  va_end(ap);
}

void Header(rocksdb::Logger& logger, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  logger.LogHeader(format, ap);
  va_end(ap);
}

TEST(RocksDbLoggerTest, PassesOnWarningsAndErrorsAndDropsTheRest) {
  Collected collected;
  std::shared_ptr<rocksdb::Logger> logger =
      rocksdb_internal::NewRocksDbLogger(collected.Sink(), "/data/store");
  Log(*logger, rocksdb::InfoLogLevel::DEBUG_LEVEL, "debug %d", 1);
  Log(*logger, rocksdb::InfoLogLevel::INFO_LEVEL, "info %d", 2);
  Header(*logger, "header %d", 3);
  Log(*logger, rocksdb::InfoLogLevel::WARN_LEVEL, "warning %d: %s\n", 4,
      "disk full");
  Log(*logger, rocksdb::InfoLogLevel::ERROR_LEVEL, "error %d", 5);
  Log(*logger, rocksdb::InfoLogLevel::FATAL_LEVEL, "fatal %d", 6);

  std::vector<Logged> logged = collected.Get();
  ASSERT_EQ(logged.size(), 3u);
  EXPECT_EQ(logged[0].level, RocksDbLogLevel::kWarning);
  EXPECT_EQ(logged[0].message, "warning 4: disk full");
  EXPECT_EQ(logged[1].level, RocksDbLogLevel::kError);
  EXPECT_EQ(logged[1].message, "error 5");
  EXPECT_EQ(logged[2].level, RocksDbLogLevel::kError);
  EXPECT_EQ(logged[2].message, "fatal 6");
}

TEST(RocksDbLogTest, NoLogFileIsWrittenInTheStore) {
  absl::StatusOr<TempDir> dir = TempDir::Make();
  ASSERT_OK(dir);
  RocksDbOptions options;
  options.path = dir->path() + "/store";
  Collected collected;
  options.log = collected.Sink();
  {
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
    ASSERT_OK(store);
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store->NewJournal(testing::NewTestSerialization());
    ASSERT_OK(journal);
    testing::WriteOutcome written = testing::WriteMessages(
        **journal, {testing::Single(
                       "p", 1, serialization::Payload::Of(std::string("e")))});
    ASSERT_OK(written.batch);
  }
  for (const auto& entry : std::filesystem::directory_iterator(options.path)) {
    const std::string name = entry.path().filename().string();
    EXPECT_NE(name.rfind("LOG", 0), 0u) << "RocksDB wrote " << name;
  }
  // Creating and opening a store is nothing to warn about.
  for (const Logged& logged : collected.Get()) {
    ADD_FAILURE() << "logged: " << logged.message;
  }
}

}  // namespace
}  // namespace cairn::persistence
