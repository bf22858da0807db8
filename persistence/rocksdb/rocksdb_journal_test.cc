// The RocksDB plugins beyond the conformance suites: what survives closing
// the database, one journal per database, group commit, reads held behind
// the writes of their stream, and disk failures (through the
// fault-injecting file system).

#include "persistence/rocksdb/internal/rocksdb_journal.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/fault_injection_file_system.h"
#include "persistence/rocksdb/testing/store_families.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/snapshot_store.h"
#include "persistence/storage/snapshot_store_wrapper.h"
#include "persistence/storage/testing/callback_probe.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"

namespace cairn::persistence {
namespace {

using testing::CallbackProbe;
using testing::DeleteMessagesTo;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::LoadSnapshot;
using testing::ReadHighestSequenceNr;
using testing::ReplayMessages;
using testing::SaveSnapshot;
using testing::SequenceNrs;
using testing::Single;
using testing::TempDir;
using testing::Texts;
using testing::WriteMessages;
using testing::WriteOutcome;

constexpr int64_t kMax = kMaxSequenceNr;

class RocksDbJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TempDir> dir = TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    options_.path = dir_->path() + "/store";
  }

  // Opens the store at options_ with a journal and a snapshot store.
  void Open() {
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options_);
    ASSERT_OK(store);
    store_.emplace(*std::move(store));
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store_->NewJournal(serialization_);
    ASSERT_OK(journal);
    journal_ = *std::move(journal);
    snapshots_ = store_->NewSnapshotStore(serialization_);
  }

  // Closes the database: every handle on it is let go.
  void Close() {
    journal_.reset();
    snapshots_.reset();
    store_.reset();
  }

  // Writes "<pid>-<n>" for n in [from, to], one AtomicWrite each; a test
  // failure unless all are stored.
  void Write(const std::string& pid, int64_t from, int64_t to) {
    std::vector<AtomicWrite> writes;
    for (int64_t n = from; n <= to; ++n) {
      writes.push_back(Single(
          pid, n, serialization::Payload::Of(absl::StrCat(pid, "-", n))));
    }
    WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
    ASSERT_OK(outcome.batch);
    for (const absl::Status& status : outcome.per_write) {
      ASSERT_OK(status);
    }
  }

  std::vector<std::string> ReplayAll(const std::string& pid) {
    testing::ReplayOutcome outcome =
        ReplayMessages(*journal_, pid, 1, kMax, kMax);
    EXPECT_OK(outcome.status);
    return Texts(outcome.events);
  }

  int64_t Highest(const std::string& pid) {
    absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, pid);
    EXPECT_OK(highest);
    return highest.ok() ? *highest : -1;
  }

  // Opens the store on the fault-injecting file system file_system_.
  void UseFaultInjection() {
    file_system_ = std::make_shared<testing::FaultInjectionFileSystem>();
    env_ = testing::NewFaultInjectionEnv(file_system_);
    options_.env = env_.get();
  }

  rocksdb_internal::RocksDbJournal& Internal() {
    return dynamic_cast<rocksdb_internal::RocksDbJournal&>(*journal_);
  }

  std::optional<TempDir> dir_;
  // Declared before the store: the database uses them until it closes.
  std::shared_ptr<testing::FaultInjectionFileSystem> file_system_;
  std::unique_ptr<rocksdb::Env> env_;
  RocksDbOptions options_;
  std::shared_ptr<const serialization::SerializationRegistry> serialization_ =
      testing::NewTestSerialization();
  std::optional<RocksDbStore> store_;
  std::unique_ptr<SnapshotStore> snapshots_;
  std::unique_ptr<Journal> journal_;
};

TEST_F(RocksDbJournalTest, EventsAndHighestSequenceNrsSurviveReopening) {
  ASSERT_NO_FATAL_FAILURE(Open());
  Write("a", 1, 5);
  Write("b", 1, 3);
  Write("c", 1, 4);
  ASSERT_OK(DeleteMessagesTo(*journal_, "a", kMax));
  ASSERT_OK(DeleteMessagesTo(*journal_, "c", 2));
  ASSERT_OK(SaveSnapshot(*snapshots_, {"b", 2, 77},
                         serialization::Payload::Of(std::string("snap"))));
  Close();

  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Highest("a"), 5);
  EXPECT_THAT(ReplayAll("a"), IsEmpty());
  EXPECT_EQ(Highest("b"), 3);
  EXPECT_THAT(ReplayAll("b"), ElementsAre("b-1", "b-2", "b-3"));
  EXPECT_EQ(Highest("c"), 4);
  EXPECT_THAT(ReplayAll("c"), ElementsAre("c-3", "c-4"));
  absl::StatusOr<LoadSnapshotResult> snapshot =
      LoadSnapshot(*snapshots_, "b", SnapshotSelectionCriteria::Latest(), kMax);
  ASSERT_OK(snapshot);
  ASSERT_TRUE(snapshot->snapshot.has_value());
  EXPECT_EQ(snapshot->snapshot->metadata.timestamp, 77);

  // The stream goes on where it was.
  Write("a", 6, 6);
  Close();
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_EQ(Highest("a"), 6);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-6"));
}

TEST_F(RocksDbJournalTest, WritesWithoutFsyncSurviveReopening) {
  options_.fsync = false;
  ASSERT_NO_FATAL_FAILURE(Open());
  Write("a", 1, 3);
  Close();
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2", "a-3"));
}

TEST_F(RocksDbJournalTest, AllowsOneJournalPerDatabaseAtATime) {
  ASSERT_NO_FATAL_FAILURE(Open());
  absl::StatusOr<std::unique_ptr<Journal>> second =
      store_->NewJournal(serialization_);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition)
      << second.status();
  // Any number of snapshot stores.
  std::unique_ptr<SnapshotStore> another =
      store_->NewSnapshotStore(serialization_);
  EXPECT_NE(another, nullptr);

  journal_.reset();
  absl::StatusOr<std::unique_ptr<Journal>> third =
      store_->NewJournal(serialization_);
  EXPECT_OK(third);
}

