// PersistentActor against the in-memory plugins: the scenarios of Akka's
// PersistentActorSpec and PersistentActorFailureSpec that apply; and, on the
// RocksDB journal with a commit held open, a restart during a write.

#include "persistence/persistent_actor.h"

#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/clock.h"
#include "actor/exceptions.h"
#include "actor/props.h"
#include "actor/supervisor_strategy.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/internal/recovery_watchdog.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/fault_injection_file_system.h"
#include "persistence/storage/fault_injecting_journal.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/tagged.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "rocksdb/env.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;

constexpr char kInMemConfig[] = R"(
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
)";

// Commands of the test actors.
struct Get {};
struct State {
  std::vector<std::string> events;
  int64_t last_sequence_nr = 0;
  bool operator==(const State&) const = default;
};
struct Boom {};  // throws: the actor restarts
struct Snap {};  // saves the state as a snapshot
struct DeleteTo {
  int64_t to;
};
struct NotSerializable {
  int x = 0;
};
struct Unserializable {};  // persists a NotSerializable

// Persists every string command as an event ("a" -> event "a") and replies
// with the event's sequence number from the handler; records what recovery
// saw.
class Recorder : public PersistentActor {
 public:
  // Without `takes_snapshot_offers` it has no Recover<SnapshotOffer>.
  Recorder(std::string id, ActorRef probe, Recovery recovery = Recovery{},
           bool takes_snapshot_offers = true)
      : id_(std::move(id)), probe_(std::move(probe)), recovery_(recovery) {
    Recover<std::string>(
        [this](const std::string& e) { events_.push_back(e); });
    if (takes_snapshot_offers) {
      Recover<SnapshotOffer>([this](const SnapshotOffer& offer) {
        events_ = offer.snapshot.As<State>()->events;
        probe_.Tell(std::string("offered@") +
                    std::to_string(offer.metadata.sequence_nr));
      });
    }
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
    Command<std::string>([this](const std::string& c) {
      Persist(c, [this](const std::string& e) {
        events_.push_back(e);
        Sender().Tell(LastSequenceNr());
      });
    });
    Command<Get>([this](const Get&) {
      Sender().Tell(State{events_, LastSequenceNr()});
    });
    Command<Boom>(
        [](const Boom&) -> void { throw std::runtime_error("boom"); });
    Command<Snap>([this](const Snap&) {
      SaveSnapshot(State{events_, LastSequenceNr()});
    });
    Command<SaveSnapshotSuccess>(
        [this](const SaveSnapshotSuccess& s) { probe_.Tell(s); });
    Command<SaveSnapshotFailure>(
        [this](const SaveSnapshotFailure& s) { probe_.Tell(s); });
    Command<DeleteTo>([this](const DeleteTo& d) { DeleteMessages(d.to); });
    Command<DeleteMessagesSuccess>(
        [this](const DeleteMessagesSuccess& s) { probe_.Tell(s); });
    Command<DeleteMessagesFailure>(
        [this](const DeleteMessagesFailure& s) { probe_.Tell(s); });
    Command<Unserializable>([this](const Unserializable&) {
      Persist(NotSerializable{1}, [this](const NotSerializable&) {
        probe_.Tell(std::string("handler of a rejected event ran"));
      });
    });
  }

  std::string PersistenceId() const override { return id_; }
  Recovery GetRecovery() const override { return recovery_; }

  struct Rejected {
    std::string message;
    int64_t sequence_nr;
  };
  struct PersistFailed {
    std::string message;
    int64_t sequence_nr;
  };
  struct RecoveryFailed {
    std::string message;
  };

 protected:
  void OnPersistRejected(const absl::Status& cause,
                         const serialization::Payload&,
                         int64_t sequence_nr) override {
    probe_.Tell(Rejected{std::string(cause.message()), sequence_nr});
  }
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload&,
                        int64_t sequence_nr) override {
    probe_.Tell(PersistFailed{std::string(cause.message()), sequence_nr});
  }
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override {
    probe_.Tell(RecoveryFailed{std::string(cause.message())});
  }

  std::vector<std::string> events_;
  std::string id_;
  ActorRef probe_;
  Recovery recovery_;
};

absl::Status RegisterState(serialization::SerializationRegistry& registry) {
  // Snapshots of State as the events joined by '\n'.
  return registry.Register<State>(
      "test.State",
      [](const State& s) -> absl::StatusOr<std::string> {
        std::string out;
        for (const std::string& e : s.events) absl::StrAppend(&out, e, "\n");
        return out;
      },
      [](std::string_view bytes) -> absl::StatusOr<State> {
        State s;
        size_t start = 0;
        while (start < bytes.size()) {
          size_t end = bytes.find('\n', start);
          s.events.emplace_back(bytes.substr(start, end - start));
          start = end + 1;
        }
        return s;
      });
}

class PersistentActorTest : public ::testing::Test {
 protected:
  explicit PersistentActorTest(std::string extra_config = "")
      : kit_(absl::StrCat(kInMemConfig, extra_config)) {
    auto registry = std::make_shared<serialization::SerializationRegistry>();
    EXPECT_OK(RegisterState(*registry));
    PersistenceSetup setup;
    setup.serialization = registry;
    setup.register_plugins = [this](PluginRegistry& plugins) {
      return plugins.RegisterJournal(
          "faulty",
          [this](const PluginContext& context)
              -> absl::StatusOr<std::unique_ptr<Journal>> {
            auto journal = std::make_unique<FaultInjectingJournal>(
                NewInMemoryJournal(context.serialization));
            faulty_ = journal.get();
            return std::unique_ptr<Journal>(std::move(journal));
          });
    };
    EXPECT_OK(Persistence::Get(kit_.Sys()).Setup(std::move(setup)));
  }

  ActorRef StartRecorder(const std::string& id,
                         Recovery recovery = Recovery{}) {
    ActorRef r = kit_.Sys().ActorOf(
        Props::Create<Recorder>(id, kit_.TestActor(), recovery));
    kit_.ExpectMsg<RecoveryCompleted>();
    return r;
  }

  State GetState(const ActorRef& r) {
    r.Tell(Get{});
    return kit_.ExpectMsg<State>();
  }

  TestKit kit_;
  FaultInjectingJournal* faulty_ = nullptr;
};

TEST_F(PersistentActorTest, PersistsAndRepliesToTheCommandSender) {
  ActorRef r = StartRecorder("p1");
  r.Tell(std::string("a"));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
  r.Tell(std::string("b"));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 2);
  EXPECT_EQ(GetState(r), (State{{"a", "b"}, 2}));
}

// Persist(Tagged{event, tags}): the handler gets the Tagged, the journal
// stores the event with its tags, and recovery replays the event.
class TaggingWriter : public PersistentActor {
 public:
  explicit TaggingWriter(ActorRef probe) : probe_(std::move(probe)) {
    Recover<std::string>(
        [this](const std::string& e) { events_.push_back(e); });
    Recover<RecoveryCompleted>([this](const RecoveryCompleted&) {
      probe_.Tell(State{events_, LastSequenceNr()});
    });
    Command<std::string>([this](const std::string& c) {
      Persist(Tagged{serialization::Payload::Of(c), {"letters", c}},
              [this](const Tagged& t) {
                events_.push_back(*t.event.As<std::string>());
                Sender().Tell(LastSequenceNr());
              });
    });
  }
  std::string PersistenceId() const override { return "tagging"; }

