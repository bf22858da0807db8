// The actor package's side of remoting (remote_transport.h), against a
// transport that records what it is asked to carry: addresses in paths,
// resolving paths to local refs, refs to actors elsewhere (one per path),
// Ask replies through an exposed temporary ref, selections and DeathWatch
// across the boundary.
#include "actor/remote_transport.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/testkit/test_probe.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::actor {
namespace {

using testkit::TestProbe;

const Address kHere("remote-test", "127.0.0.1", 25520);
const Address kThere("other", "127.0.0.1", 25521);

struct Sent {
  std::string kind;  // "tell", "selection", "watch", "unwatch", "dwn"
  ActorPath to;
  AnyMessage message;
  ActorRef ref;  // the sender, the watcher, or the subject
  std::vector<std::string> elements;
};

// What the fake transport was asked to carry, for the test to read.
class Wire {
 public:
  void Add(Sent sent) {
    base::MutexLock lock(&mu_);
    sent_.push_back(std::move(sent));
  }
  std::vector<Sent> Taken() {
    base::MutexLock lock(&mu_);
    return std::move(sent_);
  }
  // Waits until something of `kind` was carried; returns it.
  Sent Await(const std::string& kind) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    base::MutexLock lock(&mu_);
    while (true) {
      for (auto it = sent_.begin(); it != sent_.end(); ++it) {
        if (it->kind == kind) {
          Sent found = std::move(*it);
          sent_.erase(it);
          return found;
        }
      }
      if (changed_.WaitWithDeadline(&mu_, deadline)) {
        ADD_FAILURE() << "nothing of kind " << kind << " was sent";
        return Sent{kind, ActorPath("none", {}), {}, {}, {}};
      }
    }
  }
  void Notify() { changed_.SignalAll(); }

 private:
  base::Mutex mu_;
  base::CondVar changed_;
  std::vector<Sent> sent_ ABSL_GUARDED_BY(mu_);
};

class FakeExternalRef final : public ExternalRef {
 public:
  FakeExternalRef(Wire* wire, ActorPath path, std::atomic<int>* made)
      : wire_(wire), path_(std::move(path)) {
    ++*made;
  }
  void Send(const AnyMessage& message, const ActorRef& sender) override {
    Record({"tell", path_, message, sender, {}});
  }
  void SendSelection(std::vector<std::string> elements,
                     const AnyMessage& message,
                     const ActorRef& sender) override {
    Record({"selection", path_, message, sender, std::move(elements)});
  }
  void Watch(const ActorRef& watcher) override {
    Record({"watch", path_, {}, watcher, {}});
  }
  void Unwatch(const ActorRef& watcher) override {
    Record({"unwatch", path_, {}, watcher, {}});
  }
  void DeathWatchNotification(const ActorRef& subject, bool) override {
    Record({"dwn", path_, {}, subject, {}});
  }
  bool IsTerminated() const override { return false; }

 private:
  void Record(Sent sent) {
    wire_->Add(std::move(sent));
    wire_->Notify();
  }
  Wire* const wire_;
  const ActorPath path_;
};

struct FakeState {
  Wire wire;
  std::atomic<int> made{0};  // FakeExternalRefs made (on any thread)
  bool started = false;
  bool shut_down = false;
  absl::Status start_result = absl::OkStatus();
  bool add_shutdown_task = false;  // Start adds a coordinated-shutdown task
  std::atomic<bool> shutdown_task_ran{false};
};
FakeState* state = nullptr;

class FakeTransport final : public RemoteTransport {
 public:
  explicit FakeTransport(ActorSystem& system) : system_(system) {}
  const Address& address() const override { return kHere; }
  uint64_t uid() const override { return 7; }
  absl::Status Start() override {
    state->started = true;
    if (state->add_shutdown_task) {
      FakeState* s = state;
      absl::Status added = system_.GetCoordinatedShutdown().AddTask(
          "before-service-unbind", "fake-transport",
          std::function<void()>([s] { s->shutdown_task_ran = true; }));
      if (!added.ok()) return added;
    }
    return state->start_result;
  }
  ActorRef ResolveRef(const ActorPath& path) override {
    return system_.ExternalActorRef(path, [&path] {
      return std::make_shared<FakeExternalRef>(&state->wire, path,
                                               &state->made);
    });
  }
  void Shutdown() override { state->shut_down = true; }

