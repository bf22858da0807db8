// The store-failure story, end to end: a persistent actor under a
// Backoff::OnStop supervisor; the journal fails; the actor stops on the
// failure; the supervisor brings it back at growing intervals; the store
// comes back; the actor recovers every acknowledged event and goes on. Time
// is a ManualClock, so each restart is seen at the moment it is due.

#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/clock.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "backoff/backoff_options.h"
#include "backoff/backoff_supervisor.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/fault_injecting_journal.h"

namespace cairn {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using backoff::Backoff;
using backoff::BackoffSupervisor;
using persistence::FaultInjectingJournal;

struct Recovered {
  std::string id;
  int64_t total;
};
struct PersistFailed {
  std::string id;
};
struct RecoveryFailed {
  std::string id;
};

// Sums the amounts it persisted; acknowledges each with its sequence
// number.
class Ledger final : public persistence::PersistentActor {
 public:
  Ledger(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<std::string>(
        [this](const std::string& e) { total_ += std::stoll(e); });
    Recover<persistence::RecoveryCompleted>(
        [this](const persistence::RecoveryCompleted&) {
          probe_.Tell(Recovered{id_, total_});
        });
    Command<int64_t>([this](int64_t amount) {
      Persist(std::to_string(amount), [this](const std::string& e) {
        total_ += std::stoll(e);
        Sender().Tell(LastSequenceNr());
      });
    });
  }
  std::string PersistenceId() const override { return id_; }
  std::string JournalPluginId() const override { return "faulty"; }

 protected:
  void OnPersistFailure(const absl::Status&, const serialization::Payload&,
                        int64_t) override {
    probe_.Tell(PersistFailed{id_});
  }
  void OnRecoveryFailure(const absl::Status&,
                         const serialization::Payload*) override {
    probe_.Tell(RecoveryFailed{id_});
  }

 private:
  std::string id_;
  ActorRef probe_;
  int64_t total_ = 0;
};

class StoreFailureTest : public ::testing::Test {
 protected:
  StoreFailureTest()
      : kit_(R"(
          akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
          akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
        )",
             &clock_) {
    persistence::PersistenceSetup setup;
    setup.register_plugins = [this](persistence::PluginRegistry& plugins) {
      return plugins.RegisterJournal(
          "faulty",
          [this](const persistence::PluginContext& context)
              -> absl::StatusOr<std::unique_ptr<persistence::Journal>> {
            auto journal = std::make_unique<FaultInjectingJournal>(
                persistence::NewInMemoryJournal(context.serialization));
            journal_ = journal.get();
            return std::unique_ptr<persistence::Journal>(std::move(journal));
          });
    };
    EXPECT_OK(
        persistence::Persistence::Get(kit_.Sys()).Setup(std::move(setup)));
  }

  ActorRef Supervise(const std::string& id, double random_factor,
                     std::function<double()> random = nullptr) {
    auto options =
        Backoff::OnStop(Props::Create<Ledger>(id, kit_.TestActor()), id,
                        absl::Seconds(1), absl::Seconds(8), random_factor);
    if (random) options = options.WithRandomSource(std::move(random));
    return kit_.Sys().ActorOf(BackoffSupervisor::Props(options));
  }

  bool ChildRunning(const ActorRef& supervisor) {
    return !actor::Ask<BackoffSupervisor::CurrentChild>(
                supervisor, BackoffSupervisor::GetCurrentChild{},
                absl::Seconds(3))
                .get()
                .ref.IsNobody();
  }

  // The failure callback runs before the actor stops; the backoff starts
  // when the supervisor has seen it stop.
  void AwaitStopped(const ActorRef& supervisor) {
    kit_.AwaitCondition([&] { return !ChildRunning(supervisor); },
                        absl::Seconds(3), "child stopped");
  }

  actor::ManualClock clock_;
  TestKit kit_;
  FaultInjectingJournal* journal_ = nullptr;
};

TEST_F(StoreFailureTest, TheActorComesBackWithEveryAcknowledgedEvent) {
  ActorRef supervisor = Supervise("ledger", 0.0);
  EXPECT_EQ(kit_.ExpectMsg<Recovered>().total, 0);
  for (int64_t amount : {10, 20, 30}) {
    supervisor.Tell(amount);
    kit_.ExpectMsg<int64_t>();
  }

  // The store goes down: the write fails and the actor stops.
  journal_->SetFailWrites(true);
  journal_->SetFailReplays(true);
  supervisor.Tell(int64_t{40});
  kit_.ExpectMsg<PersistFailed>();
  AwaitStopped(supervisor);

  // Restarts at 1 s, 2 s and 4 s after each stop; each recovery fails while
  // the store is down. Just before each delay nothing runs; at it, a new
  // incarnation tries.
  for (absl::Duration delay :
       {absl::Seconds(1), absl::Seconds(2), absl::Seconds(4)}) {
    clock_.Advance(delay - absl::Milliseconds(100));
    EXPECT_FALSE(ChildRunning(supervisor)) << "restarted before " << delay;
    clock_.Advance(absl::Milliseconds(100));
    kit_.ExpectMsg<RecoveryFailed>();
    AwaitStopped(supervisor);
  }

  // The store comes back: the next restart (8 s) recovers exactly the
  // acknowledged events, and the actor goes on after them.
  journal_->SetFailWrites(false);
  journal_->SetFailReplays(false);
  clock_.Advance(absl::Seconds(8));
  EXPECT_EQ(kit_.ExpectMsg<Recovered>().total, 60);
  supervisor.Tell(int64_t{5});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 4);
}

TEST_F(StoreFailureTest, ManyActorsFailingAtOnceRestartAtSpreadOutTimes) {
  constexpr int kActors = 12;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<ActorRef> supervisors;
  for (int i = 0; i < kActors; ++i) {
    double draw = uniform(random);
    supervisors.push_back(
        Supervise(absl::StrCat("ledger-", i), 0.5, [draw] { return draw; }));
    kit_.ExpectMsg<Recovered>();
  }
  journal_->SetFailWrites(true);
  for (const ActorRef& s : supervisors) s.Tell(int64_t{1});
  for (int i = 0; i < kActors; ++i) kit_.ExpectMsg<PersistFailed>();
  for (const ActorRef& s : supervisors) AwaitStopped(s);

  // Delays are 1 s * (1 + U[0,1) * 0.5): between 1 and 1.5 s. Step through
  // that window and note when each actor is back.
  std::vector<int> restarted_at_ms(kActors, -1);
  for (int ms = 50; ms <= 1500; ms += 50) {
    clock_.Advance(absl::Milliseconds(50));
    for (int i = 0; i < kActors; ++i) {
      if (restarted_at_ms[i] < 0 && ChildRunning(supervisors[i])) {
        restarted_at_ms[i] = ms;
      }
    }
  }
  std::set<int> distinct;
  for (int i = 0; i < kActors; ++i) {
    EXPECT_GE(restarted_at_ms[i], 1000) << "actor " << i;
    EXPECT_LE(restarted_at_ms[i], 1500) << "actor " << i;
    distinct.insert(restarted_at_ms[i]);
  }
  EXPECT_GE(distinct.size(), 5u) << "restarts were not spread out";
}

}  // namespace
}  // namespace cairn
