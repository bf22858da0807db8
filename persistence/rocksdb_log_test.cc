// RocksDB's own messages reach the actor system's log: the Persistence
// extension points RocksDbOptions::log there. (That they never go to a LOG
// file in the store: //persistence/rocksdb:rocksdb_log_test.)

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/logging.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/persistence.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::persistence {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

TEST(RocksDbLogTest, RocksDbWarningsGoToTheActorSystemLog) {
  absl::StatusOr<TempDir> dir = TempDir::Make();
  ASSERT_OK(dir);
  const std::string path = dir->path() + "/store";
  // Held open here, so the extension's open of the same directory fails,
  // and RocksDB warns about it.
  RocksDbOptions options;
  options.path = path;
  absl::StatusOr<RocksDbStore> held = RocksDbStore::Open(options);
  ASSERT_OK(held);

  // Declared before the system, which may log until it is gone.
  base::Mutex mu;
  std::vector<actor::LogEvent> events;
  actor::testkit::TestKit kit(
      absl::StrCat("akka.persistence.journal.rocksdb.dir = \"", path, "\""));
  kit.Sys().EventStream().SubscribeFunction<actor::LogEvent>(
      [&](const actor::LogEvent& event) {
        base::MutexLock lock(&mu);
        if (event.source == "persistence.rocksdb") events.push_back(event);
      });
  absl::StatusOr<Journal*> journal = Persistence::Get(kit.Sys()).JournalFor("");
  ASSERT_OK(journal);
  // Waits for the open, which fails.
  EXPECT_FALSE(testing::ReadHighestSequenceNr(**journal, "p").ok());

  kit.AwaitCondition(
      [&] {
        base::MutexLock lock(&mu);
        return !events.empty();
      },
      absl::Seconds(10), "a log event from RocksDB");
  base::MutexLock lock(&mu);
  EXPECT_EQ(events.front().level, actor::LogLevel::kWarning);
  EXPECT_THAT(events.front().message, HasSubstr(path + ": "));
  EXPECT_THAT(events.front().message, HasSubstr("DB::Open() failed"));
}

}  // namespace
}  // namespace cairn::persistence