 private:
  ActorSystem& system_;
};

[[maybe_unused]] const bool kRegistered = RemoteTransports::Add(
    "fake",
    [](ActorSystem& system)
        -> absl::StatusOr<std::unique_ptr<RemoteTransport>> {
      return std::make_unique<FakeTransport>(system);
    });

class Echo final : public Actor {
 public:
  Echo() {
    Receive<std::string>([this](const std::string& s) { Sender().Tell(s); });
  }
};

class RemoteTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state = &state_;
    absl::StatusOr<hocon::Config> config =
        hocon::Config::ParseString("akka.actor.provider = fake");
    ASSERT_OK(config);
    absl::StatusOr<std::unique_ptr<ActorSystem>> system =
        ActorSystem::Create("remote-test", *config);
    ASSERT_OK(system);
    system_ = *std::move(system);
  }
  void TearDown() override {
    system_.reset();
    state = nullptr;
  }

  ActorRef There(std::vector<std::string> elements, int64_t uid = 0) {
    return system_->ResolveActorRef(
        ActorPath(kThere, std::move(elements), uid));
  }

  FakeState state_;
  std::unique_ptr<ActorSystem> system_;
};

TEST_F(RemoteTransportTest, EveryPathCarriesTheTransportsAddress) {
  EXPECT_TRUE(state_.started);
  EXPECT_EQ(system_->address(), kHere);
  EXPECT_EQ(system_->Uid(), 7u);  // the transport's incarnation
  ActorRef echo = system_->ActorOf(Props::Create<Echo>(), "echo");
  EXPECT_EQ(echo.Path().ToString(),
            "akka://remote-test@127.0.0.1:25520/user/echo");
  EXPECT_EQ(system_->DeadLetters().Path().ToString(),
            "akka://remote-test@127.0.0.1:25520/deadLetters");
}

TEST_F(RemoteTransportTest, ALocalPathResolvesToItsActorAndOnlyItsIncarnation) {
  ActorRef echo = system_->ActorOf(Props::Create<Echo>(), "echo");
  const ActorPath path = echo.Path();
  EXPECT_EQ(system_->ResolveActorRef(path), echo);
  EXPECT_EQ(system_->ResolveActorRef(path.WithUid(0)), echo);
  // The same path parsed from text, as it arrives from another system.
  absl::StatusOr<ActorPath> parsed = ActorPath::Parse(path.ToStringWithUid());
  ASSERT_OK(parsed);
  EXPECT_EQ(system_->ResolveActorRef(*parsed), echo);
  // Another incarnation, or no actor: a ref that keeps the path, whose
  // messages are dead letters.
  for (const ActorPath& gone :
       {path.WithUid(path.uid() + 1), path.Child("nobody")}) {
    ActorRef missing = system_->ResolveActorRef(gone);
    EXPECT_NE(missing, echo);
    EXPECT_TRUE(missing.impl()->IsTerminated());
    EXPECT_EQ(missing.Path().ToStringWithUid(), gone.ToStringWithUid());
  }
  // A path without host in this system's name is this system's.
  EXPECT_EQ(
      system_->ResolveActorRef(ActorPath("remote-test", {"user", "echo"})),
      echo);
}

TEST_F(RemoteTransportTest, AMessageToAPathWithNoActorIsADeadLetterNamingIt) {
  TestProbe listener(*system_);
  system_->EventStream().Subscribe<DeadLetter>(listener.Ref());
  const ActorPath gone(kHere, {"user", "gone"});
  system_->ResolveActorRef(gone).Tell(std::string("lost"));
  DeadLetter letter = listener.ExpectMsg<DeadLetter>();
  EXPECT_EQ(letter.recipient.Path(), gone);
  ASSERT_NE(letter.message.As<std::string>(), nullptr);
}