TEST_F(RocksDbJournalTest, RefusesToOpenADatabaseOpenElsewhere) {
  ASSERT_NO_FATAL_FAILURE(Open());
  absl::StatusOr<RocksDbStore> again = RocksDbStore::Open(options_);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kUnavailable)
      << again.status();
}

TEST_F(RocksDbJournalTest, RejectsBadOptions) {
  RocksDbOptions options = options_;
  options.path = "";
  EXPECT_EQ(RocksDbStore::Open(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options = options_;
  options.reader_threads = 0;
  EXPECT_EQ(RocksDbStore::Open(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options = options_;
  options.create_if_missing = false;
  absl::Status missing = RocksDbStore::Open(options).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound) << missing;
  EXPECT_THAT(std::string(missing.message()), HasSubstr(options.path));
}

// A RocksDB database of another program is not taken over: opening it
// fails and leaves it as it was.
TEST_F(RocksDbJournalTest, RefusesARocksDbDatabaseThatIsNotACairnStore) {
  {
    rocksdb::Options plain;
    plain.create_if_missing = true;
    rocksdb::DB* raw = nullptr;
    ASSERT_OK(rocksdb::DB::Open(plain, options_.path, &raw));
    std::unique_ptr<rocksdb::DB> db(raw);
    ASSERT_OK(db->Put(rocksdb::WriteOptions(), "their-key", "value"));
  }
  absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options_);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition)
      << store.status();
  EXPECT_THAT(std::string(store.status().message()),
              HasSubstr("not a cairn store"));
  std::vector<std::string> families;
  ASSERT_OK(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), options_.path,
                                            &families));
  EXPECT_THAT(families, ElementsAre("default"));
}

// A newer cairn's store is refused, not misread.
TEST_F(RocksDbJournalTest, RefusesAStoreOfAnotherLayoutVersion) {
  ASSERT_NO_FATAL_FAILURE(Open());
  Close();
  {
    std::vector<rocksdb::ColumnFamilyDescriptor> families =
        testing::StoreColumnFamilies();
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_OK(rocksdb::DB::Open(rocksdb::DBOptions(), options_.path, families,
                                &handles, &raw));
    std::unique_ptr<rocksdb::DB> db(raw);
    ASSERT_OK(db->Put(rocksdb::WriteOptions(), handles[0],
                      "cairn.storage.layout-version", "3"));
    for (rocksdb::ColumnFamilyHandle* handle : handles) {
      ASSERT_OK(db->DestroyColumnFamilyHandle(handle));
    }
  }
  absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options_);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition)
      << store.status();
  EXPECT_THAT(std::string(store.status().message()),
              HasSubstr("has layout version '3'; this build reads versions 1 "
                        "and 2"));
}

// The plugin registry opens the database on the first Create, shares it,
// closes it with the last plugin object and opens it again on the next.
TEST_F(RocksDbJournalTest, RegisteredPluginsShareAndReopenTheDatabase) {
  PluginRegistry plugins;
  ASSERT_OK(RegisterRocksDbPlugins(plugins, options_));
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      plugins.CreateJournal(kRocksDbJournalPluginId, {serialization_});
  ASSERT_OK(journal);
  absl::StatusOr<std::unique_ptr<SnapshotStore>> snapshots =
      plugins.CreateSnapshotStore(kRocksDbSnapshotStorePluginId,
                                  {serialization_});
  ASSERT_OK(snapshots);
  journal_ = *std::move(journal);
  Write("a", 1, 2);
  journal_.reset();
  // The snapshot store holds the database open; a new journal shares it.
  journal = plugins.CreateJournal(kRocksDbJournalPluginId, {serialization_});
  ASSERT_OK(journal);
  journal_ = *std::move(journal);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2"));
  journal_.reset();
  snapshots->reset();
  // Closed now: the directory can be opened directly.
  {
    absl::StatusOr<RocksDbStore> direct = RocksDbStore::Open(options_);
    ASSERT_OK(direct);
  }
  journal = plugins.CreateJournal(kRocksDbJournalPluginId, {serialization_});
  ASSERT_OK(journal);
  journal_ = *std::move(journal);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2"));
}

// The last plugin object closing the database and a Create opening it again
// may meet: the Create must wait for the close (RocksDB's lock on the
// directory is held until it completes) rather than fail.
TEST_F(RocksDbJournalTest, RegisteredPluginsReopenWhileTheLastOneCloses) {
  PluginRegistry plugins;
  ASSERT_OK(RegisterRocksDbPlugins(plugins, options_));
  constexpr int kRounds = 200;
  std::atomic<int> failures{0};
  std::string first_failure;
  base::Mutex mu;
  auto churn = [&] {
    for (int i = 0; i < kRounds; ++i) {
      absl::StatusOr<std::unique_ptr<SnapshotStore>> store =
          plugins.CreateSnapshotStore(kRocksDbSnapshotStorePluginId,
                                      {serialization_});
      if (!store.ok()) {
        base::MutexLock lock(&mu);
        if (failures++ == 0) first_failure = store.status().ToString();
      }
      // Dropped here; often the last one, closing the database.
    }
  };
  std::thread other(churn);
  churn();
  other.join();
  EXPECT_EQ(failures.load(), 0) << first_failure;
}

TEST_F(RocksDbJournalTest, RegisteredPluginsReportWhyTheDatabaseWontOpen) {
  options_.create_if_missing = false;
  PluginRegistry plugins;
  ASSERT_OK(RegisterRocksDbPlugins(plugins, options_));
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      plugins.CreateJournal(kRocksDbJournalPluginId, {serialization_});
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kNotFound)
      << journal.status();
  EXPECT_THAT(std::string(journal.status().message()),
              HasSubstr(options_.path));
}

