// Replay flow control (replay-batch-size): a recovery asks the journal for
// its events a batch at a time, at most two ahead of the one its handlers
// run, so a long stream never floods its mailbox.

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/plugin_registry.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;

struct ReplayRequest {
  int64_t from = 0;
  int64_t to = 0;
  int64_t max = 0;
  bool operator==(const ReplayRequest&) const = default;
};

// Records every replay asked of the journal it wraps, and the most that
// were ever in flight (asked for, `done` not yet called) at once. It can
// answer the replay from `from` only after the one from `after` (or fail
// it with `why`): a journal that reads two ranges on two threads may
// finish the later first.
class RecordingJournal final : public JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  // The callbacks the wrapped journal's destructor runs still use mu_.
  ~RecordingJournal() override { DestroyTarget(); }

  void AnswerAfter(int64_t from, int64_t after, absl::Status why) {
    base::MutexLock lock(&mu_);
    late_from_ = from;
    late_after_ = after;
    late_why_ = std::move(why);
  }

  std::vector<ReplayRequest> requests() const {
    base::MutexLock lock(&mu_);
    return requests_;
  }
  int most_in_flight() const {
    base::MutexLock lock(&mu_);
    return most_in_flight_;
  }

  void AsyncReplayMessages(std::string id, int64_t from, int64_t to,
                           int64_t max, ReplayCallback on_event,
                           DoneCallback done) override {
    {
      base::MutexLock lock(&mu_);
      requests_.push_back({from, to, max});
      most_in_flight_ = std::max(most_in_flight_, ++in_flight_);
    }
    bool late = false;
    absl::Status why;
    {
      base::MutexLock lock(&mu_);
      late = from == late_from_;
      why = late_why_;
    }
    if (late && !why.ok()) {
      Answer(from,
             [done = std::move(done), why]() mutable { std::move(done)(why); });
      return;
    }
    target().AsyncReplayMessages(
        std::move(id), from, to, max, std::move(on_event),
        [this, from, done = std::move(done)](absl::Status status) mutable {
          Answer(from, [done = std::move(done),
                        status = std::move(status)]() mutable {
            std::move(done)(std::move(status));
          });
        });
  }

 private:
  // Runs `answer` now, or holds it while the replay it waits for is not
  // answered yet.
  void Answer(int64_t from, absl::AnyInvocable<void() &&> answer) {
    absl::AnyInvocable<void() &&> released;
    {
      base::MutexLock lock(&mu_);
      if (from == late_from_ && !late_after_answered_) {
        held_ = std::move(answer);
        return;
      }
      --in_flight_;
      if (from == late_after_) {
        late_after_answered_ = true;
        if (held_) {
          released = std::move(held_);
          --in_flight_;
        }
      }
    }
    std::move(answer)();
    if (released) std::move(released)();
  }

  mutable base::Mutex mu_;
  int64_t late_from_ ABSL_GUARDED_BY(mu_) = -1;
  int64_t late_after_ ABSL_GUARDED_BY(mu_) = -1;
  absl::Status late_why_ ABSL_GUARDED_BY(mu_);
  bool late_after_answered_ ABSL_GUARDED_BY(mu_) = false;
  absl::AnyInvocable<void() &&> held_ ABSL_GUARDED_BY(mu_);
  std::vector<ReplayRequest> requests_ ABSL_GUARDED_BY(mu_);
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  int most_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
};

constexpr char kRecording[] = "akka.persistence.journal.recording";

struct Recovered {
  std::vector<std::string> events;
  int64_t last_sequence_nr = 0;
};
struct Failed {
  absl::Status cause;
  std::vector<std::string> events;  // recovered before it failed
};

// Persists each string command; tells the probe what it recovered.
class Counter final : public PersistentActor {
 public:
  Counter(ActorRef probe, Recovery recovery)
      : probe_(std::move(probe)), recovery_(recovery) {
    Recover<std::string>(
        [this](const std::string& e) { events_.push_back(e); });
    Recover<RecoveryCompleted>([this](const RecoveryCompleted&) {
      probe_.Tell(Recovered{events_, LastSequenceNr()});
    });
    Command<std::string>([this](const std::string& c) {
      Persist(c, [this](const std::string& e) {
        events_.push_back(e);
        Sender().Tell(e);
      });
    });
  }
  std::string PersistenceId() const override { return "counter"; }
  std::string JournalPluginId() const override { return kRecording; }
  Recovery GetRecovery() const override { return recovery_; }