TEST_F(RemoteTransportTest, ARemoteWatchOfAPathWithNoActorIsAnsweredAtOnce) {
  ActorRef watcher = There({"user", "watcher"}, 5);
  const ActorPath gone(kHere, {"user", "gone"}, 77);
  DeliverWatch(system_->ResolveActorRef(gone), watcher);
  Sent dwn = state_.wire.Await("dwn");
  EXPECT_EQ(dwn.to, ActorPath(kThere, {"user", "watcher"}));
  // The notification names the path that was watched, so the watcher
  // over there recognizes its ref.
  EXPECT_EQ(dwn.ref.Path().ToStringWithUid(), gone.ToStringWithUid());
}

TEST_F(RemoteTransportTest, AnotherSystemWithoutHostIsUnreachable) {
  ActorRef other = system_->ResolveActorRef(ActorPath("other", {"user", "x"}));
  EXPECT_TRUE(other.impl()->IsTerminated());
  other.Tell(std::string("nowhere"));
  EXPECT_EQ(state_.made.load(), 0);  // the transport was not asked
}

TEST_F(RemoteTransportTest, AnotherSystemsPathGivesOneRefWhileAnyLives) {
  ActorRef a = There({"user", "x"}, 7);
  ActorRef b = There({"user", "x"}, 7);
  EXPECT_EQ(a, b);
  EXPECT_EQ(state_.made.load(), 1);
  EXPECT_EQ(a.Path(), ActorPath(kThere, {"user", "x"}));
  EXPECT_NE(There({"user", "x"}, 8), a);  // another incarnation
  EXPECT_EQ(state_.made.load(), 2);
  a = ActorRef();
  b = ActorRef();
  There({"user", "x"}, 7);  // the index held none of them: made anew
  EXPECT_EQ(state_.made.load(), 3);
}

