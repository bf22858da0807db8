// Remote DeathWatch between two systems in one process over loopback: a
// watcher gets Terminated when the remote actor stops, when it was never
// there, when its system shuts down, and when its system cannot be
// reached (the failure detector, on a manual clock); a restarted system
// is a new incarnation, and refs to the old one are dead.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/clock.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "actor/testkit/test_probe.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::remote {
namespace {

using actor::ActorRef;
using actor::ActorSystem;
using actor::Props;
using actor::testkit::TestProbe;

constexpr absl::Duration kTimeout = absl::Seconds(10);

absl::StatusOr<std::unique_ptr<ActorSystem>> MakeSystem(
    const std::string& name, int port = 0, actor::Clock* clock = nullptr,
    const std::string& extra = "") {
  absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(
      absl::StrCat("akka.actor.provider = remote\n"
                   "akka.remote.artery.canonical.port = ",
                   port, "\n", extra));
  if (!config.ok()) return config.status();
  actor::ActorSystemOptions options;
  options.clock = clock;
  return ActorSystem::Create(name, *config, std::move(options));
}

class Echo final : public actor::Actor {
 public:
  Echo() {
    Receive<std::string>([this](const std::string& s) { Sender().Tell(s); });
  }
};

// `ref`'s actor as `from` reaches it: resolved from its path in text.
ActorRef Remote(ActorSystem& from, const ActorRef& ref) {
  absl::StatusOr<actor::ActorPath> path =
      actor::ActorPath::Parse(ref.Path().ToStringWithUid());
  EXPECT_OK(path);
  return from.ResolveActorRef(*path);
}

// A round trip to the echo at `remote` after a watch of it: the watch, a
// system message, is in place over there before the test stops the actor
// (they travel in one stream, in order).
void RoundTrip(TestProbe& watcher, const ActorRef& remote) {
  remote.Tell(std::string("ping"), watcher.Ref());
  EXPECT_EQ(watcher.ExpectMsg<std::string>(kTimeout), "ping");
}

class DeathWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<ActorSystem>> a = MakeSystem("alpha");
    ASSERT_OK(a);
    alpha_ = *std::move(a);
    absl::StatusOr<std::unique_ptr<ActorSystem>> b = MakeSystem("beta");
    ASSERT_OK(b);
    beta_ = *std::move(b);
  }
  void TearDown() override {
    if (alpha_ != nullptr) alpha_->Terminate().wait();
    if (beta_ != nullptr) beta_->Terminate().wait();
  }

  std::unique_ptr<ActorSystem> alpha_;
  std::unique_ptr<ActorSystem> beta_;
};

TEST_F(DeathWatchTest, TerminatedComesWhenTheRemoteActorStops) {
  ActorRef echo = beta_->ActorOf(Props::Create<Echo>(), "echo");
  ActorRef remote = Remote(*alpha_, echo);
  TestProbe watcher(*alpha_);
  watcher.Watch(remote);
  RoundTrip(watcher, remote);
  beta_->Stop(echo);
  actor::Terminated t = watcher.ExpectTerminated(remote, kTimeout);
  EXPECT_TRUE(t.existence_confirmed);
  EXPECT_FALSE(t.address_terminated);
}

TEST_F(DeathWatchTest, AWatchOfNothingThereIsAnsweredAtOnce) {
  absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(
      absl::StrCat(beta_->address().ToString(), "/user/nobody"));
  ASSERT_OK(path);
  ActorRef nobody = alpha_->ResolveActorRef(*path);
  TestProbe watcher(*alpha_);
  watcher.Watch(nobody);
  actor::Terminated t = watcher.ExpectTerminated(nobody, kTimeout);
  EXPECT_FALSE(t.existence_confirmed);
}

TEST_F(DeathWatchTest, AnActorElsewhereWatchesALocalOne) {
  // Beta's probe watches alpha's actor: the notification crosses back.
  ActorRef echo = alpha_->ActorOf(Props::Create<Echo>(), "echo");
  ActorRef remote = Remote(*beta_, echo);
  TestProbe watcher(*beta_);
  watcher.Watch(remote);
  RoundTrip(watcher, remote);
  alpha_->Stop(echo);
  EXPECT_TRUE(watcher.ExpectTerminated(remote, kTimeout).existence_confirmed);
}