 private:
  ActorRef probe_;
  std::vector<std::string> events_;
};

TEST_F(PersistentActorTest, PersistingATaggedEventStoresTheEventWithItsTags) {
  ActorRef w =
      kit_.Sys().ActorOf(Props::Create<TaggingWriter>(kit_.TestActor()));
  kit_.ExpectMsg<State>();
  w.Tell(std::string("a"));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
  w.Tell(std::string("b"));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 2);
  absl::StatusOr<Journal*> journal =
      Persistence::Get(kit_.Sys()).JournalFor("");
  ASSERT_OK(journal);
  testing::ReplayOutcome stored =
      testing::ReplayMessages(**journal, "tagging", 1, kMaxSequenceNr, 10);
  ASSERT_OK(stored.status);
  ASSERT_EQ(stored.events.size(), 2u);
  EXPECT_EQ(*stored.events[1].payload.As<std::string>(), "b");
  EXPECT_EQ(stored.events[1].tags, (std::vector<std::string>{"letters", "b"}));
  kit_.Watch(w);
  kit_.Sys().Stop(w);
  kit_.ExpectTerminated(w);
  kit_.Sys().ActorOf(Props::Create<TaggingWriter>(kit_.TestActor()));
  EXPECT_EQ(kit_.ExpectMsg<State>(), (State{{"a", "b"}, 2}));
}

// As in Akka, the user's PreStart runs before the recovery goes on, also
// when a recovery permit is free at once: the stores are not open yet, so
// a snapshot saved there is refused (one saved later is not).
class SavesInPreStart final : public PersistentActor {
 public:
  explicit SavesInPreStart(ActorRef probe) : probe_(std::move(probe)) {
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
  }
  std::string PersistenceId() const override { return "saves-in-prestart"; }
  void PreStart() override {
    try {
      SaveSnapshot(std::string("too early"));
      probe_.Tell(std::string("saved"));
    } catch (const actor::IllegalActorStateException&) {
      probe_.Tell(std::string("refused"));
    }
  }

 private:
  ActorRef probe_;
};

TEST_F(PersistentActorTest, PreStartRunsBeforeTheRecoveryGoesOn) {
  // Nothing else recovers: a permit is free at once.
  kit_.Sys().ActorOf(Props::Create<SavesInPreStart>(kit_.TestActor()));
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "refused");
  kit_.ExpectMsg<RecoveryCompleted>();
}

TEST_F(PersistentActorTest, RecoversItsEventsAfterARestart) {
  ActorRef r = StartRecorder("p1");
  for (const char* e : {"a", "b", "c"}) {
    r.Tell(std::string(e));
    kit_.ExpectMsg<int64_t>();
  }
  r.Tell(Boom{});
  kit_.ExpectMsg<RecoveryCompleted>();  // the new incarnation recovered
  EXPECT_EQ(GetState(r), (State{{"a", "b", "c"}, 3}));
  r.Tell(std::string("d"));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 4);
}

TEST_F(PersistentActorTest, ANewActorWithTheSameIdRecoversTheStream) {
  ActorRef first = StartRecorder("shared");
  first.Tell(std::string("x"));
  kit_.ExpectMsg<int64_t>();
  kit_.Watch(first);
  kit_.Sys().Stop(first);
  kit_.ExpectTerminated(first);
  ActorRef second = StartRecorder("shared");
  EXPECT_EQ(GetState(second), (State{{"x"}, 1}));
}

TEST_F(PersistentActorTest, CommandsDuringPersistAreStashedAndKeepTheirOrder) {
  ActorRef r = StartRecorder("p1");
  // Sent back to back: each persist stashes the commands behind it, which
  // are then handled in the order sent.
  for (int i = 0; i < 20; ++i) r.Tell(std::to_string(i));
  r.Tell(Get{});
  for (int i = 1; i <= 20; ++i) EXPECT_EQ(kit_.ExpectMsg<int64_t>(), i);
  State s = kit_.ExpectMsg<State>();
  ASSERT_EQ(s.events.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(s.events[i], std::to_string(i));
}

// Akka's ordering scenarios: handlers run in call order, whatever mix of
// Persist, PersistAsync, Defer and DeferAsync made them.
class Mixer final : public PersistentActor {
 public:
  explicit Mixer(ActorRef probe) : probe_(std::move(probe)) {
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
    Command<int>([this](int n) {
      const std::string c = std::to_string(n);
      PersistAsync(c + "-a1", [this](const std::string& e) { Say(e); });
      Persist(c + "-p1", [this](const std::string& e) { Say(e); });
      DeferAsync(c + "-d1", [this](const std::string& e) { Say(e); });
      PersistAll(std::vector<std::string>{c + "-all1", c + "-all2"},
                 [this](const std::string& e) { Say(e); });
      Defer(c + "-d2", [this](const std::string& e) { Say(e); });
      Say(c + "-cmd");
    });
    Command<std::string>([this](const std::string& s) { Say(s); });
  }
  std::string PersistenceId() const override { return "mixer"; }

 private:
  void Say(const std::string& s) { probe_.Tell(s); }
  ActorRef probe_;
};

TEST_F(PersistentActorTest, HandlersRunInCallOrderAcrossPersistKinds) {
  ActorRef m = kit_.Sys().ActorOf(Props::Create<Mixer>(kit_.TestActor()));
  kit_.ExpectMsg<RecoveryCompleted>();
  m.Tell(1);
  m.Tell(std::string("next command"));
  for (const char* expected : {"1-cmd", "1-a1", "1-p1", "1-d1", "1-all1",
                               "1-all2", "1-d2", "next command"}) {
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), expected);
  }
}

class AsyncOnly final : public PersistentActor {
 public:
  explicit AsyncOnly(ActorRef probe) : probe_(std::move(probe)) {
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
    Command<std::string>([this](const std::string& c) {
      probe_.Tell("cmd " + c);
      PersistAsync(c, [this](const std::string& e) { probe_.Tell("ev " + e); });
    });
  }
  std::string PersistenceId() const override { return "async"; }

 private:
  ActorRef probe_;
};

TEST_F(PersistentActorTest, PersistAsyncDoesNotStashCommands) {
  ActorRef a = kit_.Sys().ActorOf(Props::Create<AsyncOnly>(kit_.TestActor()));
  kit_.ExpectMsg<RecoveryCompleted>();
  a.Tell(std::string("1"));
  a.Tell(std::string("2"));
  a.Tell(std::string("3"));
  std::vector<std::string> got;
  for (int i = 0; i < 6; ++i) got.push_back(kit_.ExpectMsg<std::string>());
  // Every command is seen; events come in order; "cmd 2" arrives before
  // "ev 2" (and so on), and the first command is handled before its event.
  std::vector<std::string> events;
  for (const std::string& s : got) {
    if (s.rfind("ev ", 0) == 0) events.push_back(s);
  }
  EXPECT_EQ(events, (std::vector<std::string>{"ev 1", "ev 2", "ev 3"}));
  EXPECT_EQ(got.front(), "cmd 1");
}

