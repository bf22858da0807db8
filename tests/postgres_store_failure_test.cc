// The store-failure story on PostgreSQL, end to end and against a real
// server (skipped without one): persistent actors on the journal and
// snapshot store selected by config; the server ends every connection (a
// restart, a broken network); a write in flight fails, the actor stops on
// it, its BackoffSupervisor brings it back, and it recovers every
// acknowledged event and goes on. And a second actor system on the same
// schema (another process) recovers what the first one stored.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/clock.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "backoff/backoff_options.h"
#include "backoff/backoff_supervisor.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/persistent_actor.h"
#include "persistence/postgresql/testing/test_database.h"

namespace cairn {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using backoff::Backoff;
using backoff::BackoffSupervisor;
using persistence::testing::TestDatabase;

struct Recovered {
  int64_t total;
  int64_t last_sequence_nr;
  bool from_snapshot;
};
struct PersistFailed {
  absl::StatusCode code;
};
struct TakeSnapshot {};
struct SnapshotSaved {};

// Sums the amounts it persisted; acknowledges each with its sequence
// number; snapshots its total on request.
class Ledger final : public persistence::PersistentActor {
 public:
  Ledger(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<persistence::SnapshotOffer>(
        [this](const persistence::SnapshotOffer& offer) {
          total_ = std::stoll(*offer.snapshot.As<std::string>());
          from_snapshot_ = true;
        });
    Recover<std::string>(
        [this](const std::string& e) { total_ += std::stoll(e); });
    Recover<persistence::RecoveryCompleted>(
        [this](const persistence::RecoveryCompleted&) {
          probe_.Tell(Recovered{total_, LastSequenceNr(), from_snapshot_});
        });
    Command<int64_t>([this](int64_t amount) {
      Persist(std::to_string(amount), [this](const std::string& e) {
        total_ += std::stoll(e);
        Sender().Tell(LastSequenceNr());
      });
    });
    Command<TakeSnapshot>(
        [this](const TakeSnapshot&) { SaveSnapshot(std::to_string(total_)); });
    Command<persistence::SaveSnapshotSuccess>(
        [this](const persistence::SaveSnapshotSuccess&) {
          probe_.Tell(SnapshotSaved{});
        });
  }
  std::string PersistenceId() const override { return id_; }

 protected:
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload&, int64_t) override {
    probe_.Tell(PersistFailed{cause.code()});
  }

 private:
  std::string id_;
  ActorRef probe_;
  int64_t total_ = 0;
  bool from_snapshot_ = false;
};

class PostgresStoreFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
  }

  // An actor system whose persistence is the PostgreSQL plugins on the
  // test's schema.
  std::unique_ptr<TestKit> NewSystem(actor::Clock* clock = nullptr) {
    return std::make_unique<TestKit>(absl::StrCat(R"(
          akka.persistence.journal.plugin = "akka.persistence.journal.postgresql"
          akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.postgresql"
          akka.persistence.journal.postgresql {
            connection-string = ")",
                                                  db_->url(), R"("
            schema = ")",
                                                  db_->schema(), R"("
          }
        )"),
                                     clock);
  }

  // Ends every connection of the plugins to the schema, as a server
  // restart would, and waits until they are gone.
  void TerminateConnections() {
    const std::string ours =
        absl::StrCat("application_name = 'cairn ", db_->schema(), "'");
    ASSERT_OK(
        db_->Execute(absl::StrCat("SELECT pg_terminate_backend(pid) "
                                  "FROM pg_stat_activity WHERE ",
                                  ours)));
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (true) {
      absl::StatusOr<std::vector<std::vector<std::string>>> left = db_->Query(
          absl::StrCat("SELECT count(*) FROM pg_stat_activity WHERE ", ours));
      ASSERT_OK(left);
      if ((*left)[0][0] == "0") return;
      ASSERT_LT(absl::Now(), deadline) << "connections still there";
      absl::SleepFor(absl::Milliseconds(10));
    }
  }

  std::optional<TestDatabase> db_;  // first: dropped after the systems
};

TEST_F(PostgresStoreFailureTest, AnActorComesBackWithEveryAcknowledgedEvent) {
  actor::ManualClock clock;
  std::unique_ptr<TestKit> kit = NewSystem(&clock);
  ActorRef supervisor = kit->Sys().ActorOf(BackoffSupervisor::Props(
      Backoff::OnStop(Props::Create<Ledger>("ledger", kit->TestActor()),
                      "ledger", absl::Seconds(1), absl::Seconds(8), 0.0)));
  EXPECT_EQ(kit->ExpectMsg<Recovered>().total, 0);
  for (int64_t amount : {10, 20, 30}) {
    supervisor.Tell(amount);
    kit->ExpectMsg<int64_t>();
  }

  TerminateConnections();
  if (HasFatalFailure()) return;
  supervisor.Tell(int64_t{40});
  EXPECT_EQ(kit->ExpectMsg<PersistFailed>().code,
            absl::StatusCode::kUnavailable);
  kit->AwaitCondition(
      [&] {
        return actor::Ask<BackoffSupervisor::CurrentChild>(
                   supervisor, BackoffSupervisor::GetCurrentChild{},
                   absl::Seconds(3))
            .get()
            .ref.IsNobody();
      },
      absl::Seconds(10), "the ledger stopped");

  // Back after the backoff, on a new connection: the acknowledged events,
  // and nothing of the failed one.
  clock.Advance(absl::Seconds(1));
  Recovered recovered = kit->ExpectMsg<Recovered>();
  EXPECT_EQ(recovered.total, 60);
  EXPECT_EQ(recovered.last_sequence_nr, 3);
  supervisor.Tell(int64_t{5});
  EXPECT_EQ(kit->ExpectMsg<int64_t>(), 4);
}

TEST_F(PostgresStoreFailureTest, AnotherSystemRecoversWhatOneStored) {
  {
    std::unique_ptr<TestKit> first = NewSystem();
    ActorRef ledger = first->Sys().ActorOf(
        Props::Create<Ledger>("shared", first->TestActor()));
    EXPECT_EQ(first->ExpectMsg<Recovered>().total, 0);
    for (int64_t amount : {1, 2, 3}) {
      ledger.Tell(amount);
      first->ExpectMsg<int64_t>();
    }
    ledger.Tell(TakeSnapshot{});
    first->ExpectMsg<SnapshotSaved>();
    ledger.Tell(int64_t{4});
    first->ExpectMsg<int64_t>();
  }
  std::unique_ptr<TestKit> second = NewSystem();
  ActorRef ledger = second->Sys().ActorOf(
      Props::Create<Ledger>("shared", second->TestActor()));
  Recovered recovered = second->ExpectMsg<Recovered>();
  EXPECT_TRUE(recovered.from_snapshot);
  EXPECT_EQ(recovered.total, 10);
  EXPECT_EQ(recovered.last_sequence_nr, 4);
}

}  // namespace
}  // namespace cairn