TEST_F(DeathWatchTest, AnUnwatchedActorsStopIsNotReported) {
  ActorRef first = beta_->ActorOf(Props::Create<Echo>(), "first");
  ActorRef second = beta_->ActorOf(Props::Create<Echo>(), "second");
  ActorRef remote_first = Remote(*alpha_, first);
  ActorRef remote_second = Remote(*alpha_, second);
  TestProbe watcher(*alpha_);
  watcher.Watch(remote_first);
  watcher.Unwatch(remote_first);
  watcher.Watch(remote_second);
  RoundTrip(watcher, remote_second);
  beta_->Stop(first);
  beta_->Stop(second);
  // Both stops are reported in one stream, in order: had the first come
  // through, it would be here before the second.
  EXPECT_EQ(watcher.ExpectMsg<actor::Terminated>(kTimeout).actor,
            remote_second);
}

TEST_F(DeathWatchTest, ASystemShuttingDownTellsTheWatchersOfItsActors) {
  ActorRef echo = beta_->ActorOf(Props::Create<Echo>(), "echo");
  ActorRef remote = Remote(*alpha_, echo);
  TestProbe watcher(*alpha_);
  watcher.Watch(remote);
  RoundTrip(watcher, remote);
  beta_->Terminate().wait();
  beta_.reset();
  watcher.ExpectTerminated(remote, kTimeout);
}