// Stashes "x" and "y" itself until "open", persists "p..." commands.
class Gate final : public PersistentActor {
 public:
  explicit Gate(ActorRef probe) : probe_(std::move(probe)) {
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
    Command<std::string>([this](const std::string& c) {
      if (c == "open") {
        open_ = true;
        probe_.Tell(c);
        UnstashAll();
      } else if (c[0] == 'p') {
        Persist(c, [this](const std::string& e) { probe_.Tell(e); });
      } else if (!open_) {
        Stash();
      } else {
        probe_.Tell(c);
      }
    });
  }
  std::string PersistenceId() const override { return "gate"; }

 private:
  ActorRef probe_;
  bool open_ = false;
};

TEST_F(PersistentActorTest, UnstashAllPutsTheUsersMessagesBeforeStashedOnes) {
  ActorRef g = kit_.Sys().ActorOf(Props::Create<Gate>(kit_.TestActor()));
  kit_.ExpectMsg<RecoveryCompleted>();
  // x and y go to the user's stash; "open" and "p2" arrive while p1 is
  // being persisted and wait in the internal stash. Unstashed in "open",
  // x and y come before p2, as in Akka (Eventsourced.unstashAll).
  for (const char* c : {"x", "y", "p1", "open", "p2"}) g.Tell(std::string(c));
  for (const char* expected : {"p1", "open", "x", "y", "p2"}) {
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), expected);
  }
}

// Persists, then throws ("e!"); persists plain strings.
class PersistThenThrow final : public PersistentActor {
 public:
  explicit PersistThenThrow(ActorRef probe) : probe_(std::move(probe)) {
    Recover<std::string>(
        [this](const std::string& e) { probe_.Tell("recovered " + e); });
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
    Command<std::string>([this](const std::string& c) {
      Persist(c, [this](const std::string& e) {
        probe_.Tell(absl::StrCat(e, "@", LastSequenceNr()));
      });
      if (c.back() == '!') throw std::runtime_error("after persist");
    });
  }
  std::string PersistenceId() const override { return "thrower"; }

 private:
  ActorRef probe_;
};

// Creates the child it is sent and resumes it on any failure.
class ResumingParent final : public actor::Actor {
 public:
  ResumingParent() {
    Receive<Props>(
        [this](const Props& p) { Sender().Tell(Context().ActorOf(p, "c")); });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<actor::OneForOneStrategy>(
        actor::Decider().Otherwise(actor::Directive::kResume),
        /*logging_enabled=*/false);
  }
};

TEST_F(PersistentActorTest, ACommandThatThrowsAfterPersistingUnderResume) {
  ActorRef parent = kit_.Sys().ActorOf(Props::Create<ResumingParent>());
  parent.Tell(Props::Create<PersistThenThrow>(kit_.TestActor()));
  ActorRef child = kit_.ExpectMsg<ActorRef>();
  kit_.ExpectMsg<RecoveryCompleted>();
  // The event persisted before the throw is written (as in Akka) and its
  // handler runs in the resumed actor; the commands behind it go on.
  child.Tell(std::string("e!"));
  child.Tell(std::string("next"));
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "e!@1");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "next@2");
}

TEST_F(PersistentActorTest, ACommandThatThrowsAfterPersistingUnderRestart) {
  ActorRef t =
      kit_.Sys().ActorOf(Props::Create<PersistThenThrow>(kit_.TestActor()));
  kit_.ExpectMsg<RecoveryCompleted>();
  t.Tell(std::string("a"));
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "a@1");
  t.Tell(std::string("e!"));
  t.Tell(std::string("next"));
  // The new incarnation replays the event written for the failed command,
  // then handles the command that waited behind it.
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "recovered a");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "recovered e!");
  kit_.ExpectMsg<RecoveryCompleted>();
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "next@3");
}

TEST_F(PersistentActorTest, ACommandThatThrowsAfterPersistingBackToBack) {
  ActorRef t =
      kit_.Sys().ActorOf(Props::Create<PersistThenThrow>(kit_.TestActor()));
  kit_.ExpectMsg<RecoveryCompleted>();
  // Sent without waiting: "e!" comes out of the stash while the write of
  // "a" is being acknowledged, persists, and throws. Its event must still
  // be written (Akka holds a, e!, b, c), not dropped by the restart.
  for (const char* c : {"a", "e!", "b", "c"}) t.Tell(std::string(c));
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "a@1");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "recovered a");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "recovered e!");
  kit_.ExpectMsg<RecoveryCompleted>();
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "b@3");
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "c@4");
}

// Calls Stash() inside a persist handler ("persist") or a defer handler
// ("defer"), which Akka refuses.
class StashesInAHandler final : public PersistentActor {
 public:
  StashesInAHandler() {
    Command<std::string>([this](const std::string& c) {
      if (c == "persist") {
        Persist(c, [this](const std::string&) { Stash(); });
      } else {
        PersistAsync(c, [](const std::string&) {});
        DeferAsync(c, [this](const std::string&) { Stash(); });
      }
    });
  }
  std::string PersistenceId() const override { return "stasher"; }
};

// Creates the child it is sent; tells `probe` what each failure of a child
// was, and stops it.
class ReportingParent final : public actor::Actor {
 public:
  explicit ReportingParent(ActorRef probe) : probe_(std::move(probe)) {
    Receive<Props>(
        [this](const Props& p) { Sender().Tell(Context().ActorOf(p)); });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<actor::OneForOneStrategy>(
        actor::Decider([probe = probe_](const std::exception_ptr& e) {
          probe.Tell(actor::DescribeException(e));
          return actor::Directive::kStop;
        }),
        /*logging_enabled=*/false);
  }

 private:
  ActorRef probe_;
};

TEST_F(PersistentActorTest, StashInsideAPersistOrDeferHandlerFails) {
  ActorRef parent =
      kit_.Sys().ActorOf(Props::Create<ReportingParent>(kit_.TestActor()));
  for (const char* command : {"persist", "defer"}) {
    SCOPED_TRACE(command);
    parent.Tell(Props::Create<StashesInAHandler>());
    ActorRef child = kit_.ExpectMsg<ActorRef>();
    kit_.Watch(child);
    child.Tell(std::string(command));
    const std::string failure = kit_.ExpectMsg<std::string>();
    EXPECT_NE(failure.find("IllegalActorStateException"), std::string::npos)
        << failure;
    EXPECT_NE(failure.find("do not call Stash inside a persist"),
              std::string::npos)
        << failure;
    kit_.ExpectTerminated(child);
  }
}

TEST_F(PersistentActorTest, ASecondLiveActorWithTheSameIdFailsItsRecovery) {
  ActorRef first = StartRecorder("one-writer");
  first.Tell(std::string("a"));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
  ActorRef second = kit_.Sys().ActorOf(
      Props::Create<Recorder>("one-writer", kit_.TestActor(), Recovery{}));
  kit_.Watch(second);
  Recorder::RecoveryFailed failed = kit_.ExpectMsg<Recorder::RecoveryFailed>();
  EXPECT_NE(failed.message.find("\"one-writer\" is in use by " +
                                first.Path().ToString()),
            std::string::npos)
      << failed.message;
  kit_.ExpectTerminated(second);
  // The first goes on undisturbed, and restarting it keeps its claim.
  first.Tell(Boom{});
  kit_.ExpectMsg<RecoveryCompleted>();
  first.Tell(std::string("b"));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 2);
  // Once it has stopped, the id is free.
  kit_.Watch(first);
  kit_.Sys().Stop(first);
  kit_.ExpectTerminated(first);
  ActorRef third = StartRecorder("one-writer");
  EXPECT_EQ(GetState(third), (State{{"a", "b"}, 2}));
}