// While the first commit is held in its WAL append, every write submitted
// queues behind it; released, they are committed together as one batch.
TEST_F(RocksDbJournalTest, CommitsTheWritesQueuedDuringACommitAsOneBatch) {
  UseFaultInjection();
  ASSERT_NO_FATAL_FAILURE(Open());
  const int64_t commits_before = Internal().commits();

  auto probe = std::make_shared<CallbackProbe>();
  file_system_->HoldNextWalAppend();
  journal_->AsyncWriteMessages(
      {Single("first", 1, serialization::Payload::Of(std::string("first-1")))},
      [probe](absl::Status batch, std::vector<absl::Status> per_write) {
        probe->Ran(0, batch.ok() && per_write[0].ok());
      });
  ASSERT_TRUE(file_system_->WaitUntilHeld(absl::Seconds(30)));

  constexpr int kThreads = 4;
  constexpr int kWritesPerThread = 25;
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      const std::string pid = absl::StrCat("w-", t);
      for (int64_t n = 1; n <= kWritesPerThread; ++n) {
        journal_->AsyncWriteMessages(
            {Single(pid, n,
                    serialization::Payload::Of(absl::StrCat(pid, "-", n)))},
            [probe](absl::Status batch, std::vector<absl::Status> per_write) {
              probe->Ran(1, batch.ok() && per_write[0].ok());
            });
      }
    });
  }
  // AsyncWriteMessages has queued a write when it returns.
  for (std::thread& writer : writers) writer.join();
  file_system_->Release();

  ASSERT_TRUE(probe->WaitFor(1 + kThreads * kWritesPerThread)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(Internal().commits() - commits_before, 2);
  for (int t = 0; t < kThreads; ++t) {
    const std::string pid = absl::StrCat("w-", t);
    testing::ReplayOutcome replay =
        ReplayMessages(*journal_, pid, 1, kMax, kMax);
    ASSERT_OK(replay.status);
    std::vector<int64_t> expected;
    for (int64_t n = 1; n <= kWritesPerThread; ++n) expected.push_back(n);
    EXPECT_EQ(SequenceNrs(replay.events), expected);
  }
}

