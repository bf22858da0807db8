// A full disk, end to end: a persistent actor on the RocksDB journal, under
// a Backoff::OnStop supervisor, persists until the disk (the
// fault-injecting file system's free space) runs out. The write fails
// (OnPersistFailure, with the reason) instead of aborting the process; the
// actor stops; its restarts fail while the disk stays full; once space is
// freed, the next restart recovers every acknowledged event, gap-free, and
// writes succeed again. Time is a ManualClock, so each restart happens when
// the test advances it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/clock.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "backoff/backoff_options.h"
#include "backoff/backoff_supervisor.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/persistent_actor.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/fault_injection_file_system.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "rocksdb/env.h"

namespace cairn {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using backoff::Backoff;
using backoff::BackoffSupervisor;
using ::testing::HasSubstr;

// Everything the ledger tells the test, in the order it happens.
struct Report {
  enum Kind { kRecovered, kRecoveryFailed, kPersisted, kPersistFailed };
  Kind kind;
  int64_t value = 0;  // kRecovered: the total; kPersisted: the sequence nr
  absl::Status cause;
};

// Sums the amounts it persisted.
class Ledger final : public persistence::PersistentActor {
 public:
  explicit Ledger(ActorRef probe) : probe_(std::move(probe)) {
    Recover<std::string>(
        [this](const std::string& e) { total_ += std::stoll(e); });
    Recover<persistence::RecoveryCompleted>(
        [this](const persistence::RecoveryCompleted&) {
          probe_.Tell(Report{Report::kRecovered, total_, absl::OkStatus()});
        });
    Command<int64_t>([this](int64_t amount) {
      Persist(std::to_string(amount), [this](const std::string& e) {
        total_ += std::stoll(e);
        probe_.Tell(
            Report{Report::kPersisted, LastSequenceNr(), absl::OkStatus()});
      });
    });
  }
  std::string PersistenceId() const override { return "ledger"; }
  std::string JournalPluginId() const override { return "disk"; }

 protected:
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload&, int64_t) override {
    probe_.Tell(Report{Report::kPersistFailed, 0, cause});
  }
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override {
    probe_.Tell(Report{Report::kRecoveryFailed, 0, cause});
  }

 private:
  ActorRef probe_;
  int64_t total_ = 0;
};

class DiskFullTest : public ::testing::Test {
 protected:
  DiskFullTest()
      : kit_(R"(
          akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
        )",
             &clock_) {
    absl::StatusOr<persistence::testing::TempDir> dir =
        persistence::testing::TempDir::Make("disk-full");
    EXPECT_OK(dir);
    dir_.emplace(*std::move(dir));
    persistence::PersistenceSetup setup;
    setup.register_plugins = [this](persistence::PluginRegistry& plugins) {
      return plugins.RegisterJournal(
          "disk",
          [this](const persistence::PluginContext& context)
              -> absl::StatusOr<std::unique_ptr<persistence::Journal>> {
            persistence::RocksDbOptions options;
            options.path = dir_->path() + "/store";
            options.env = env_.get();
            absl::StatusOr<persistence::RocksDbStore> store =
                persistence::RocksDbStore::Open(options);
            if (!store.ok()) return store.status();
            absl::StatusOr<std::unique_ptr<persistence::Journal>> journal =
                store->NewJournal(context.serialization);
            if (journal.ok()) journal_ = journal->get();
            return journal;
          });
    };
    EXPECT_OK(
        persistence::Persistence::Get(kit_.Sys()).Setup(std::move(setup)));
  }

  bool ChildRunning(const ActorRef& supervisor) {
    return !actor::Ask<BackoffSupervisor::CurrentChild>(
                supervisor, BackoffSupervisor::GetCurrentChild{},
                absl::Seconds(3))
                .get()
                .ref.IsNobody();
  }
  void AwaitStopped(const ActorRef& supervisor) {
    kit_.AwaitCondition([&] { return !ChildRunning(supervisor); },
                        absl::Seconds(10), "child stopped");
  }

  // Declared before kit_: the database, closed when the system is, uses
  // them until then.
  std::optional<persistence::testing::TempDir> dir_;
  std::shared_ptr<persistence::testing::FaultInjectionFileSystem> disk_ =
      std::make_shared<persistence::testing::FaultInjectionFileSystem>();
  std::unique_ptr<rocksdb::Env> env_ =
      persistence::testing::NewFaultInjectionEnv(disk_);
  actor::ManualClock clock_;
  TestKit kit_;
  persistence::Journal* journal_ = nullptr;  // owned by the extension
};