TEST_F(PersistentActorTest, RecoversFromASnapshotAndTheEventsAfterIt) {
  ActorRef r = StartRecorder("snap");
  for (const char* e : {"a", "b"}) {
    r.Tell(std::string(e));
    kit_.ExpectMsg<int64_t>();
  }
  r.Tell(Snap{});
  SaveSnapshotSuccess saved = kit_.ExpectMsg<SaveSnapshotSuccess>();
  EXPECT_EQ(saved.metadata.sequence_nr, 2);
  EXPECT_EQ(saved.metadata.persistence_id, "snap");
  r.Tell(std::string("c"));
  kit_.ExpectMsg<int64_t>();
  r.Tell(Boom{});
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "offered@2");
  kit_.ExpectMsg<RecoveryCompleted>();
  EXPECT_EQ(GetState(r), (State{{"a", "b", "c"}, 3}));
}

TEST_F(PersistentActorTest, AnUnhandledSnapshotOfferReplaysEveryEvent) {
  // Akka: an offer no handler takes leaves the sequence number alone, and
  // recovery replays the events the snapshot covers.
  kit_.Sys().EventStream().Subscribe<actor::UnhandledMessage>(kit_.TestActor());
  ActorRef r = kit_.Sys().ActorOf(Props::Create<Recorder>(
      "no-offers", kit_.TestActor(), Recovery{}, false));
  kit_.ExpectMsg<RecoveryCompleted>();
  for (const char* e : {"a", "b"}) {
    r.Tell(std::string(e));
    kit_.ExpectMsg<int64_t>();
  }
  r.Tell(Snap{});
  EXPECT_EQ(kit_.ExpectMsg<SaveSnapshotSuccess>().metadata.sequence_nr, 2);
  r.Tell(std::string("c"));
  kit_.ExpectMsg<int64_t>();
  r.Tell(Boom{});
  actor::UnhandledMessage unhandled = kit_.ExpectMsg<actor::UnhandledMessage>();
  ASSERT_NE(unhandled.message.As<SnapshotOffer>(), nullptr);
  EXPECT_EQ(unhandled.message.As<SnapshotOffer>()->metadata.sequence_nr, 2);
  kit_.ExpectMsg<RecoveryCompleted>();
  EXPECT_EQ(GetState(r), (State{{"a", "b", "c"}, 3}));
}

TEST_F(PersistentActorTest, RecoveryNoneSkipsStateButKeepsNumbering) {
  ActorRef r = StartRecorder("none");
  r.Tell(std::string("a"));
  kit_.ExpectMsg<int64_t>();
  kit_.Watch(r);
  kit_.Sys().Stop(r);
  kit_.ExpectTerminated(r);
  ActorRef again = StartRecorder("none", Recovery::None());
  EXPECT_EQ(GetState(again), (State{{}, 1}));
  again.Tell(std::string("b"));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 2);
}

TEST_F(PersistentActorTest, RecoveryUpToASequenceNumber) {
  ActorRef r = StartRecorder("upto");
  for (const char* e : {"a", "b", "c"}) {
    r.Tell(std::string(e));
    kit_.ExpectMsg<int64_t>();
  }
  kit_.Watch(r);
  kit_.Sys().Stop(r);
  kit_.ExpectTerminated(r);
  Recovery upto;
  upto.to_sequence_nr = 2;
  ActorRef again = StartRecorder("upto", upto);
  // Akka's rule: the state is up to 2; numbering goes on after the highest.
  EXPECT_EQ(GetState(again), (State{{"a", "b"}, 3}));
}

TEST_F(PersistentActorTest, DeletedEventsAreNotReplayed) {
  ActorRef r = StartRecorder("del");
  for (const char* e : {"a", "b", "c"}) {
    r.Tell(std::string(e));
    kit_.ExpectMsg<int64_t>();
  }
  r.Tell(DeleteTo{2});
  EXPECT_EQ(kit_.ExpectMsg<DeleteMessagesSuccess>().to_sequence_nr, 2);
  r.Tell(Boom{});
  kit_.ExpectMsg<RecoveryCompleted>();
  EXPECT_EQ(GetState(r), (State{{"c"}, 3}));
}

TEST_F(PersistentActorTest, DeleteAboveTheLastSequenceNumberFails) {
  ActorRef r = StartRecorder("del2");
  r.Tell(std::string("a"));
  kit_.ExpectMsg<int64_t>();
  r.Tell(DeleteTo{5});
  DeleteMessagesFailure f = kit_.ExpectMsg<DeleteMessagesFailure>();
  EXPECT_EQ(f.to_sequence_nr, 5);
  EXPECT_NE(f.cause.message().find("above its last sequence number 1"),
            std::string::npos)
      << f.cause;
  EXPECT_EQ(GetState(r), (State{{"a"}, 1}));  // nothing deleted
}

TEST_F(PersistentActorTest, ARejectedEventIsSkippedAndTheActorGoesOn) {
  ActorRef r = StartRecorder("rej");
  r.Tell(std::string("a"));
  kit_.ExpectMsg<int64_t>();
  r.Tell(Unserializable{});
  Recorder::Rejected rejected = kit_.ExpectMsg<Recorder::Rejected>();
  EXPECT_EQ(rejected.sequence_nr, 2);
  EXPECT_NE(rejected.message.find("rej"), std::string::npos)
      << rejected.message;
  r.Tell(std::string("b"));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 3);  // 2 is not reused
  r.Tell(Boom{});
  kit_.ExpectMsg<RecoveryCompleted>();
  EXPECT_EQ(GetState(r), (State{{"a", "b"}, 3}));
}

class FaultyRecorder final : public Recorder {
 public:
  using Recorder::Recorder;
  std::string JournalPluginId() const override { return "faulty"; }
};

TEST_F(PersistentActorTest, AFailedWriteStopsTheActorAfterOnPersistFailure) {
  ActorRef r = kit_.Sys().ActorOf(
      Props::Create<FaultyRecorder>("w", kit_.TestActor(), Recovery{}));
  kit_.ExpectMsg<RecoveryCompleted>();
  r.Tell(std::string("a"));
  kit_.ExpectMsg<int64_t>();
  ASSERT_NE(faulty_, nullptr);
  faulty_->FailNextWrites(1);
  kit_.Watch(r);
  r.Tell(std::string("b"));
  Recorder::PersistFailed failed = kit_.ExpectMsg<Recorder::PersistFailed>();
  EXPECT_EQ(failed.sequence_nr, 2);
  EXPECT_NE(failed.message.find("\"w\""), std::string::npos) << failed.message;
  kit_.ExpectTerminated(r);
  // A new incarnation recovers exactly the acknowledged event.
  ActorRef again = kit_.Sys().ActorOf(
      Props::Create<FaultyRecorder>("w", kit_.TestActor(), Recovery{}));
  kit_.ExpectMsg<RecoveryCompleted>();
  EXPECT_EQ(GetState(again), (State{{"a"}, 1}));
}