TEST_F(DeathWatchTest, ARestartedSystemIsANewIncarnation) {
  ActorRef echo = beta_->ActorOf(Props::Create<Echo>(), "echo");
  ActorRef old_echo = Remote(*alpha_, echo);
  TestProbe probe(*alpha_);
  old_echo.Tell(std::string("ping"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "ping");
  const int port = beta_->address().port();
  const int64_t old_uid = echo.Path().uid();
  echo = ActorRef();  // of a system about to be destroyed
  beta_->Terminate().wait();
  beta_.reset();

  // The same name at the same port: another incarnation.
  absl::StatusOr<std::unique_ptr<ActorSystem>> again = MakeSystem("beta", port);
  ASSERT_OK(again);
  beta_ = *std::move(again);
  beta_->ActorOf(Props::Create<Echo>(), "echo");
  TestProbe dead(*beta_);
  beta_->EventStream().Subscribe<actor::DeadLetter>(dead.Ref());

  // The new one is reached by its path (delivery is at-most-once: what
  // alpha sent while it still took the old incarnation for there is
  // lost, so it asks until it is answered)...
  ActorRef new_echo;
  const absl::Time deadline = absl::Now() + kTimeout;
  while (new_echo.IsNobody() && absl::Now() < deadline) {
    try {
      new_echo = alpha_
                     ->ActorSelection(absl::StrCat(beta_->address().ToString(),
                                                   "/user/echo"))
                     .ResolveOne(absl::Milliseconds(500))
                     .get();
    } catch (const std::runtime_error&) {
    }
  }
  ASSERT_FALSE(new_echo.IsNobody());
  EXPECT_NE(new_echo, old_echo);
  new_echo.Tell(std::string("again"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "again");
  // ...and a ref to the old one is dead: its uid names nobody there.
  old_echo.Tell(std::string("to the old one"), probe.Ref());
  actor::DeadLetter letter = dead.FishForMessage<actor::DeadLetter>(
      [](const actor::DeadLetter& d) {
        const std::string* s = d.message.As<std::string>();
        return s != nullptr && *s == "to the old one";
      },
      kTimeout);
  EXPECT_EQ(letter.recipient.Path().uid(), old_uid);
}

// The failure detector on a manual clock: a system that never answers
// (nothing listens at its port) is declared unreachable once phi passes
// the threshold, and the watchers of its actors get Terminated with
// address_terminated.
TEST(DeathWatchDetectorTest, AnUnreachableSystemsActorsAreReportedTerminated) {
  actor::ManualClock clock(absl::Now());
  absl::StatusOr<std::unique_ptr<ActorSystem>> alpha =
      MakeSystem("alpha", 0, &clock);
  ASSERT_OK(alpha);
  // A port nothing listens on: one a system had, and gave back.
  int port = 0;
  {
    absl::StatusOr<std::unique_ptr<ActorSystem>> gone = MakeSystem("gone");
    ASSERT_OK(gone);
    port = (*gone)->address().port();
    (*gone)->Terminate().wait();
  }
  absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(
      absl::StrCat("akka://gone@127.0.0.1:", port, "/user/x#42"));
  ASSERT_OK(path);
  {
    ActorRef remote = (*alpha)->ResolveActorRef(*path);
    TestProbe watcher(**alpha);
    watcher.Watch(remote);
    // Heartbeats every second, never answered: with Akka's defaults
    // (acceptable pause 10 s) phi passes 10 within half a minute.
    for (int s = 0; s < 60; ++s) clock.Advance(absl::Seconds(1));
    actor::Terminated t = watcher.ExpectTerminated(remote, kTimeout);
    EXPECT_TRUE(t.address_terminated);
    EXPECT_FALSE(t.existence_confirmed);
  }
  (*alpha)->Terminate().wait();
}

// A system quarantined once (it shut down) and watched again afterwards,
// through a ref kept from before: the new watch is answered too, by the
// failure detector, since nothing answers at that address any more.
TEST(DeathWatchDetectorTest, AWatchAfterTheSystemWasQuarantinedIsAnswered) {
  actor::ManualClock clock(absl::Now());
  absl::StatusOr<std::unique_ptr<ActorSystem>> alpha =
      MakeSystem("alpha", 0, &clock);
  ASSERT_OK(alpha);
  absl::StatusOr<std::unique_ptr<ActorSystem>> beta = MakeSystem("beta");
  ASSERT_OK(beta);
  {
    ActorRef echo = (*beta)->ActorOf(Props::Create<Echo>(), "echo");
    ActorRef remote = Remote(**alpha, echo);
    echo = ActorRef();
    TestProbe probe(**alpha);
    remote.Tell(std::string("ping"), probe.Ref());
    EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "ping");
    // Beta says it is shutting down: alpha quarantines it.
    (*beta)->Terminate().wait();
    beta->reset();

    TestProbe watcher(**alpha);
    watcher.Watch(remote);
    for (int s = 0; s < 60; ++s) clock.Advance(absl::Seconds(1));
    EXPECT_TRUE(watcher.ExpectTerminated(remote, kTimeout).address_terminated);
  }
  (*alpha)->Terminate().wait();
}

// Watches made faster than they can be written (here before the
// handshake is answered) go in as many frames as they need, each within
// maximum-frame-size (the smallest, 32 KiB, and long names: a few dozen
// watches fill a frame): every one is answered.
TEST(DeathWatchFrameTest, ThousandsOfWatchesAtOnceAreAllAnswered) {
  const std::string small =
      "akka.remote.artery.advanced.maximum-frame-size = 32KiB\n";
  absl::StatusOr<std::unique_ptr<ActorSystem>> alpha =
      MakeSystem("alpha", 0, nullptr, small);
  ASSERT_OK(alpha);
  absl::StatusOr<std::unique_ptr<ActorSystem>> beta =
      MakeSystem("beta", 0, nullptr, small);
  ASSERT_OK(beta);
  {
    constexpr int kWatches = 2000;
    const std::string name(1000, 'n');
    TestProbe watcher(**alpha);
    for (int i = 0; i < kWatches; ++i) {
      absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(
          absl::StrCat((*beta)->address().ToString(), "/user/", name, i));
      ASSERT_OK(path);
      watcher.Watch((*alpha)->ResolveActorRef(*path));
    }
    for (int i = 0; i < kWatches; ++i) {
      actor::Terminated t = watcher.ExpectMsg<actor::Terminated>(kTimeout);
      EXPECT_FALSE(t.existence_confirmed);
    }
  }
  (*alpha)->Terminate().wait();
  (*beta)->Terminate().wait();
}

}  // namespace
}  // namespace cairn::remote