void ExpectDiskFull(const absl::Status& cause) {
  EXPECT_EQ(cause.code(), absl::StatusCode::kResourceExhausted) << cause;
  EXPECT_THAT(std::string(cause.message()),
              HasSubstr("No space left on device"));
}

TEST_F(DiskFullTest,
       TheActorComesBackWithEveryAcknowledgedEventOnceSpaceIsFreed) {
  ActorRef supervisor = kit_.Sys().ActorOf(BackoffSupervisor::Props(
      Backoff::OnStop(Props::Create<Ledger>(kit_.TestActor()), "ledger",
                      absl::Seconds(1), absl::Seconds(8), 0.0)));
  EXPECT_EQ(kit_.ExpectMsg<Report>().kind, Report::kRecovered);

  std::vector<int64_t> acknowledged;
  auto persisted = [&](int64_t amount) {
    supervisor.Tell(amount);
    Report report = kit_.ExpectMsg<Report>();
    if (report.kind == Report::kPersisted) {
      acknowledged.push_back(amount);
      EXPECT_EQ(report.value, static_cast<int64_t>(acknowledged.size()));
      return true;
    }
    EXPECT_EQ(report.kind, Report::kPersistFailed);
    ExpectDiskFull(report.cause);
    return false;
  };
  for (int64_t amount = 1; amount <= 5; ++amount) {
    ASSERT_TRUE(persisted(amount));
  }

  // The disk fills: a few more writes fit, then one is cut off midway.
  disk_->SetFreeSpace(1000);
  int64_t amount = 6;
  while (persisted(amount)) {
    ASSERT_LT(++amount, 200) << "the disk never filled";
  }
  ASSERT_GT(acknowledged.size(), 5u) << "no write fitted in the space left";
  EXPECT_EQ(disk_->FreeSpace(), 0u);
  AwaitStopped(supervisor);
  int64_t total = 0;
  for (int64_t a : acknowledged) total += a;

  // While the disk stays full, each restart recovers (reading needs no
  // space) and its first write fails; or, once the failed write has closed
  // the store and reopening it needs space, the recovery fails.
  clock_.Advance(absl::Seconds(1));
  Report report = kit_.ExpectMsg<Report>();
  ASSERT_EQ(report.kind, Report::kRecovered) << report.cause;
  EXPECT_EQ(report.value, total);
  supervisor.Tell(int64_t{1000});
  report = kit_.ExpectMsg<Report>();
  ASSERT_EQ(report.kind, Report::kPersistFailed);
  ExpectDiskFull(report.cause);
  AwaitStopped(supervisor);

  clock_.Advance(absl::Seconds(2));
  report = kit_.ExpectMsg<Report>();
  ASSERT_EQ(report.kind, Report::kRecoveryFailed);
  ExpectDiskFull(report.cause);
  AwaitStopped(supervisor);

  // Space is freed: the next restart recovers exactly the acknowledged
  // events, and the actor writes again after them.
  disk_->SetUnlimitedSpace();
  clock_.Advance(absl::Seconds(4));
  report = kit_.ExpectMsg<Report>();
  ASSERT_EQ(report.kind, Report::kRecovered) << report.cause;
  EXPECT_EQ(report.value, total);
  ASSERT_TRUE(persisted(7000));
  ASSERT_TRUE(persisted(8000));

  ASSERT_NE(journal_, nullptr);
  persistence::testing::ReplayOutcome stored =
      persistence::testing::ReplayMessages(*journal_, "ledger", 1,
                                           persistence::kMaxSequenceNr,
                                           persistence::kMaxSequenceNr);
  ASSERT_OK(stored.status);
  std::vector<std::string> expected;
  std::vector<int64_t> numbers;
  for (size_t i = 0; i < acknowledged.size(); ++i) {
    expected.push_back(std::to_string(acknowledged[i]));
    numbers.push_back(static_cast<int64_t>(i) + 1);
  }
  EXPECT_EQ(persistence::testing::Texts(stored.events), expected);
  EXPECT_EQ(persistence::testing::SequenceNrs(stored.events), numbers);
}

}  // namespace
}  // namespace cairn