TEST_F(RemoteTransportTest,
       ThreadsResolvingAndDroppingOnePathAgreeAndLeakNothing) {
  // While one ref lives, every resolve gives that one; with none held,
  // refs are made and dropped under the racing threads (ASan and TSan
  // check that a lookup never touches one being destroyed).
  ActorRef held = There({"user", "hot"}, 1);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        if (There({"user", "hot"}, 1) != held) ++mismatches;
        There({"user", "cold"}, 1);  // made, then dropped at once
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(RemoteTransportTest, TellToAnotherSystemGoesToTheTransportWithSender) {
  TestProbe probe(*system_);
  ActorRef there = There({"user", "x"});
  there.Tell(std::string("hello"), probe.Ref());
  Sent sent = state_.wire.Await("tell");
  EXPECT_EQ(sent.to, ActorPath(kThere, {"user", "x"}));
  ASSERT_NE(sent.message.As<std::string>(), nullptr);
  EXPECT_EQ(*sent.message.As<std::string>(), "hello");
  EXPECT_EQ(sent.ref, probe.Ref());
}

TEST_F(RemoteTransportTest, AnAskAnsweredFromAnotherSystemCompletes) {
  Future<std::string> reply = Ask<std::string>(
      There({"user", "x"}), std::string("q"), absl::Seconds(10));
  Sent sent = state_.wire.Await("tell");
  // What the transport does with the sender: its exposed path crosses;
  // the reply comes back to that path.
  const ActorPath exposed = system_->ExposedPath(sent.ref);
  EXPECT_EQ(exposed.address(), kHere);
  ASSERT_EQ(exposed.elements().size(), 2u);
  EXPECT_EQ(exposed.elements()[0], "temp");
  absl::StatusOr<ActorPath> parsed = ActorPath::Parse(exposed.ToString());
  ASSERT_OK(parsed);
  ActorRef back = system_->ResolveActorRef(*parsed);
  EXPECT_EQ(back, sent.ref);
  back.Tell(std::string("answer"));
  EXPECT_EQ(reply.get(), "answer");
}

TEST_F(RemoteTransportTest,
       AnAsksTempRefIsFoundOnlyOnceExposedAndWhileItLives) {
  Future<std::string> reply = Ask<std::string>(
      There({"user", "x"}), std::string("q"), absl::Seconds(10));
  Sent sent = state_.wire.Await("tell");
  const ActorPath path = sent.ref.Path();
  ASSERT_EQ(path.elements().size(), 2u);
  ASSERT_EQ(path.elements()[0], "temp");
  // Not handed out yet: nothing answers to the path.
  EXPECT_NE(system_->ResolveActorRef(path), sent.ref);
  EXPECT_EQ(system_->ExposedPath(sent.ref), path);
  EXPECT_EQ(system_->ExposedPath(sent.ref), path);  // twice: the same
  EXPECT_EQ(system_->ResolveActorRef(path), sent.ref);
  sent.ref.Tell(std::string("done"));
  EXPECT_EQ(reply.get(), "done");
  sent.ref = ActorRef();  // the test's; the ask has let go of its own
  EXPECT_TRUE(system_->ResolveActorRef(path).impl()->IsTerminated());
}

TEST_F(RemoteTransportTest, ResolveOneAcrossSystemsSendsIdentifyOverThere) {
  ActorSelection selection =
      system_->ActorSelection("akka://other@127.0.0.1:25521/user/a");
  Future<ActorRef> found = selection.ResolveOne(absl::Seconds(10));
  Sent sent = state_.wire.Await("selection");
  EXPECT_EQ(sent.elements, (std::vector<std::string>{"user", "a"}));
  const Identify* identify = sent.message.As<Identify>();
  ASSERT_NE(identify, nullptr);
  // The answer, as the transport brings it back to the exposed asker.
  ActorRef a = There({"user", "a"}, 9);
  system_->ResolveActorRef(system_->ExposedPath(sent.ref))
      .Tell(ActorIdentity{identify->message_id, a});
  EXPECT_EQ(found.get(), a);
}

TEST_F(RemoteTransportTest, ASelectionOfAnotherSystemIsFollowedOverThere) {
  TestProbe probe(*system_);
  system_->ActorSelection("akka://other@127.0.0.1:25521/user/a/*")
      .Tell(std::string("to all"), probe.Ref());
  Sent sent = state_.wire.Await("selection");
  EXPECT_EQ(sent.to, ActorPath(kThere, {}));
  EXPECT_EQ(sent.elements, (std::vector<std::string>{"user", "a", "*"}));
  ASSERT_NE(sent.message.As<std::string>(), nullptr);
  EXPECT_EQ(sent.ref, probe.Ref());
}

TEST_F(RemoteTransportTest, ASelectionOfThisSystemsFullAddressStaysHere) {
  TestProbe probe(*system_);
  system_->ActorOf(Props::Create<Echo>(), "echo");
  system_->ActorSelection("akka://remote-test@127.0.0.1:25520/user/echo")
      .Tell(std::string("ping"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(), "ping");
}

TEST_F(RemoteTransportTest, WatchingAnotherSystemsActorGoesToTheTransport) {
  TestProbe probe(*system_);
  ActorRef there = There({"user", "x"}, 3);
  probe.Watch(there);
  Sent watch = state_.wire.Await("watch");
  EXPECT_EQ(watch.ref, probe.Ref());
  // The transport learns it stopped (or its system is unreachable).
  DeliverDeathWatchNotification(probe.Ref(), there, true, true);
  Terminated t = probe.ExpectTerminated(there);
  EXPECT_TRUE(t.address_terminated);
}

TEST_F(RemoteTransportTest, UnwatchingAnotherSystemsActorGoesToTheTransport) {
  TestProbe probe(*system_);
  ActorRef there = There({"user", "x"}, 3);
  probe.Watch(there);
  state_.wire.Await("watch");
  probe.Unwatch(there);
  Sent unwatch = state_.wire.Await("unwatch");
  EXPECT_EQ(unwatch.ref, probe.Ref());
}

TEST_F(RemoteTransportTest, ARemoteWatcherThatUnwatchedIsNotToldOfTheStop) {
  ActorRef echo = system_->ActorOf(Props::Create<Echo>(), "echo");
  ActorRef kept = There({"user", "kept"}, 5);
  ActorRef gone = There({"user", "gone"}, 6);
  DeliverWatch(echo, kept);
  DeliverWatch(echo, gone);
  DeliverUnwatch(echo, gone);
  system_->Stop(echo);
  Sent dwn = state_.wire.Await("dwn");
  EXPECT_EQ(dwn.to, ActorPath(kThere, {"user", "kept"}));
  system_->Terminate().wait();
  for (const Sent& s : state_.wire.Taken()) {
    EXPECT_FALSE(s.kind == "dwn" && s.to == gone.Path()) << "told " << s.to;
  }
}

TEST_F(RemoteTransportTest, ARemoteWatcherOfALocalActorIsToldWhenItStops) {
  ActorRef echo = system_->ActorOf(Props::Create<Echo>(), "echo");
  ActorRef watcher = There({"user", "watcher"}, 5);
  DeliverWatch(echo, watcher);
  system_->Stop(echo);
  Sent dwn = state_.wire.Await("dwn");
  EXPECT_EQ(dwn.to, ActorPath(kThere, {"user", "watcher"}));
  EXPECT_EQ(dwn.ref, echo);
}

TEST_F(RemoteTransportTest, TheTransportIsShutDownWhenTheSystemEnds) {
  EXPECT_FALSE(state_.shut_down);
  system_->Terminate().wait();
  EXPECT_TRUE(state_.shut_down);
}

TEST(RemoteTransportCreateTest,
     AProviderNobodyLinkedFailsCreateSayingWhatToLink) {
  absl::StatusOr<hocon::Config> config =
      hocon::Config::ParseString("akka.actor.provider = remote");
  ASSERT_OK(config);
  absl::StatusOr<std::unique_ptr<ActorSystem>> system =
      ActorSystem::Create("x", *config);
  ASSERT_FALSE(system.ok());
  EXPECT_EQ(system.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(system.status().message().find("//remote:registration"),
            std::string::npos)
      << system.status();
}

TEST(RemoteTransportCreateTest, ATransportOfAnotherSystemsAddressFailsCreate) {
  FakeState other;
  state = &other;
  absl::StatusOr<hocon::Config> config =
      hocon::Config::ParseString("akka.actor.provider = fake");
  ASSERT_OK(config);
  absl::StatusOr<std::unique_ptr<ActorSystem>> system =
      ActorSystem::Create("x", *config);
  ASSERT_FALSE(system.ok());
  EXPECT_NE(system.status().message().find("not one of system 'x'"),
            std::string::npos)
      << system.status();
  EXPECT_TRUE(other.shut_down);
  state = nullptr;
}

TEST(RemoteTransportCreateTest, ATransportThatFailsToStartFailsCreate) {
  FakeState failing;
  failing.start_result = absl::UnavailableError("port taken");
  failing.add_shutdown_task = true;
  state = &failing;
  absl::StatusOr<hocon::Config> config =
      hocon::Config::ParseString("akka.actor.provider = fake");
  ASSERT_OK(config);
  absl::StatusOr<std::unique_ptr<ActorSystem>> system =
      ActorSystem::Create("remote-test", *config);
  EXPECT_EQ(system.status(), absl::UnavailableError("port taken"));
  EXPECT_TRUE(failing.shut_down);
  // Coordinated shutdown's phases did not run: the transport's own task
  // would have found it stopped.
  EXPECT_FALSE(failing.shutdown_task_ran);
  state = nullptr;
}

}  // namespace
}  // namespace cairn::actor