TEST_F(PersistentActorTest, AFailedReplayStopsTheActorAfterOnRecoveryFailure) {
  ActorRef r = kit_.Sys().ActorOf(
      Props::Create<FaultyRecorder>("rf", kit_.TestActor(), Recovery{}));
  kit_.ExpectMsg<RecoveryCompleted>();
  r.Tell(std::string("a"));
  kit_.ExpectMsg<int64_t>();
  faulty_->SetFailReplays(true);
  kit_.Watch(r);
  r.Tell(Boom{});
  Recorder::RecoveryFailed failed = kit_.ExpectMsg<Recorder::RecoveryFailed>();
  EXPECT_NE(failed.message.find("\"rf\""), std::string::npos) << failed.message;
  EXPECT_NE(failed.message.find("injected replay failure"), std::string::npos)
      << failed.message;
  kit_.ExpectTerminated(r);
}

class ThrowingRecovery final : public PersistentActor {
 public:
  explicit ThrowingRecovery(ActorRef probe) : probe_(std::move(probe)) {
    Recover<std::string>([](const std::string& e) {
      if (e == "bad") throw std::runtime_error("cannot apply bad");
    });
    Command<std::string>([this](const std::string& c) {
      Persist(c,
              [this](const std::string&) { Sender().Tell(LastSequenceNr()); });
    });
    Command<Boom>(
        [](const Boom&) -> void { throw std::runtime_error("boom"); });
  }
  std::string PersistenceId() const override { return "throwing"; }

 protected:
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload* event) override {
    probe_.Tell(std::string(cause.message()));
    probe_.Tell(event != nullptr && *event->As<std::string>() == "bad");
  }

 private:
  ActorRef probe_;
};