 protected:
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override {
    probe_.Tell(Failed{cause, events_});
  }

 private:
  ActorRef probe_;
  Recovery recovery_;
  std::vector<std::string> events_;
};

class ReplayBatchTest : public ::testing::Test {
 protected:
  // `config`: the replay-batch-size settings under test.
  void Start(const std::string& config) {
    kit_ = std::make_unique<TestKit>(absl::StrCat(R"(
      akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
      akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
    )",
                                                  config));
    PersistenceSetup setup;
    setup.register_plugins = [this](PluginRegistry& plugins) {
      return plugins.RegisterJournal(
          kRecording,
          [this](const PluginContext& context)
              -> absl::StatusOr<std::unique_ptr<Journal>> {
            auto journal = std::make_unique<RecordingJournal>(
                NewInMemoryJournal(context.serialization));
            journal_ = journal.get();
            return std::unique_ptr<Journal>(std::move(journal));
          });
    };
    ASSERT_OK(Persistence::Get(kit_->Sys()).Setup(std::move(setup)));
  }

  // Persists 1..n through one incarnation, which then stops.
  void PersistEvents(int n) {
    ActorRef writer = kit_->Sys().ActorOf(
        Props::Create<Counter>(kit_->TestActor(), Recovery{}));
    kit_->ExpectMsg<Recovered>();
    for (int i = 1; i <= n; ++i) {
      writer.Tell(absl::StrCat(i), kit_->TestActor());
    }
    for (int i = 1; i <= n; ++i) {
      EXPECT_EQ(kit_->ExpectMsg<std::string>(), absl::StrCat(i));
    }
    kit_->Watch(writer);
    kit_->Sys().Stop(writer);
    kit_->ExpectTerminated(writer);
  }

  // The replay requests of a new incarnation's recovery.
  std::vector<ReplayRequest> RecoveryRequests(Recovery recovery,
                                              Recovered& recovered) {
    const size_t before = journal_.load()->requests().size();
    kit_->Sys().ActorOf(Props::Create<Counter>(kit_->TestActor(), recovery));
    recovered = kit_->ExpectMsg<Recovered>();
    std::vector<ReplayRequest> all = journal_.load()->requests();
    return std::vector<ReplayRequest>(all.begin() + before, all.end());
  }

  static std::vector<std::string> Range(int from, int to) {
    std::vector<std::string> r;
    for (int i = from; i <= to; ++i) r.push_back(absl::StrCat(i));
    return r;
  }

  std::unique_ptr<TestKit> kit_;
  std::atomic<RecordingJournal*> journal_{nullptr};
};

TEST_F(ReplayBatchTest, ReplaysInBatchesOfThePluginsReplayBatchSize) {
  Start("akka.persistence.journal.recording.replay-batch-size = 3");
  PersistEvents(10);
  Recovered recovered;
  std::vector<ReplayRequest> requests = RecoveryRequests(Recovery{}, recovered);
  EXPECT_EQ(recovered.events, Range(1, 10));
  EXPECT_EQ(recovered.last_sequence_nr, 10);
  const int64_t to = kMaxSequenceNr;
  // The first batch is counted; after it the highest (10) says where the
  // stream ends, so the next ones go by range, and the one that reaches
  // the highest runs to the replay's bound.
  EXPECT_EQ(requests, (std::vector<ReplayRequest>{
                          {1, to, 3}, {4, 6, to}, {7, 9, to}, {10, to, 3}}));
}

