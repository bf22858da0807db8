// `bank balances` on a store with a record it cannot read: it fails with
// exit code 1 and a one-line error naming the account and the sequence
// number, and prints no balances.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "actor/future.h"
#include "base/status_testing.h"
#include "examples/bank/bank_process.h"
#include "examples/bank/serialization.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/testing/temp_dir.h"
#include "serialization/serialization.h"

namespace cairn::examples::bank {
namespace {

using persistence::testing::TempDir;
using testing::RunBank;

constexpr absl::Duration kTimeout = absl::Seconds(30);

// Stored under the manifest of a deposit, but its bytes are no FlatBuffer:
// what a damaged record looks like to the reader.
struct NotADeposit {};

// Appends a record the bank cannot read as event `sequence_nr` of
// `persistence_id`, through the journal, as a writer with a bug would.
absl::Status AppendBadRecord(const std::string& dir,
                             const std::string& persistence_id,
                             int64_t sequence_nr) {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  absl::Status s = registry->Register<NotADeposit>(
      kDepositedManifest,
      [](const NotADeposit&) -> absl::StatusOr<std::string> {
        return std::string("this is not a flatbuffer");
      },
      [](std::string_view) -> absl::StatusOr<NotADeposit> {
        return NotADeposit{};
      });
  if (!s.ok()) return s;
  persistence::RocksDbOptions options;
  options.path = dir;
  options.create_if_missing = false;
  absl::StatusOr<persistence::RocksDbStore> store =
      persistence::RocksDbStore::Open(options);
  if (!store.ok()) return store.status();
  absl::StatusOr<std::unique_ptr<persistence::Journal>> journal =
      store->NewJournal(registry);
  if (!journal.ok()) return journal.status();
  std::vector<persistence::AtomicWrite> writes(1);
  persistence::PersistentRepr repr;
  repr.persistence_id = persistence_id;
  repr.sequence_nr = sequence_nr;
  repr.payload = serialization::Payload::Of(NotADeposit{});
  writes[0].events.push_back(std::move(repr));
  actor::Promise<absl::Status> written;
  (*journal)->AsyncWriteMessages(
      std::move(writes),
      [written](absl::Status batch,
                std::vector<absl::Status> per_write) mutable {
        written.TrySetValue(batch.ok() ? per_write.at(0) : batch);
      });
  if (!written.GetFuture().wait_for(kTimeout)) {
    return absl::DeadlineExceededError("the write did not complete");
  }
  return written.GetFuture().get();
}

// A store made by `bank load --accounts 3 --ops 9`, with a bad record
// appended as event `sequence_nr` of `persistence_id`: then `bank balances`
// must exit with 1 and one line on stderr that names both.
void ExpectBalancesToName(const std::string& persistence_id,
                          int64_t sequence_nr) {
  absl::StatusOr<TempDir> dir = TempDir::Make();
  ASSERT_OK(dir);
  testing::Finished load =
      RunBank({"load", "--data", dir->path(), "--accounts", "3", "--ops", "9"},
              kTimeout);
  ASSERT_EQ(load.exit_code, 0) << load.err;
  ASSERT_OK(AppendBadRecord(dir->path(), persistence_id, sequence_nr));

  testing::Finished balances =
      RunBank({"balances", "--data", dir->path()}, kTimeout);
  EXPECT_EQ(balances.exit_code, 1) << balances.err;
  std::printf("bank balances said: %s", balances.err.c_str());
  EXPECT_EQ(balances.out, "");
  const std::vector<std::string> lines =
      absl::StrSplit(balances.err, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 1u) << balances.err;
  EXPECT_TRUE(
      absl::StrContains(lines[0], absl::StrCat("'", persistence_id, "'")))
      << lines[0];
  EXPECT_TRUE(
      absl::StrContains(lines[0], absl::StrCat("sequence nr ", sequence_nr)))
      << lines[0];
}

TEST(CorruptStoreTest, ABadEventOfAnAccountIsNamedWithItsSequenceNumber) {
  // Account 1 got deposits 2, 5 and 8: events 2 to 4 after its Opened.
  ExpectBalancesToName("account-1", 5);
}

}  // namespace
}  // namespace cairn::examples::bank