TEST_F(PersistentActorTest, AThrowingRecoveryHandlerFailsTheRecovery) {
  ActorRef r =
      kit_.Sys().ActorOf(Props::Create<ThrowingRecovery>(kit_.TestActor()));
  r.Tell(std::string("good"));
  kit_.ExpectMsg<int64_t>();
  r.Tell(std::string("bad"));
  kit_.ExpectMsg<int64_t>();
  kit_.Watch(r);
  r.Tell(Boom{});
  std::string message = kit_.ExpectMsg<std::string>();
  EXPECT_NE(message.find("sequence number 2"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot apply bad"), std::string::npos) << message;
  EXPECT_TRUE(kit_.ExpectMsg<bool>());
  kit_.ExpectTerminated(r);
}

class PersistsInRecovery final : public PersistentActor {
 public:
  explicit PersistsInRecovery(ActorRef probe) : probe_(std::move(probe)) {
    Recover<std::string>([this](const std::string& e) {
      Persist(e + "!", [](const std::string&) {});
    });
    Command<std::string>([this](const std::string& c) {
      Persist(c,
              [this](const std::string&) { Sender().Tell(LastSequenceNr()); });
    });
    Command<Boom>(
        [](const Boom&) -> void { throw std::runtime_error("boom"); });
  }
  std::string PersistenceId() const override { return "persists-in-recovery"; }

 protected:
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override {
    probe_.Tell(std::string(cause.message()));
  }

 private:
  ActorRef probe_;
};

TEST_F(PersistentActorTest, PersistDuringRecoveryIsAnError) {
  ActorRef r =
      kit_.Sys().ActorOf(Props::Create<PersistsInRecovery>(kit_.TestActor()));
  r.Tell(std::string("a"));
  kit_.ExpectMsg<int64_t>();
  kit_.Watch(r);
  r.Tell(Boom{});
  std::string message = kit_.ExpectMsg<std::string>();
  EXPECT_NE(message.find("cannot persist during recovery"), std::string::npos)
      << message;
  kit_.ExpectTerminated(r);
}

class NoId final : public PersistentActor {
 public:
  NoId() = default;
  std::string PersistenceId() const override { return ""; }
};

TEST_F(PersistentActorTest, AnEmptyPersistenceIdStopsTheActor) {
  ActorRef r = kit_.Sys().ActorOf(Props::Create<NoId>());
  kit_.Watch(r);
  kit_.ExpectTerminated(r);
}

// --- A restart while a write is in flight, on RocksDB ----------------------

// Forwards to a journal and lets a test wait, on a condition variable, until
// a number of reads of a stream (replays and highest-sequence-number reads,
// which a recovery makes through this wrapper: it keeps Journal's
// AsyncStartRecovery) has been submitted, and see how many have finished.
class ReadWatchingJournal final : public JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  // The callbacks the wrapped journal's destructor runs still count under
  // mu_: it goes first.
  ~ReadWatchingJournal() override { DestroyTarget(); }

  bool WaitForReadsSubmitted(int count, absl::Duration deadline) {
    const absl::Time end = absl::Now() + deadline;
    base::MutexLock lock(&mu_);
    while (submitted_ < count) {
      if (changed_.WaitWithDeadline(&mu_, end)) return submitted_ >= count;
    }
    return true;
  }
  int reads_finished() {
    base::MutexLock lock(&mu_);
    return finished_;
  }

  void AsyncReplayMessages(std::string id, int64_t from, int64_t to,
                           int64_t max, ReplayCallback on_event,
                           DoneCallback done) override {
    target().AsyncReplayMessages(
        std::move(id), from, to, max, std::move(on_event),
        [this, done = std::move(done)](absl::Status status) mutable {
          Finished();
          std::move(done)(std::move(status));
        });
    Submitted();
  }
  void AsyncReadHighestSequenceNr(std::string id, int64_t from,
                                  HighestCallback done) override {
    target().AsyncReadHighestSequenceNr(
        std::move(id), from,
        [this,
         done = std::move(done)](absl::StatusOr<int64_t> highest) mutable {
          Finished();
          std::move(done)(std::move(highest));
        });
    Submitted();
  }

 private:
  void Submitted() {
    base::MutexLock lock(&mu_);
    ++submitted_;
    changed_.SignalAll();
  }
  void Finished() {
    base::MutexLock lock(&mu_);
    ++finished_;
  }

  base::Mutex mu_;
  base::CondVar changed_;
  int submitted_ ABSL_GUARDED_BY(mu_) = 0;
  int finished_ ABSL_GUARDED_BY(mu_) = 0;
};

constexpr char kBlockingRocksDbJournal[] = "blocking-rocksdb";

// Persists each string command with PersistAsync, so the next command is
// handled while the write is in flight; Boom then restarts it mid-write.
class AsyncRecorder final : public PersistentActor {
 public:
  AsyncRecorder(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<std::string>(
        [this](const std::string& e) { events_.push_back(e); });
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
    Command<std::string>([this](const std::string& c) {
      PersistAsync(c, [this](const std::string& e) {
        events_.push_back(e);
        Sender().Tell(LastSequenceNr());
      });
    });
    Command<Get>([this](const Get&) {
      Sender().Tell(State{events_, LastSequenceNr()});
    });
    Command<Boom>(
        [](const Boom&) -> void { throw std::runtime_error("boom"); });
  }
  std::string PersistenceId() const override { return id_; }
  std::string JournalPluginId() const override {
    return kBlockingRocksDbJournal;
  }

 private:
  std::string id_;
  ActorRef probe_;
  std::vector<std::string> events_;
};

// The RocksDB journal on a file system whose WAL appends a test can hold,
// with one reader thread (reads run in the order they start).
class PersistentActorOnRocksDbTest : public ::testing::Test {
 protected:
  PersistentActorOnRocksDbTest() : kit_(kInMemConfig) {
    absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
    EXPECT_OK(dir);
    if (dir.ok()) dir_.emplace(*std::move(dir));
    PersistenceSetup setup;
    setup.register_plugins = [this](PluginRegistry& plugins) {
      return plugins.RegisterJournal(
          kBlockingRocksDbJournal,
          [this](const PluginContext& context)
              -> absl::StatusOr<std::unique_ptr<Journal>> {
            RocksDbOptions options;
            options.path = dir_->path() + "/store";
            options.env = env_.get();
            options.reader_threads = 1;
            absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
            if (!store.ok()) return store.status();
            absl::StatusOr<std::unique_ptr<Journal>> journal =
                store->NewJournal(context.serialization);
            if (!journal.ok()) return journal.status();
            auto watching =
                std::make_unique<ReadWatchingJournal>(*std::move(journal));
            journal_.store(watching.get());
            return std::unique_ptr<Journal>(std::move(watching));
          });
    };
    EXPECT_OK(Persistence::Get(kit_.Sys()).Setup(std::move(setup)));
  }

  // Declared before kit_: the database, closed when the system is, uses
  // them until then.
  std::optional<testing::TempDir> dir_;
  std::shared_ptr<testing::FaultInjectionFileSystem> file_system_ =
      std::make_shared<testing::FaultInjectionFileSystem>();
  std::unique_ptr<rocksdb::Env> env_ =
      testing::NewFaultInjectionEnv(file_system_);
  TestKit kit_;
  // Made on an actor's first use, on its thread.
  std::atomic<ReadWatchingJournal*> journal_{nullptr};
};

// Akka's contract, end to end: an actor restarted while its write is in
// flight recovers after that write, so its next event takes the next
// sequence number instead of overwriting the one in flight.
TEST_F(PersistentActorOnRocksDbTest, ARestartDuringAWriteOverwritesNothing) {
  ActorRef a =
      kit_.Sys().ActorOf(Props::Create<AsyncRecorder>("p", kit_.TestActor()));
  kit_.ExpectMsg<RecoveryCompleted>();
  ReadWatchingJournal* journal = journal_.load();
  ASSERT_NE(journal, nullptr);

  file_system_->HoldNextWalAppend();
  a.Tell(std::string("a"));
  ASSERT_TRUE(file_system_->WaitUntilHeld(absl::Seconds(30)));
  a.Tell(Boom{});
  // The first incarnation read "p"'s highest and replayed it; the new
  // one's recovery has submitted its read of "p"...
  ASSERT_TRUE(journal->WaitForReadsSubmitted(3, absl::Seconds(30)));
  // ...which, had it not been held back, would have run on the one reader
  // thread before this read of another stream.
  absl::StatusOr<int64_t> other = testing::ReadHighestSequenceNr(*journal, "q");
  ASSERT_OK(other);
  EXPECT_EQ(journal->reads_finished(), 3)  // the first two and "q"
      << "the restarted actor read \"p\" while its write was in flight";

  file_system_->Release();
  kit_.ExpectMsg<RecoveryCompleted>();
  a.Tell(Get{});
  EXPECT_EQ(kit_.ExpectMsg<State>(), (State{{"a"}, 1}));
  a.Tell(std::string("b"));
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 2);
  testing::ReplayOutcome stored =
      testing::ReplayMessages(*journal, "p", 1, kMaxSequenceNr, kMaxSequenceNr);
  ASSERT_OK(stored.status);
  EXPECT_EQ(testing::Texts(stored.events),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(testing::SequenceNrs(stored.events), (std::vector<int64_t>{1, 2}));
}

// A journal that holds every write until the test releases it.
class HoldingJournal final : public JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  ~HoldingJournal() override {
    for (Held& h : held_) {
      std::vector<absl::Status> statuses(h.writes.size());
      std::move(h.done)(absl::CancelledError("journal destroyed"),
                        std::move(statuses));
    }
    for (HeldReplay& r : held_replays_) {
      std::move(r.done)(absl::CancelledError("journal destroyed"));
    }
  }
  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    base::MutexLock lock(&mu_);
    held_.push_back(Held{std::move(writes), std::move(done)});
    changed_.SignalAll();
  }
  // Replays are held too from now on, until ReleaseReplays.
  void HoldReplays() {
    base::MutexLock lock(&mu_);
    hold_replays_ = true;
  }
  void AsyncReplayMessages(std::string id, int64_t from, int64_t to,
                           int64_t max, ReplayCallback on_event,
                           DoneCallback done) override {
    {
      base::MutexLock lock(&mu_);
      if (hold_replays_) {
        held_replays_.push_back(HeldReplay{std::move(id), from, to, max,
                                           std::move(on_event),
                                           std::move(done)});
        changed_.SignalAll();
        return;
      }
    }
    target().AsyncReplayMessages(std::move(id), from, to, max,
                                 std::move(on_event), std::move(done));
  }
  bool WaitUntilHeld(absl::Duration deadline) {
    const absl::Time end = absl::Now() + deadline;
    base::MutexLock lock(&mu_);
    while (held_.empty()) {
      if (changed_.WaitWithDeadline(&mu_, end)) return !held_.empty();
    }
    return true;
  }
  bool WaitUntilReplayHeld(absl::Duration deadline) {
    const absl::Time end = absl::Now() + deadline;
    base::MutexLock lock(&mu_);
    while (held_replays_.empty()) {
      if (changed_.WaitWithDeadline(&mu_, end)) return !held_replays_.empty();
    }
    return true;
  }
  void ReleaseAll() {
    std::vector<Held> held;
    {
      base::MutexLock lock(&mu_);
      held.swap(held_);
    }
    for (Held& h : held) {
      target().AsyncWriteMessages(std::move(h.writes), std::move(h.done));
    }
  }
  // Lets the held replays go and holds no more.
  void ReleaseReplays() {
    std::vector<HeldReplay> replays;
    {
      base::MutexLock lock(&mu_);
      replays.swap(held_replays_);
      hold_replays_ = false;
    }
    for (HeldReplay& r : replays) {
      target().AsyncReplayMessages(std::move(r.id), r.from, r.to, r.max,
                                   std::move(r.on_event), std::move(r.done));
    }
  }

 private:
  struct Held {
    std::vector<AtomicWrite> writes;
    WriteCallback done;
  };
  struct HeldReplay {
    std::string id;
    int64_t from, to, max;
    ReplayCallback on_event;
    DoneCallback done;
  };
  base::Mutex mu_;
  base::CondVar changed_;
  std::vector<Held> held_ ABSL_GUARDED_BY(mu_);
  bool hold_replays_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<HeldReplay> held_replays_ ABSL_GUARDED_BY(mu_);
};

HoldingJournal* holding_journal = nullptr;

// Registers the journal plugin "holding": an in-memory journal behind a
// HoldingJournal, which it puts in holding_journal when made.
absl::Status SetUpHoldingJournal(actor::ActorSystem& system) {
  PersistenceSetup setup;
  setup.register_plugins = [](PluginRegistry& plugins) {
    return plugins.RegisterJournal(
        "holding",
        [](const PluginContext& context)
            -> absl::StatusOr<std::unique_ptr<Journal>> {
          auto journal = std::make_unique<HoldingJournal>(
              NewInMemoryJournal(context.serialization));
          holding_journal = journal.get();
          return std::unique_ptr<Journal>(std::move(journal));
        });
  };
  return Persistence::Get(system).Setup(std::move(setup));
}

