// The reply to a journal write, as the persistent actor handles it: one
// message for the whole write, whose handlers run in order, each with the
// sender of the command that persisted its event; a Stop(Self()) or a
// throw in one handler keeps the later ones from running, as it would if
// each event had a reply of its own, and loses no event. Writes are held
// by a journal wrapper until the test lets them go, so that several
// commands' events are in one write for certain.
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/blocking_counter.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "actor/supervisor_strategy.h"
#include "actor/testkit/test_kit.h"
#include "actor/testkit/test_probe.h"
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
using actor::testkit::TestProbe;

constexpr char kConfig[] = R"(
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
)";

// While holding, keeps every write it is given (in order) until Release();
// counts the AtomicWrites of each write call.
class HoldingJournal final : public JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    base::MutexLock lock(&mu_);
    write_sizes_.push_back(static_cast<int>(writes.size()));
    written_.SignalAll();
    if (hold_) {
      held_.push_back(Held{std::move(writes), std::move(done)});
      return;
    }
    // Under the lock, so that no write overtakes those Release() passes
    // on (the target calls back on its own thread, never in here).
    target().AsyncWriteMessages(std::move(writes), std::move(done));
  }

  void Hold() {
    base::MutexLock lock(&mu_);
    hold_ = true;
  }
  // Passes the held writes on, in order, and holds no more; with
  // `first_fails`, the first one fails with it instead, stored nowhere.
  // Returns once every held write's callback has run (its reply is in the
  // actor's mailbox).
  void Release(std::optional<absl::Status> first_fails = std::nullopt) {
    base::MutexLock lock(&mu_);
    hold_ = false;
    absl::BlockingCounter answered(static_cast<int>(held_.size()));
    for (Held& h : held_) {
      if (first_fails.has_value()) {
        std::vector<absl::Status> per_write(h.writes.size(), *first_fails);
        std::move(h.done)(*first_fails, std::move(per_write));
        first_fails.reset();
        answered.DecrementCount();
        continue;
      }
      target().AsyncWriteMessages(
          std::move(h.writes),
          [done = std::move(h.done), &answered](
              absl::Status status,
              std::vector<absl::Status> per_write) mutable {
            std::move(done)(std::move(status), std::move(per_write));
            answered.DecrementCount();
          });
    }
    held_.clear();
    answered.Wait();
  }
  std::vector<int> WriteSizes() {
    base::MutexLock lock(&mu_);
    return write_sizes_;
  }
  // Waits (up to 10 s) until `n` write calls have come; false if they
  // did not.
  bool AwaitWrites(size_t n) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    base::MutexLock lock(&mu_);
    while (write_sizes_.size() < n) {
      if (written_.WaitWithDeadline(&mu_, deadline)) {  // timed out
        return write_sizes_.size() >= n;
      }
    }
    return true;
  }

 private:
  struct Held {
    std::vector<AtomicWrite> writes;
    WriteCallback done;
  };
  base::Mutex mu_;
  base::CondVar written_;
  bool hold_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Held> held_ ABSL_GUARDED_BY(mu_);
  std::vector<int> write_sizes_ ABSL_GUARDED_BY(mu_);
};

struct Batch {
  std::vector<std::string> events;
};
// Blocks the actor (after telling the probe "gate") until `open` is ready.
struct Gate {
  std::shared_future<void> open;
};
// DeferAsync of `event` (telling the probe "defer <event>").
struct Deferred {
  std::string event;
};

// PersistAsync for each string command (telling the probe "cmd <c>"),
// PersistAll for a Batch, DeferAsync for a Deferred; a Gate blocks it.
// Each handler answers its Sender()
// with the event and tells the probe "ran <e>"; the handler of "stop" stops the
// actor, that of "boom" throws.
class Writer final : public PersistentActor {
 public:
  Writer(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<std::string>(
        [this](const std::string& e) { recovered_.push_back(e); });
    Recover<RecoveryCompleted>([this](const RecoveryCompleted&) {
      probe_.Tell(std::move(recovered_));
    });
    Command<std::string>([this](const std::string& c) {
      probe_.Tell("cmd " + c);
      PersistAsync(c, [this](const std::string& e) { Handle(e); });
    });
    Command<Batch>([this](const Batch& b) {
      PersistAll(b.events, [this](const std::string& e) { Handle(e); });
    });
    Command<Deferred>([this](const Deferred& d) {
      probe_.Tell("defer " + d.event);
      DeferAsync(d.event, [this](const std::string& e) { Handle(e); });
    });
    Command<Gate>([this](const Gate& g) {
      probe_.Tell(std::string("gate"));
      g.open.wait();
    });
  }
  std::string PersistenceId() const override { return id_; }
  std::string JournalPluginId() const override { return "holding"; }

 private:
  void Handle(const std::string& e) {
    probe_.Tell("ran " + e);
    Sender().Tell(e);
    if (e == "stop") Context().Stop(Self());
    if (e == "boom") throw std::runtime_error("boom");
  }