TEST_F(ReplayBatchTest, AsksForAtMostTwoBatchesAhead) {
  Start("akka.persistence.journal-plugin-fallback.replay-batch-size = 2");
  PersistEvents(50);
  Recovered recovered;
  std::vector<ReplayRequest> requests = RecoveryRequests(Recovery{}, recovered);
  EXPECT_EQ(recovered.events, Range(1, 50));
  // The first batch, 23 ranges, the tail (49-50, full), then an empty one
  // past it: a full tail may have events written after the highest.
  EXPECT_EQ(requests.size(), 26u);
  EXPECT_EQ(requests[1], (ReplayRequest{3, 4, kMaxSequenceNr}));
  EXPECT_EQ(requests[24], (ReplayRequest{49, kMaxSequenceNr, 2}));
  EXPECT_EQ(requests[25], (ReplayRequest{51, kMaxSequenceNr, 2}));
  // Two batches may be read while the handlers run a third: never more,
  // so the actor holds at most three.
  EXPECT_LE(journal_.load()->most_in_flight(), 2);
}

TEST_F(ReplayBatchTest, ABatchThatComesEarlyWaitsForTheOneBeforeIt) {
  Start("akka.persistence.journal.recording.replay-batch-size = 3");
  PersistEvents(10);
  journal_.load()->AnswerAfter(/*from=*/4, /*after=*/7, absl::OkStatus());
  Recovered recovered;
  RecoveryRequests(Recovery{}, recovered);
  EXPECT_EQ(recovered.events, Range(1, 10));
  EXPECT_EQ(recovered.last_sequence_nr, 10);
}

TEST_F(ReplayBatchTest, ABatchThatFailsFailsTheRecoveryBeforeTheOneAfterIt) {
  Start("akka.persistence.journal.recording.replay-batch-size = 3");
  PersistEvents(10);
  journal_.load()->AnswerAfter(/*from=*/4, /*after=*/7,
                               absl::DataLossError("events 4-6 are gone"));
  kit_->Sys().ActorOf(Props::Create<Counter>(kit_->TestActor(), Recovery{}));
  const Failed failed = kit_->ExpectMsg<Failed>();
  const absl::Status& cause = failed.cause;
  EXPECT_EQ(cause.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(cause.message().find("events 4-6 are gone"), std::string::npos)
      << cause;
  // 7-9 came first and waited: they are not applied after a gap.
  EXPECT_EQ(failed.events, Range(1, 3));
}

TEST_F(ReplayBatchTest, ABatchStopsAtReplayMaxAndToSequenceNr) {
  Start("akka.persistence.journal.recording.replay-batch-size = 3");
  PersistEvents(10);
  Recovered recovered;
  Recovery at_most_five;
  at_most_five.replay_max = 5;
  EXPECT_EQ(RecoveryRequests(at_most_five, recovered),
            (std::vector<ReplayRequest>{{1, kMaxSequenceNr, 3},
                                        {4, kMaxSequenceNr, 2}}));
  EXPECT_EQ(recovered.events, Range(1, 5));
  // Numbering goes on after the journal's highest (Akka's rule).
  EXPECT_EQ(recovered.last_sequence_nr, 10);
  const ActorRef first = kit_->LastSender();  // one writer per id at a time
  kit_->Watch(first);
  kit_->Sys().Stop(first);
  kit_->ExpectTerminated(first);

  Recovery up_to_seven;
  up_to_seven.to_sequence_nr = 7;
  EXPECT_EQ(RecoveryRequests(up_to_seven, recovered),
            (std::vector<ReplayRequest>{
                {1, 7, 3}, {4, 6, kMaxSequenceNr}, {7, 7, 3}}));
  EXPECT_EQ(recovered.events, Range(1, 7));
}

TEST_F(ReplayBatchTest, ABatchSizeBelowOneFailsTheRecoveryNamingTheKey) {
  Start("akka.persistence.journal.recording.replay-batch-size = 0");
  kit_->Sys().ActorOf(Props::Create<Counter>(kit_->TestActor(), Recovery{}));
  const absl::Status cause = kit_->ExpectMsg<Failed>().cause;
  EXPECT_EQ(cause.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(
      cause.message().find(
          "akka.persistence.journal.recording.replay-batch-size = 0: must be "
          "at least 1"),
      std::string::npos)
      << cause;
}

}  // namespace
}  // namespace cairn::persistence