class SelectionTarget final : public PersistentActor {
 public:
  explicit SelectionTarget(ActorRef probe) : probe_(std::move(probe)) {
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
    Command<std::string>([this](const std::string& c) {
      probe_.Tell("cmd " + c);
      Persist(c, [this](const std::string& e) { probe_.Tell("ev " + e); });
    });
  }
  std::string PersistenceId() const override { return "selected"; }
  std::string JournalPluginId() const override { return "holding"; }

 private:
  ActorRef probe_;
};

// A command that comes through an ActorSelection takes the same way into
// the actor as a Tell: it waits for the persist in flight (it used to be
// handled at once, between the command and its persist handler).
TEST(PersistentActorSelectionTest, ACommandThroughASelectionWaitsForPersist) {
  TestKit kit(kInMemConfig);
  ASSERT_OK(SetUpHoldingJournal(kit.Sys()));
  ActorRef t = kit.Sys().ActorOf(
      Props::Create<SelectionTarget>(kit.TestActor()), "target");
  kit.ExpectMsg<RecoveryCompleted>();
  t.Tell(std::string("a"));
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "cmd a");
  ASSERT_TRUE(holding_journal->WaitUntilHeld(absl::Seconds(30)));
  actor::ActorSelection selection = kit.Sys().ActorSelection("/user/target");
  selection.Tell(std::string("b"));
  // The runtime answers Identify itself, after the command before it
  // has been taken in (stashed) by the actor.
  selection.Tell(actor::Identify{actor::AnyMessage::Of(1)});
  EXPECT_EQ(kit.ExpectMsg<actor::ActorIdentity>().subject, t);
  holding_journal->ReleaseAll();
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "ev a");
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "cmd b");
  ASSERT_TRUE(holding_journal->WaitUntilHeld(absl::Seconds(30)));
  holding_journal->ReleaseAll();
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "ev b");
}

// A PoisonPill waits behind the commands a Persist holds back, as they
// do: they are handled and their events' handlers run before it stops the
// actor (it used to stop at once, dropping them and the handler).
TEST(PersistentActorPoisonPillTest, WaitsForThePersistInFlight) {
  TestKit kit(kInMemConfig);
  ASSERT_OK(SetUpHoldingJournal(kit.Sys()));
  ActorRef t = kit.Sys().ActorOf(
      Props::Create<SelectionTarget>(kit.TestActor()), "target");
  kit.ExpectMsg<RecoveryCompleted>();
  kit.Watch(t);
  t.Tell(std::string("a"));
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "cmd a");
  ASSERT_TRUE(holding_journal->WaitUntilHeld(absl::Seconds(30)));
  t.Tell(std::string("b"));
  t.Tell(actor::PoisonPill{});
  holding_journal->ReleaseAll();
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "ev a");
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "cmd b");
  ASSERT_TRUE(holding_journal->WaitUntilHeld(absl::Seconds(30)));
  holding_journal->ReleaseAll();
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "ev b");
  kit.ExpectTerminated(t);
}

// The same during recovery: the commands that came before the PoisonPill
// are handled after the replay, then the actor stops.
TEST(PersistentActorPoisonPillTest, WaitsForTheRecovery) {
  TestKit kit(kInMemConfig);
  ASSERT_OK(SetUpHoldingJournal(kit.Sys()));
  ActorRef first = kit.Sys().ActorOf(
      Props::Create<SelectionTarget>(kit.TestActor()), "first");
  kit.ExpectMsg<RecoveryCompleted>();
  first.Tell(std::string("a"));
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "cmd a");
  ASSERT_TRUE(holding_journal->WaitUntilHeld(absl::Seconds(30)));
  holding_journal->ReleaseAll();
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "ev a");
  kit.Watch(first);
  kit.Sys().Stop(first);
  kit.ExpectTerminated(first);

  holding_journal->HoldReplays();
  ActorRef t = kit.Sys().ActorOf(
      Props::Create<SelectionTarget>(kit.TestActor()), "second");
  kit.Watch(t);
  ASSERT_TRUE(holding_journal->WaitUntilReplayHeld(absl::Seconds(30)));
  t.Tell(std::string("b"));
  t.Tell(actor::PoisonPill{});
  holding_journal->ReleaseReplays();
  kit.ExpectMsg<RecoveryCompleted>();
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "cmd b");
  ASSERT_TRUE(holding_journal->WaitUntilHeld(absl::Seconds(30)));
  holding_journal->ReleaseAll();
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "ev b");
  kit.ExpectTerminated(t);
}

// Starts a one-second timer with each command, then persists the command.
class TimedWriter final : public PersistentActor {
 public:
  explicit TimedWriter(ActorRef probe) : probe_(std::move(probe)) {
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
    Command<std::string>([this](const std::string& c) {
      probe_.Tell("cmd " + c);
      Timers().StartSingleTimer("t", Tick{}, absl::Seconds(1));
      Persist(c, [this](const std::string& e) { probe_.Tell("ev " + e); });
    });
    Command<Tick>([this](const Tick&) { probe_.Tell(std::string("tick")); });
  }
  std::string PersistenceId() const override { return "timed"; }
  std::string JournalPluginId() const override { return "holding"; }

 private:
  struct Tick {};
  ActorRef probe_;
};

// A timer's message that arrives while a persist is in flight waits in the
// persistent actor's stash like any command, and is handled after the
// event's handler: the stash holds the message itself, so it is not taken
// for a finished timer's (and dropped) when let out.
TEST(PersistentActorTimersTest, ATimerMessageDuringPersistIsStashedNotDropped) {
  actor::ManualClock clock;
  TestKit kit(kInMemConfig, &clock);
  ASSERT_OK(SetUpHoldingJournal(kit.Sys()));
  ActorRef t = kit.Sys().ActorOf(Props::Create<TimedWriter>(kit.TestActor()));
  kit.ExpectMsg<RecoveryCompleted>();
  t.Tell(std::string("a"));
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "cmd a");
  ASSERT_TRUE(holding_journal->WaitUntilHeld(absl::Seconds(30)));
  clock.Advance(absl::Seconds(1));  // the tick, while "a" is being written
  // Answered by the runtime once the tick before it was taken (stashed).
  t.Tell(actor::Identify{actor::AnyMessage::Of(1)});
  EXPECT_EQ(kit.ExpectMsg<actor::ActorIdentity>().subject, t);
  holding_journal->ReleaseAll();
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "ev a");
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "tick");
}

// A setup that registers journal plugin `id`: the in-memory journal
// wrapped in a `Wrapper` (a JournalWrapper).
template <typename Wrapper>
PersistenceSetup InMemoryWrappedIn(std::string id) {
  PersistenceSetup setup;
  setup.register_plugins = [id = std::move(id)](PluginRegistry& plugins) {
    return plugins.RegisterJournal(
        id,
        [](const PluginContext& context)
            -> absl::StatusOr<std::unique_ptr<Journal>> {
          return std::unique_ptr<Journal>(std::make_unique<Wrapper>(
              NewInMemoryJournal(context.serialization)));
        });
  };
  return setup;
}

std::atomic<int> hung_replays{0};

// A journal whose replays never answer (until it is destroyed): a store
// that hangs.
class HangingJournal final : public JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  ~HangingJournal() override {
    for (DoneCallback& done : hung_) {
      std::move(done)(absl::CancelledError("journal destroyed"));
    }
  }
  void AsyncReplayMessages(std::string, int64_t, int64_t, int64_t,
                           ReplayCallback, DoneCallback done) override {
    base::MutexLock lock(&mu_);
    hung_.push_back(std::move(done));
    hung_replays.fetch_add(1);
  }

 private:
  base::Mutex mu_;
  std::vector<DoneCallback> hung_ ABSL_GUARDED_BY(mu_);
};