  std::string id_;
  ActorRef probe_;
  std::vector<std::string> recovered_;
};

class WriteReplyTest : public ::testing::Test {
 protected:
  WriteReplyTest() : kit_(kConfig) {
    PersistenceSetup setup;
    setup.register_plugins = [this](PluginRegistry& plugins) {
      return plugins.RegisterJournal(
          "holding",
          [this](const PluginContext& context)
              -> absl::StatusOr<std::unique_ptr<Journal>> {
            auto journal = std::make_unique<HoldingJournal>(
                NewInMemoryJournal(context.serialization));
            journal_ = journal.get();
            return std::unique_ptr<Journal>(std::move(journal));
          });
    };
    EXPECT_OK(Persistence::Get(kit_.Sys()).Setup(std::move(setup)));
  }

  ActorRef StartWriter(const std::string& id,
                       std::vector<std::string> recovered = {}) {
    ActorRef w =
        kit_.Sys().ActorOf(Props::Create<Writer>(id, kit_.TestActor()));
    EXPECT_EQ(kit_.ExpectMsg<std::vector<std::string>>(), recovered);
    return w;
  }

  // Holds the journal's writes, then sends "first", whose write is held.
  void HoldAFirstWrite(const ActorRef& w) {
    journal_->Hold();
    w.Tell(std::string("first"));
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), "cmd first");
  }
  // Sends the numbers [from, to) as commands, each persisted async.
  void SendNumbers(const ActorRef& w, int from, int to) {
    for (int i = from; i < to; ++i) {
      w.Tell(absl::StrCat(i));
      EXPECT_EQ(kit_.ExpectMsg<std::string>(), absl::StrCat("cmd ", i));
    }
  }
  // The handler of `event` ran and answered its command's sender, the test.
  void ExpectHandled(const std::string& event) {
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), "ran " + event);
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), event);
  }

  TestKit kit_;
  HoldingJournal* journal_ = nullptr;
};

TEST_F(WriteReplyTest, EachHandlerOfOneWriteAnswersItsOwnCommandsSender) {
  ActorRef w = StartWriter("senders");
  journal_->Hold();
  w.Tell(std::string("first"));  // its write is held
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "cmd first");
  // Three commands from three senders while that write is held: their
  // events wait for the next write, which takes all three.
  std::vector<std::unique_ptr<TestProbe>> senders;
  for (const char* c : {"a", "b", "c"}) {
    senders.push_back(kit_.CreateTestProbe());
    w.Tell(std::string(c), senders.back()->Ref());
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), absl::StrCat("cmd ", c));
  }
  journal_->Release();
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "ran first");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "first");  // its sender: the test
  for (const char* e : {"a", "b", "c"}) {
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), absl::StrCat("ran ", e));
  }
  EXPECT_EQ(senders[0]->ExpectMsg<std::string>(), "a");
  EXPECT_EQ(senders[1]->ExpectMsg<std::string>(), "b");
  EXPECT_EQ(senders[2]->ExpectMsg<std::string>(), "c");
  EXPECT_EQ(journal_->WriteSizes(), (std::vector<int>{1, 3}));
}

TEST_F(WriteReplyTest, AStopInAHandlerKeepsTheWritesLaterHandlersFromRunning) {
  ActorRef w = StartWriter("stopping");
  kit_.Watch(w);
  w.Tell(Batch{{"x", "stop", "y"}});
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "ran x");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "x");  // the test is the sender
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "ran stop");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "stop");
  // Not "ran y": the actor stops first.
  kit_.ExpectTerminated(w);
  // Every event of the write is stored.
  StartWriter("stopping", {"x", "stop", "y"});
}

TEST_F(WriteReplyTest, AThrowingHandlerKeepsTheWritesLaterHandlersFromRunning) {
  ActorRef w = StartWriter("throwing");
  w.Tell(Batch{{"x", "boom", "y"}});
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "ran x");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "x");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "ran boom");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "boom");
  // Not "ran y": the actor restarts, and its next incarnation recovers
  // every event of the write.
  EXPECT_EQ(kit_.ExpectMsg<std::vector<std::string>>(),
            (std::vector<std::string>{"x", "boom", "y"}));
}

// While a write is in flight, PersistAsync calls gather into the next
// write only up to 256 events: then it goes out too, so the journal stores
// a long run of them in pieces while the actor goes on (issue 35).
TEST_F(WriteReplyTest, WhileAWriteIsInFlightPersistAsyncGoesOutIn256s) {
  ActorRef w = StartWriter("ahead");
  HoldAFirstWrite(w);
  SendNumbers(w, 0, 600);
  EXPECT_EQ(journal_->WriteSizes(), (std::vector<int>{1, 256, 256}));
  journal_->Release();
  // In order, each with its command's sender (the test).
  ExpectHandled("first");
  for (int i = 0; i < 600; ++i) ExpectHandled(absl::StrCat(i));
  // The last 88 waited for the writes in flight.
  EXPECT_EQ(journal_->WriteSizes(), (std::vector<int>{1, 256, 256, 88}));
}