// A delete reads the highest sequence number, so it ends the group being
// gathered and commits alone, after the writes before it and before those
// after it.
TEST_F(RocksDbJournalTest, CommitsADeleteBetweenTheWritesAroundIt) {
  UseFaultInjection();
  ASSERT_NO_FATAL_FAILURE(Open());
  const int64_t commits_before = Internal().commits();

  auto probe = std::make_shared<CallbackProbe>();
  auto write = [&](int tag, const std::string& pid, int64_t n) {
    journal_->AsyncWriteMessages(
        {Single(pid, n, serialization::Payload::Of(absl::StrCat(pid, "-", n)))},
        [probe, tag](absl::Status batch, std::vector<absl::Status> per_write) {
          probe->Ran(tag, batch.ok() && per_write[0].ok());
        });
  };
  file_system_->HoldNextWalAppend();
  write(0, "held", 1);
  ASSERT_TRUE(file_system_->WaitUntilHeld(absl::Seconds(30)));
  write(1, "a", 1);
  write(2, "a", 2);
  journal_->AsyncDeleteMessagesTo(
      "a", kMax, std::nullopt,
      [probe](absl::Status status) { probe->Ran(3, status.ok()); });
  write(4, "a", 3);
  write(5, "b", 1);
  file_system_->Release();

  ASSERT_TRUE(probe->WaitFor(6)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(probe->order(), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  // held; a-1 and a-2; the delete; a-3 and b-1.
  EXPECT_EQ(Internal().commits() - commits_before, 4);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-3"));
  EXPECT_EQ(Highest("a"), 3);
}

// WriteMessagesNowOrLater (journal.h): without fsync, a write to an idle
// writer is committed on the caller's thread, its callback run there
// before the call returns; with fsync, never (a sync takes milliseconds).
TEST_F(RocksDbJournalTest, CommitsAWriteOnTheCallersThreadOnlyWithoutFsync) {
  for (const bool fsync : {false, true}) {
    SCOPED_TRACE(fsync ? "fsync" : "no fsync");
    options_.fsync = fsync;
    ASSERT_NO_FATAL_FAILURE(Open());
    auto probe = std::make_shared<CallbackProbe>();
    const int64_t commits_before = Internal().commits();
    for (int64_t n = 1; n <= 3; ++n) {
      Internal().WaitUntilWriterIdle();
      journal_->WriteMessagesNowOrLater(
          {Single("p", n, serialization::Payload::Of(absl::StrCat("p-", n)))},
          [probe, n](absl::Status batch, std::vector<absl::Status> per_write) {
            probe->Ran(static_cast<int>(n), batch.ok() && per_write[0].ok());
          });
      if (!fsync) {
        EXPECT_EQ(probe->ran(), static_cast<size_t>(n));  // done already
      }
    }
    ASSERT_TRUE(probe->WaitFor(3));
    EXPECT_EQ(probe->failed(), 0);
    EXPECT_EQ(probe->on_caller(), fsync ? 0 : 3);
    EXPECT_EQ(probe->order(), (std::vector<int>{1, 2, 3}));
    // With fsync, the writer groups what queued during a sync.
    if (!fsync) {
      EXPECT_EQ(Internal().commits() - commits_before, 3);
    }
    EXPECT_THAT(ReplayAll("p"), ElementsAre("p-1", "p-2", "p-3"));
    Close();
    dir_.reset();
    SetUp();
  }
}

// A write that may be committed at once still waits behind what the writer
// is committing and what is queued: writes complete in submission order.
TEST_F(RocksDbJournalTest, AWriteNowOrLaterWaitsBehindTheWritesBeforeIt) {
  options_.fsync = false;
  UseFaultInjection();
  ASSERT_NO_FATAL_FAILURE(Open());
  auto probe = std::make_shared<CallbackProbe>();
  auto write = [&](int tag, int64_t n, bool now_or_later) {
    auto done = [probe, tag](absl::Status batch,
                             std::vector<absl::Status> per_write) {
      probe->Ran(tag, batch.ok() && per_write[0].ok());
    };
    std::vector<AtomicWrite> writes;
    writes.push_back(
        Single("a", n, serialization::Payload::Of(absl::StrCat("a-", n))));
    if (now_or_later) {
      journal_->WriteMessagesNowOrLater(std::move(writes), std::move(done));
    } else {
      journal_->AsyncWriteMessages(std::move(writes), std::move(done));
    }
  };
  file_system_->HoldNextWalAppend();
  write(0, 1, /*now_or_later=*/false);
  ASSERT_TRUE(file_system_->WaitUntilHeld(absl::Seconds(30)));
  write(1, 2, /*now_or_later=*/true);  // the writer is committing
  write(2, 3, /*now_or_later=*/false);
  write(3, 4, /*now_or_later=*/true);  // a write is queued
  EXPECT_EQ(probe->ran(), 0u);
  file_system_->Release();

  ASSERT_TRUE(probe->WaitFor(4)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(probe->order(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(probe->on_caller(), 0);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2", "a-3", "a-4"));
  // Idle again: the next one is committed here.
  Internal().WaitUntilWriterIdle();
  write(4, 5, /*now_or_later=*/true);
  EXPECT_EQ(probe->ran(), 5u);
  EXPECT_EQ(probe->on_caller(), 1);
}

// A write committed at once follows the sequence rule as any: one that
// does not follow its stream's highest fails alone, on the caller's thread.
TEST_F(RocksDbJournalTest, AWriteCommittedAtOnceKeepsTheSequenceRule) {
  options_.fsync = false;
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Write("a", 1, 2));
  Internal().WaitUntilWriterIdle();
  auto probe = std::make_shared<CallbackProbe>();
  auto outcome = std::make_shared<absl::Status>();
  journal_->WriteMessagesNowOrLater(
      {Single("a", 2, serialization::Payload::Of(std::string("again")))},
      [probe, outcome](absl::Status batch,
                       std::vector<absl::Status> per_write) {
        *outcome = batch.ok() ? per_write[0] : batch;
        probe->Ran(0, outcome->ok());
      });
  ASSERT_EQ(probe->ran(), 1u);  // on this thread, so `outcome` is set
  EXPECT_EQ(probe->on_caller(), 1);
  EXPECT_EQ(outcome->code(), absl::StatusCode::kFailedPrecondition) << *outcome;
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2"));
  EXPECT_EQ(Highest("a"), 2);
}

// A write that would wait (here behind a snapshot save, the store's other
// writer, held in its WAL append) is not committed on the caller's thread:
// it queues for the writer, which stores it once the save is done.
TEST_F(RocksDbJournalTest, AWriteThatWouldWaitGoesToTheWriter) {
  options_.fsync = false;
  UseFaultInjection();
  ASSERT_NO_FATAL_FAILURE(Open());
  auto probe = std::make_shared<CallbackProbe>();
  file_system_->HoldNextWalAppend();
  snapshots_->AsyncSave(SnapshotMetadata{"s", 1, 0},
                        serialization::Payload::Of(std::string("state")),
                        std::nullopt,
                        [probe](absl::Status s) { probe->Ran(0, s.ok()); });
  ASSERT_TRUE(file_system_->WaitUntilHeld(absl::Seconds(30)));
  Internal().WaitUntilWriterIdle();
  const int64_t commits_before = Internal().commits();
  journal_->WriteMessagesNowOrLater(
      {Single("a", 1, serialization::Payload::Of(std::string("a-1")))},
      [probe](absl::Status batch, std::vector<absl::Status> per_write) {
        probe->Ran(1, batch.ok() && per_write[0].ok());
      });
  EXPECT_EQ(probe->ran(), 0u);  // returned without waiting for the save
  file_system_->Release();
  ASSERT_TRUE(probe->WaitFor(2)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(probe->on_caller(), 0);
  EXPECT_EQ(Internal().commits() - commits_before, 1);
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1"));
}

// What the read-after-write tests below record from their callbacks: the
// probe's lock orders these writes before the test thread's reads.
struct ReadResults {
  std::atomic<int64_t> highest{-1};
  std::vector<PersistentRepr> replayed;  // by the replay's one thread
};

// Submits a highest-sequence-number read (tag `tag`) and a replay (tag
// `tag + 1`) of `pid`, recording into `results`.
void SubmitReads(Journal& journal, const std::string& pid, int tag,
                 const std::shared_ptr<CallbackProbe>& probe,
                 const std::shared_ptr<ReadResults>& results) {
  journal.AsyncReadHighestSequenceNr(
      pid, 0, [probe, results, tag](absl::StatusOr<int64_t> highest) {
        results->highest = highest.ok() ? *highest : -2;
        probe->Ran(tag, highest.ok());
      });
  journal.AsyncReplayMessages(
      pid, 1, kMax, kMax,
      [results](const PersistentRepr& event) {
        results->replayed.push_back(event);
      },
      [probe, tag](absl::Status status) { probe->Ran(tag + 1, status.ok()); });
}

// journal.h's read-after-write rule. A read of a stream submitted while a
// write of it is being committed waits for the commit and sees the write:
// a persistent actor restarted during its write must not read the highest
// sequence number from before the write, or it numbers its next event the
// same and overwrites it. Every stream of the call is held; other streams
// are read meanwhile.
TEST_F(RocksDbJournalTest, AReadOfAStreamWaitsForItsWriteInFlight) {
  // One reader thread runs the reads in the order they start: a read of
  // "p" that was not held would complete before the read of "q" after it.
  options_.reader_threads = 1;
  UseFaultInjection();
  ASSERT_NO_FATAL_FAILURE(Open());
  Write("q", 1, 2);

  auto probe = std::make_shared<CallbackProbe>();
  auto p = std::make_shared<ReadResults>();
  auto r = std::make_shared<ReadResults>();
  file_system_->HoldNextWalAppend();
  std::vector<AtomicWrite> writes;
  writes.push_back(
      Single("p", 1, serialization::Payload::Of(std::string("p-1"))));
  writes.push_back(
      Single("r", 1, serialization::Payload::Of(std::string("r-1"))));
  journal_->AsyncWriteMessages(
      std::move(writes),
      [probe](absl::Status batch, std::vector<absl::Status> per_write) {
        probe->Ran(0, batch.ok() && per_write[0].ok() && per_write[1].ok());
      });
  ASSERT_TRUE(file_system_->WaitUntilHeld(absl::Seconds(30)));
  SubmitReads(*journal_, "p", 1, probe, p);
  SubmitReads(*journal_, "r", 3, probe, r);

  // No barrier across streams: "q" is read while the write is held.
  EXPECT_EQ(Highest("q"), 2);
  EXPECT_THAT(ReplayAll("q"), ElementsAre("q-1", "q-2"));
  EXPECT_EQ(probe->ran(), 0u) << "a read ran before the write it follows";

  file_system_->Release();
  ASSERT_TRUE(probe->WaitFor(5)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(p->highest, 1);
  EXPECT_THAT(Texts(p->replayed), ElementsAre("p-1"));
  EXPECT_EQ(r->highest, 1);
  EXPECT_THAT(Texts(r->replayed), ElementsAre("r-1"));
}

// A recovery's start in one visit is held back like any read of its
// stream: started while a write of it is held, it answers only after the
// write, and its page and highest number include it.
TEST_F(RocksDbJournalTest, ARecoveryStartWaitsForAWriteOfItsStreamInFlight) {
  options_.reader_threads = 1;
  UseFaultInjection();
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Write("p", 1, 2));
  ASSERT_OK(SaveSnapshot(*snapshots_, {"p", 1, 100},
                         serialization::Payload::Of(std::string("s-1"))));
  Write("q", 1, 2);

  auto probe = std::make_shared<CallbackProbe>();
  file_system_->HoldNextWalAppend();
  journal_->AsyncWriteMessages(
      {Single("p", 3, serialization::Payload::Of(std::string("p-3")))},
      [probe](absl::Status batch, std::vector<absl::Status> per_write) {
        probe->Ran(0, batch.ok() && per_write[0].ok());
      });
  ASSERT_TRUE(file_system_->WaitUntilHeld(absl::Seconds(30)));
  RecoveryStartRequest request;
  request.persistence_id = "p";
  request.snapshots = snapshots_.get();
  request.page_max = 10;
  auto events = std::make_shared<std::vector<PersistentRepr>>();
  auto start = std::make_shared<std::optional<RecoveryStart>>();
  journal_->AsyncStartRecovery(
      request,
      [events](const PersistentRepr& event) { events->push_back(event); },
      [probe, start](RecoveryStart answer) {
        *start = std::move(answer);
        probe->Ran(1, true);
      });
  // The one reader thread serves a read of another stream meanwhile.
  EXPECT_EQ(Highest("q"), 2);
  EXPECT_EQ(probe->ran(), 0u) << "the recovery read past the held write";

  file_system_->Release();
  ASSERT_TRUE(probe->WaitFor(2)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  ASSERT_TRUE(start->has_value());
  const RecoveryStart& answer = **start;
  ASSERT_OK(answer.snapshot);
  ASSERT_TRUE(answer.snapshot->snapshot.has_value());
  EXPECT_EQ(answer.snapshot->snapshot->metadata.sequence_nr, 1);
  ASSERT_OK(answer.highest);
  EXPECT_EQ(*answer.highest, 3);
  ASSERT_TRUE(answer.replay.has_value()) << "not served in one visit";
  EXPECT_OK(*answer.replay);
  EXPECT_THAT(Texts(*events), ElementsAre("p-2", "p-3"));
}

// A delete holds the reads of its stream the same way: a replay submitted
// after it does not deliver the events it deletes.
TEST_F(RocksDbJournalTest, AReadOfAStreamWaitsForItsDeleteInFlight) {
  options_.reader_threads = 1;  // as above
  UseFaultInjection();
  ASSERT_NO_FATAL_FAILURE(Open());
  Write("p", 1, 3);

  auto probe = std::make_shared<CallbackProbe>();
  auto p = std::make_shared<ReadResults>();
  file_system_->HoldNextWalAppend();
  journal_->AsyncDeleteMessagesTo(
      "p", 2, std::nullopt,
      [probe](absl::Status status) { probe->Ran(0, status.ok()); });
  ASSERT_TRUE(file_system_->WaitUntilHeld(absl::Seconds(30)));
  SubmitReads(*journal_, "p", 1, probe, p);

  EXPECT_EQ(Highest("q"), 0);
  EXPECT_EQ(probe->ran(), 0u) << "a read ran before the delete it follows";

  file_system_->Release();
  ASSERT_TRUE(probe->WaitFor(3)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(p->highest, 3);
  EXPECT_THAT(Texts(p->replayed), ElementsAre("p-3"));
}

// A write that fails releases the reads it held, which then see what the
// store holds: not the failed write.
TEST_F(RocksDbJournalTest, AFailedWriteReleasesTheReadsItHeld) {
  options_.reader_threads = 1;  // as above
  UseFaultInjection();
  ASSERT_NO_FATAL_FAILURE(Open());
  Write("p", 1, 1);

  auto probe = std::make_shared<CallbackProbe>();
  auto p = std::make_shared<ReadResults>();
  file_system_->HoldNextWalAppend();
  file_system_->SetFailWalWrites(true);
  journal_->AsyncWriteMessages(
      {Single("p", 2, serialization::Payload::Of(std::string("p-2-lost")))},
      [probe](absl::Status batch, std::vector<absl::Status>) {
        probe->Ran(0, !batch.ok());
      });
  ASSERT_TRUE(file_system_->WaitUntilHeld(absl::Seconds(30)));
  SubmitReads(*journal_, "p", 1, probe, p);
  EXPECT_EQ(Highest("q"), 0);
  EXPECT_EQ(probe->ran(), 0u) << "a read ran before the write it follows";

  file_system_->Release();
  ASSERT_TRUE(probe->WaitFor(3)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(p->highest, 1);
  EXPECT_THAT(Texts(p->replayed), ElementsAre("p-1"));
  file_system_->SetFailWalWrites(false);
}

// Writers and readers at once: every replay sees a gap-free prefix of each
// stream, and in the end every event is there.
TEST_F(RocksDbJournalTest, ReplaysGapFreePrefixesWhileManyThreadsWrite) {
  options_.reader_threads = 3;
  ASSERT_NO_FATAL_FAILURE(Open());
  constexpr int kWriters = 4;
  constexpr int64_t kEvents = 300;
  std::atomic<bool> writing{true};
  std::atomic<int> gaps{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      const std::string pid = absl::StrCat("w-", t);
      for (int64_t n = 1; n <= kEvents; n += 3) {
        // Three events per AtomicWrite, each call waited for.
        AtomicWrite write;
        for (int64_t k = n; k < n + 3; ++k) {
          write.events.push_back(testing::Event(
              pid, k, serialization::Payload::Of(absl::StrCat(pid, "-", k))));
        }
        WriteOutcome outcome = WriteMessages(*journal_, {std::move(write)});
        if (!outcome.batch.ok() || !outcome.per_write[0].ok()) ++failures;
      }
    });
  }
  std::thread reader([&] {
    while (writing.load()) {
      for (int t = 0; t < kWriters; ++t) {
        testing::ReplayOutcome replay =
            ReplayMessages(*journal_, absl::StrCat("w-", t), 1, kMax, kMax);
        if (!replay.status.ok()) ++failures;
        // AtomicWrites are all or nothing: a multiple of 3 events.
        if (replay.events.size() % 3 != 0) ++gaps;
        for (size_t i = 0; i < replay.events.size(); ++i) {
          if (replay.events[i].sequence_nr != static_cast<int64_t>(i) + 1) {
            ++gaps;
          }
        }
      }
    }
  });
  for (std::thread& thread : threads) thread.join();
  writing = false;
  reader.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(gaps.load(), 0);
  for (int t = 0; t < kWriters; ++t) {
    const std::string pid = absl::StrCat("w-", t);
    EXPECT_EQ(ReplayAll(pid).size(), static_cast<size_t>(kEvents));
    EXPECT_EQ(Highest(pid), kEvents);
  }
}

// Reads that come one after another from many threads, each as the last
// is answered (a recovery storm's pattern), are all served: none is left
// waiting for a drain that nobody posted (stream_read_queue.h; a lost one
// fails its call at the deadline).
TEST_F(RocksDbJournalTest,
       ReadsThatFollowEachOtherFromManyThreadsAreAllServed) {
  options_.reader_threads = 2;
  ASSERT_NO_FATAL_FAILURE(Open());
  constexpr int kStreams = 6;
  for (int s = 0; s < kStreams; ++s) {
    const std::string pid = absl::StrCat("f-", s);
    AtomicWrite write;
    for (int64_t n = 1; n <= s + 1; ++n) {
      write.events.push_back(testing::Event(
          pid, n, serialization::Payload::Of(absl::StrCat(pid, "-", n))));
    }
    ASSERT_OK(WriteMessages(*journal_, {std::move(write)}).batch);
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int s = 0; s < kStreams; ++s) {
    threads.emplace_back([&, s] {
      const std::string pid = absl::StrCat("f-", s);
      const int64_t events = s + 1;
      for (int round = 0; round < 150; ++round) {
        RecoveryStartRequest request;
        request.persistence_id = pid;
        request.page_max = 100;
        testing::RecoveryStartOutcome start =
            testing::StartRecovery(*journal_, std::move(request));
        if (!start.start.highest.ok() || *start.start.highest != events ||
            static_cast<int64_t>(start.events.size()) != events) {
          ++wrong;
        }
        testing::ReplayPageOutcome page =
            testing::ReplayPageOf(*journal_, pid, 1, kMax, kMax);
        if (!page.status.ok() ||
            static_cast<int64_t>(page.events.size()) != events) {
          ++wrong;
        }
        absl::StatusOr<int64_t> highest =
            testing::ReadHighestSequenceNr(*journal_, pid);
        if (!highest.ok() || *highest != events) ++wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

// Reads submitted together are served together (stream_read_queue.h: one
// iterator for the reads of a visit, replays continued across visits);
// each still gets exactly its own stream's events and highest number,
// whatever streams lie next to it in key order, and replays read into
// pages among them too.
TEST_F(RocksDbJournalTest, ReadsSubmittedTogetherEachGetTheirOwnStream) {
  ASSERT_NO_FATAL_FAILURE(Open());
  // Neighbours in key order (the id's length first, then its bytes); longer
  // than a visit's chunk, longer than a whole visit, empty, deleted.
  struct Stream {
    std::string pid;
    int64_t length;
  };
  const std::vector<Stream> streams = {
      {"s", 1},   {"t", 10},     {"s1", 1500}, {"s2", 0},
      {"s3", 20}, {"s10", 5000}, {"s11", 3},   {"gone", 20},
  };
  for (const Stream& stream : streams) {
    if (stream.length > 0) Write(stream.pid, 1, stream.length);
  }
  ASSERT_OK(DeleteMessagesTo(*journal_, "gone", kMax));
  // What each replay asks for: the whole stream, or a bounded part of s3.
  struct Request {
    std::string pid;
    int64_t from, to, max;
    std::vector<int64_t> expected;
    int64_t highest;
  };
  std::vector<Request> requests;
  for (const Stream& stream : streams) {
    Request r{stream.pid, 1, kMax, kMax, {}, stream.length};
    if (stream.pid != "gone") {
      for (int64_t n = 1; n <= stream.length; ++n) r.expected.push_back(n);
    }
    requests.push_back(std::move(r));
  }
  requests.push_back({"s3", 5, 12, 100, {5, 6, 7, 8, 9, 10, 11, 12}, 20});
  requests.push_back({"s3", 5, kMax, 3, {5, 6, 7}, 20});
  requests.push_back({"s10", 4000, 4100, kMax, {}, 5000});
  for (int64_t n = 4000; n <= 4100; ++n) requests.back().expected.push_back(n);

  struct Outcome {
    std::vector<int64_t> replayed;
    absl::Status replay_status;
    std::vector<int64_t> paged;  // the same asked as a page
    absl::Status page_status;
    absl::StatusOr<int64_t> highest;
  };
  std::vector<Outcome> outcomes(requests.size());
  CallbackProbe probe;
  for (size_t i = 0; i < requests.size(); ++i) {
    const Request& r = requests[i];
    Outcome* outcome = &outcomes[i];
    journal_->AsyncReplayMessages(
        r.pid, r.from, r.to, r.max,
        [outcome](const PersistentRepr& event) {
          outcome->replayed.push_back(event.sequence_nr);
        },
        [outcome, &probe, i](absl::Status status) {
          outcome->replay_status = std::move(status);
          probe.Ran(static_cast<int>(i), outcome->replay_status.ok());
        });
    journal_->AsyncReplayPage(
        r.pid, r.from, r.to, r.max,
        [outcome, &probe, i, pid = r.pid](absl::Status status,
                                          ReplayPage page) {
          outcome->page_status = std::move(status);
          if (outcome->page_status.ok()) {
            outcome->page_status = page.ForEach(
                pid, [outcome](const serialization::Payload&, int64_t n) {
                  outcome->paged.push_back(n);
                  return true;
                });
          }
          probe.Ran(static_cast<int>(i), outcome->page_status.ok());
        });
    journal_->AsyncReadHighestSequenceNr(
        r.pid, 0, [outcome, &probe, i](absl::StatusOr<int64_t> highest) {
          outcome->highest = std::move(highest);
          probe.Ran(static_cast<int>(i), outcome->highest.ok());
        });
  }
  ASSERT_TRUE(probe.WaitFor(3 * requests.size()));
  for (size_t i = 0; i < requests.size(); ++i) {
    SCOPED_TRACE(absl::StrCat(requests[i].pid, " from ", requests[i].from));
    EXPECT_OK(outcomes[i].replay_status);
    EXPECT_EQ(outcomes[i].replayed, requests[i].expected);
    EXPECT_OK(outcomes[i].page_status);
    EXPECT_EQ(outcomes[i].paged, requests[i].expected);
    ASSERT_OK(outcomes[i].highest);
    EXPECT_EQ(*outcomes[i].highest, requests[i].highest);
  }
}

// A long replay keeps one reader thread, not the queue: reads submitted
// behind it are served by the other thread while it is still replaying
// (its on_event waits for the last of them, and would time out if they
// waited behind it). Every read completes exactly once with its own
// events; a replay with a max of 0 or less delivers none.
TEST_F(RocksDbJournalTest, ReadsBehindALongReplayAreServedMeanwhile) {
  options_.reader_threads = 2;
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Write("long", 1, 3000));
  constexpr int kSmall = 300;
  for (int i = 0; i < kSmall; ++i) {
    ASSERT_NO_FATAL_FAILURE(Write(absl::StrCat("s-", i), 1, 1 + i % 3));
  }
  base::Mutex mu;
  base::CondVar changed;
  bool late_done = false;
  bool waited_out = false;
  std::vector<int> done_count(2 * kSmall + 3, 0);
  std::vector<int64_t> replayed(kSmall, 0);
  int64_t long_events = 0;
  auto ran = [&](size_t tag) {
    base::MutexLock lock(&mu);
    ++done_count[tag];
    changed.SignalAll();
  };
  journal_->AsyncReplayMessages(
      "long", 1, kMax, kMax,
      [&](const PersistentRepr& event) {
        ++long_events;
        if (event.sequence_nr != 1500) return;
        const absl::Time deadline = absl::Now() + absl::Seconds(30);
        base::MutexLock lock(&mu);
        while (!late_done) {
          if (changed.WaitWithDeadline(&mu, deadline)) {
            waited_out = !late_done;
            break;
          }
        }
      },
      [&](absl::Status status) {
        EXPECT_OK(status);
        ran(2 * kSmall);
      });
  for (int i = 0; i < kSmall; ++i) {
    journal_->AsyncReplayMessages(
        absl::StrCat("s-", i), 1, kMax, kMax,
        [&replayed, i](const PersistentRepr& event) {
          replayed[i] = event.sequence_nr;  // the last one stays
        },
        [&, i](absl::Status status) {
          EXPECT_OK(status);
          ran(i);
        });
    journal_->AsyncReadHighestSequenceNr(
        absl::StrCat("s-", i), 0, [&, i](absl::StatusOr<int64_t> highest) {
          EXPECT_OK(highest);
          EXPECT_EQ(highest.value_or(-1), 1 + i % 3);
          ran(kSmall + i);
        });
  }
  journal_->AsyncReplayMessages(
      "long", 1, kMax, -1,
      [](const PersistentRepr& event) {
        ADD_FAILURE() << "max -1 replayed " << event.sequence_nr;
      },
      [&](absl::Status status) {
        EXPECT_OK(status);
        ran(2 * kSmall + 1);
      });
  journal_->AsyncReadHighestSequenceNr("zzz-late", 0,
                                       [&](absl::StatusOr<int64_t> highest) {
                                         EXPECT_EQ(highest.value_or(-1), 0);
                                         base::MutexLock lock(&mu);
                                         late_done = true;
                                         ++done_count[2 * kSmall + 2];
                                         changed.SignalAll();
                                       });
  {
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    base::MutexLock lock(&mu);
    auto all_done = [&] {
      for (int count : done_count) {
        if (count == 0) return false;
      }
      return true;
    };
    while (!all_done()) {
      if (changed.WaitWithDeadline(&mu, deadline)) break;
    }
  }
  Close();  // completes whatever is left: a second callback would show now
  EXPECT_FALSE(waited_out) << "the late read waited behind the long replay";
  EXPECT_EQ(long_events, 3000);
  for (size_t tag = 0; tag < done_count.size(); ++tag) {
    EXPECT_EQ(done_count[tag], 1) << "callback " << tag;
  }
  for (int i = 0; i < kSmall; ++i) EXPECT_EQ(replayed[i], 1 + i % 3) << i;
}

// With its own snapshot store the journal reads a recovery's snapshot,
// highest and first page in one visit, so the page comes along; with
// another store (here a wrapper, which names no colocation key) the store
// loads the snapshot and the caller replays (journal.h's default).
TEST_F(RocksDbJournalTest, StartsARecoveryInOneVisitWithItsOwnSnapshotStore) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(Write("p", 1, 5));
  ASSERT_OK(SaveSnapshot(*snapshots_, {"p", 2, 100},
                         serialization::Payload::Of(std::string("s-2"))));
  RecoveryStartRequest request;
  request.persistence_id = "p";
  request.snapshots = snapshots_.get();
  request.page_max = 10;
  testing::RecoveryStartOutcome own =
      testing::StartRecovery(*journal_, request);
  ASSERT_OK(own.start.snapshot);
  ASSERT_TRUE(own.start.snapshot->snapshot.has_value());
  EXPECT_EQ(own.start.snapshot->snapshot->metadata.sequence_nr, 2);
  ASSERT_OK(own.start.highest);
  EXPECT_EQ(*own.start.highest, 5);
  ASSERT_TRUE(own.start.replay.has_value());
  EXPECT_OK(*own.start.replay);
  EXPECT_EQ(SequenceNrs(own.events), (std::vector<int64_t>{3, 4, 5}));

  SnapshotStoreWrapper other(std::move(snapshots_));
  request.snapshots = &other;
  testing::RecoveryStartOutcome through =
      testing::StartRecovery(*journal_, request);
  ASSERT_OK(through.start.snapshot);
  ASSERT_TRUE(through.start.snapshot->snapshot.has_value());
  EXPECT_EQ(through.start.snapshot->snapshot->metadata.sequence_nr, 2);
  ASSERT_OK(through.start.highest);
  EXPECT_EQ(*through.start.highest, 5);
  EXPECT_FALSE(through.start.replay.has_value());
  EXPECT_THAT(through.events, IsEmpty());
}

// A disk that fails WAL writes fails the commit: the batch status is not
// OK, for every write of it. Once the disk works again, writes succeed, and
// exactly the acknowledged events are stored, also after reopening.
TEST_F(RocksDbJournalTest, FailsWritesWhileTheWalFailsAndRecoversAfter) {
  UseFaultInjection();
  ASSERT_NO_FATAL_FAILURE(Open());
  Write("a", 1, 2);

  file_system_->SetFailWalWrites(true);
  std::vector<AtomicWrite> writes;
  writes.push_back(
      Single("a", 3, serialization::Payload::Of(std::string("a-3-lost"))));
  writes.push_back(
      Single("b", 1, serialization::Payload::Of(std::string("b-1-lost"))));
  WriteOutcome failed = WriteMessages(*journal_, std::move(writes));
  EXPECT_EQ(failed.batch.code(), absl::StatusCode::kUnavailable)
      << failed.batch;
  ASSERT_EQ(failed.per_write.size(), 2u);
  EXPECT_EQ(failed.per_write[0], failed.batch);
  EXPECT_EQ(failed.per_write[1], failed.batch);
  // Later writes, deletes and snapshot saves fail as well while it lasts.
  failed = WriteMessages(
      *journal_,
      {Single("a", 3,
              serialization::Payload::Of(std::string("a-3-lost-again")))});
  EXPECT_FALSE(failed.batch.ok());
  EXPECT_FALSE(DeleteMessagesTo(*journal_, "a", 1).ok());
  EXPECT_FALSE(
      SaveSnapshot(*snapshots_, {"a", 2, 1},
                   serialization::Payload::Of(std::string("snapshot-lost")))
          .ok());
  // Reads still work.
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2"));

  file_system_->SetFailWalWrites(false);
  Write("a", 3, 4);
  Write("b", 1, 1);
  ASSERT_OK(
      SaveSnapshot(*snapshots_, {"a", 4, 1},
                   serialization::Payload::Of(std::string("snapshot-4"))));
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2", "a-3", "a-4"));
  EXPECT_THAT(ReplayAll("b"), ElementsAre("b-1"));
  EXPECT_EQ(Highest("a"), 4);

  Close();
  ASSERT_NO_FATAL_FAILURE(Open());
  EXPECT_THAT(ReplayAll("a"), ElementsAre("a-1", "a-2", "a-3", "a-4"));
  EXPECT_THAT(ReplayAll("b"), ElementsAre("b-1"));
  absl::StatusOr<LoadSnapshotResult> snapshot =
      LoadSnapshot(*snapshots_, "a", SnapshotSelectionCriteria::Latest(), kMax);
  ASSERT_OK(snapshot);
  ASSERT_TRUE(snapshot->snapshot.has_value());
  EXPECT_EQ(*snapshot->snapshot->snapshot.As<std::string>(), "snapshot-4");
}

}  // namespace
}  // namespace cairn::persistence