class HangingRecorder final : public Recorder {
 public:
  using Recorder::Recorder;
  std::string JournalPluginId() const override { return "hanging"; }
};

TEST(PersistentActorTimeoutTest, ARecoveryThatGetsNothingTimesOut) {
  actor::ManualClock clock;
  TestKit kit(absl::StrCat(kInMemConfig, R"(
    akka.persistence.journal-plugin-fallback.recovery-event-timeout = 5s
  )"),
              &clock);
  ASSERT_OK(Persistence::Get(kit.Sys()).Setup(
      InMemoryWrappedIn<HangingJournal>("hanging")));
  ActorRef r = kit.Sys().ActorOf(
      Props::Create<HangingRecorder>("hang", kit.TestActor(), Recovery{}));
  kit.Watch(r);
  kit.AwaitCondition([] { return hung_replays.load() == 1; },
                     actor::testkit::kDefaultExpectTimeout, "replay hung");
  // The first tick sees that the snapshot load answered; the second sees
  // nothing since.
  clock.Advance(absl::Seconds(5));
  clock.Advance(absl::Seconds(5));
  Recorder::RecoveryFailed failed = kit.ExpectMsg<Recorder::RecoveryFailed>();
  EXPECT_NE(failed.message.find("recovery timed out"), std::string::npos)
      << failed.message;
  EXPECT_NE(failed.message.find("\"hang\""), std::string::npos)
      << failed.message;
  kit.ExpectTerminated(r);
  // A failed recovery is ticked no more.
  EXPECT_EQ(Persistence::Get(kit.Sys()).Watchdog().watched(), 0u);
}

std::atomic<int> silent_starts{0};

// A journal that never answers a recovery's start (until it is
// destroyed): nothing at all comes back. The start is its own call once
// the journal is open, the snapshot load and the highest read before.
class SilentJournal final : public JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  ~SilentJournal() override {
    const absl::Status gone = absl::CancelledError("journal destroyed");
    for (RecoveryStartCallback& done : starts_) {
      RecoveryStart start;
      start.snapshot = gone;
      std::move(done)(std::move(start));
    }
    for (HighestCallback& done : highests_) std::move(done)(gone);
  }
  void AsyncStartRecovery(RecoveryStartRequest, ReplayCallback,
                          RecoveryStartCallback done) override {
    base::MutexLock lock(&mu_);
    starts_.push_back(std::move(done));
    silent_starts.fetch_add(1);
  }
  void AsyncReadHighestSequenceNr(std::string, int64_t,
                                  HighestCallback done) override {
    base::MutexLock lock(&mu_);
    highests_.push_back(std::move(done));
    silent_starts.fetch_add(1);
  }

 private:
  base::Mutex mu_;
  std::vector<RecoveryStartCallback> starts_ ABSL_GUARDED_BY(mu_);
  std::vector<HighestCallback> highests_ ABSL_GUARDED_BY(mu_);
};

class SilentRecorder final : public Recorder {
 public:
  using Recorder::Recorder;
  std::string JournalPluginId() const override { return "silent"; }
};

// One watchdog ticks every recovery of a timeout (recovery_watchdog.h): a
// recovery that starts just before a tick lets that tick pass, and fails
// at the next one that finds nothing since.
TEST(PersistentActorTimeoutTest, ARecoveryStartedJustBeforeATickIsNotCutShort) {
  actor::ManualClock clock;
  TestKit kit(absl::StrCat(kInMemConfig, R"(
    akka.persistence.journal-plugin-fallback.recovery-event-timeout = 5s
  )"),
              &clock);
  ASSERT_OK(Persistence::Get(kit.Sys()).Setup(
      InMemoryWrappedIn<SilentJournal>("silent")));
  const int before = silent_starts.load();
  ActorRef first = kit.Sys().ActorOf(
      Props::Create<SilentRecorder>("first", kit.TestActor(), Recovery{}));
  kit.AwaitCondition([&] { return silent_starts.load() == before + 1; },
                     actor::testkit::kDefaultExpectTimeout, "first started");
  clock.Advance(absl::Milliseconds(4900));
  ActorRef second = kit.Sys().ActorOf(
      Props::Create<SilentRecorder>("second", kit.TestActor(), Recovery{}));
  kit.AwaitCondition([&] { return silent_starts.load() == before + 2; },
                     actor::testkit::kDefaultExpectTimeout, "second started");
  EXPECT_EQ(Persistence::Get(kit.Sys()).Watchdog().watched(), 2u);
  kit.Watch(first);
  kit.Watch(second);
  // The tick: 5 s after the first recovery began, 0.1 s after the second.
  // Neither fails at it: both are still there after it.
  clock.Advance(absl::Milliseconds(100));
  for (const ActorRef& r : {first, second}) {
    r.Tell(actor::Identify{actor::AnyMessage::Of(1)}, kit.TestActor());
    EXPECT_EQ(kit.ExpectMsg<actor::ActorIdentity>().subject, r);
  }
  // The next tick finds nothing since: both fail and stop (their
  // messages in any order).
  clock.Advance(absl::Seconds(5));
  int failures = 0;
  std::vector<ActorRef> terminated;
  for (const actor::AnyMessage& m : kit.ReceiveN(4)) {
    if (const auto* failed = m.As<Recorder::RecoveryFailed>()) {
      ++failures;
      EXPECT_NE(failed->message.find("recovery timed out"), std::string::npos)
          << failed->message;
    } else if (const auto* t = m.As<actor::Terminated>()) {
      terminated.push_back(t->actor);
    }
  }
  EXPECT_EQ(failures, 2);
  EXPECT_TRUE((terminated == std::vector<ActorRef>{first, second}) ||
              (terminated == std::vector<ActorRef>{second, first}));
  EXPECT_EQ(Persistence::Get(kit.Sys()).Watchdog().watched(), 0u);
}

TEST(PersistentActorTimeoutTest, ARecoveryThatEndsIsTickedNoMore) {
  TestKit kit(kInMemConfig);
  ASSERT_OK(Persistence::Get(kit.Sys()).Setup(
      InMemoryWrappedIn<SilentJournal>("silent")));
  internal::RecoveryWatchdog& watchdog = Persistence::Get(kit.Sys()).Watchdog();
  // Recovered.
  kit.Sys().ActorOf(Props::Create<Recorder>("done", kit.TestActor()));
  kit.ExpectMsg<RecoveryCompleted>();
  EXPECT_EQ(watchdog.watched(), 0u);
  // Stopped while it recovers.
  const int before = silent_starts.load();
  ActorRef stopped = kit.Sys().ActorOf(
      Props::Create<SilentRecorder>("stopped", kit.TestActor(), Recovery{}));
  kit.AwaitCondition([&] { return silent_starts.load() == before + 1; },
                     actor::testkit::kDefaultExpectTimeout, "started");
  EXPECT_EQ(watchdog.watched(), 1u);
  kit.Watch(stopped);
  kit.Sys().Stop(stopped);
  kit.ExpectTerminated(stopped);
  EXPECT_EQ(watchdog.watched(), 0u);
}

}  // namespace
}  // namespace cairn::persistence