// The journal's reply is a control message: it is handled before the
// commands that wait in the mailbox (which the actor would otherwise
// gather into an ever larger next write, or stash for a Persist).
TEST_F(WriteReplyTest, AWritesReplyGoesAheadOfTheCommandsWaiting) {
  ActorRef w = StartWriter("first-served");
  HoldAFirstWrite(w);
  std::promise<void> open;
  w.Tell(Gate{open.get_future().share()});
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "gate");
  w.Tell(std::string("a"));
  w.Tell(std::string("b"));
  journal_->Release();  // the reply is in the mailbox, behind "a" and "b"
  open.set_value();
  ExpectHandled("first");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "cmd a");
}

// Writes sent while one is in flight are not stored when it fails: the
// journal's sequence rule refuses them (their first number does not
// follow the stream's highest), so the stream has no gap.
TEST_F(WriteReplyTest, NoWriteBehindAFailedOneIsStored) {
  ActorRef w = StartWriter("failing");
  kit_.Watch(w);
  HoldAFirstWrite(w);
  SendNumbers(w, 0, 300);
  EXPECT_EQ(journal_->WriteSizes(), (std::vector<int>{1, 256}));
  journal_->Release(absl::UnavailableError("the store went away"));
  kit_.ExpectTerminated(w);  // a persist failure stops the actor
  StartWriter("failing", {});
}

// A run of DeferAsync calls behind a write in flight writes nothing: it
// waits for that write's reply (answered at once, it would overtake it,
// and its handlers would take the write's place), then runs in order.
TEST_F(WriteReplyTest, DeferAsyncCallsBehindAWriteInFlightWaitForIt) {
  ActorRef w = StartWriter("deferring");
  HoldAFirstWrite(w);
  for (int i = 0; i < 300; ++i) {
    w.Tell(Deferred{absl::StrCat("d", i)});
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), absl::StrCat("defer d", i));
  }
  EXPECT_EQ(journal_->WriteSizes(), (std::vector<int>{1}));
  journal_->Release();
  ExpectHandled("first");
  for (int i = 0; i < 300; ++i) ExpectHandled(absl::StrCat("d", i));
  EXPECT_EQ(journal_->WriteSizes(), (std::vector<int>{1}));
}

// Creates the child it is sent and resumes it on any failure.
class ResumingParent final : public actor::Actor {
 public:
  ResumingParent() {
    Receive<Props>(
        [this](const Props& p) { Sender().Tell(Context().ActorOf(p, "w")); });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<actor::OneForOneStrategy>(
        actor::Decider().Otherwise(actor::Directive::kResume),
        /*logging_enabled=*/false);
  }
};

TEST_F(WriteReplyTest, AfterAThrowingHandlerIsResumedTheWritesRestRuns) {
  ActorRef parent = kit_.Sys().ActorOf(Props::Create<ResumingParent>());
  parent.Tell(Props::Create<Writer>(std::string("resumed"), kit_.TestActor()));
  ActorRef w = kit_.ExpectMsg<ActorRef>();
  EXPECT_EQ(kit_.ExpectMsg<std::vector<std::string>>(),
            std::vector<std::string>{});
  w.Tell(Batch{{"x", "boom", "y"}});
  for (const char* e : {"x", "boom", "y"}) {
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), absl::StrCat("ran ", e));
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), e);
  }
  // Nothing is left stashed or owed: the next command persists and runs.
  w.Tell(std::string("next"));
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "cmd next");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "ran next");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "next");
}

// A write that fails for want of a fence (the scope lost its lease) while
// writes are in flight fails after their replies, not before: their
// handlers run, in order, and the actor stops at the failed write.
TEST_F(WriteReplyTest, AWriteWithoutAFenceFailsBehindTheWritesInFlight) {
  Persistence& persistence = Persistence::Get(kit_.Sys());
  ActorRef scope = kit_.Sys().ActorOf(Props::Create<ResumingParent>());
  persistence.SetWriteFence(scope, WriteFence{"shard-1", "me", 1});
  scope.Tell(Props::Create<Writer>(std::string("fenced"), kit_.TestActor()));
  ActorRef w = kit_.ExpectMsg<ActorRef>();
  EXPECT_EQ(kit_.ExpectMsg<std::vector<std::string>>(),
            std::vector<std::string>{});
  kit_.Watch(w);
  HoldAFirstWrite(w);
  SendNumbers(w, 0, 256);  // the second write goes out
  ASSERT_TRUE(journal_->AwaitWrites(2));
  persistence.SetWriteFence(scope, std::nullopt);  // the lease is lost
  SendNumbers(w, 256, 512);                        // the third cannot go out
  EXPECT_EQ(journal_->WriteSizes(), (std::vector<int>{1, 256}));
  journal_->Release();
  ExpectHandled("first");
  for (int i = 0; i < 256; ++i) ExpectHandled(absl::StrCat(i));
  kit_.ExpectTerminated(w);  // the persist failure stops it
}

}  // namespace
}  // namespace cairn::persistence
