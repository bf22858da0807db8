#include "actor/ask.h"

#include <memory>
#include <stdexcept>
#include <string>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

struct Get {};
struct Fail {};

class Counter final : public Actor {
 public:
  Counter() {
    Receive<int>([this](int x) { state_ = x; });
    Receive<Get>([this](const Get&) { Sender().Tell(state_, Self()); });
    Receive<Fail>([this](const Fail&) {
      Sender().Tell(
          StatusFailure{std::make_exception_ptr(std::invalid_argument("no"))});
    });
    Receive<std::string>([](const std::string&) { /* never replies */ });
  }

 private:
  int state_ = 0;
};

TEST(AskTest, TheDesignExampleWorks) {
  TestKit kit;
  ActorRef c = kit.Sys().ActorOf(Props::Create<Counter>(), "counter");
  c.Tell(42);
  int v = Ask<int>(c, Get{}, absl::Seconds(3)).get();
  EXPECT_EQ(v, 42);
}

// Answers the ActorRef inside the message, not the sender.
struct Where {
  ActorRef reply_to;
};
class Forwarder final : public Actor {
 public:
  Forwarder() {
    Receive<Where>(
        [](const Where& w) { w.reply_to.Tell(std::string("here")); });
  }
};

TEST(AskTest, AMessageCanCarryTheAskersReference) {
  TestKit kit;
  ActorRef f = kit.Sys().ActorOf(Props::Create<Forwarder>());
  Future<std::string> answer = AskWithReplyTo<std::string>(
      f, [](const ActorRef& reply_to) { return Where{reply_to}; },
      absl::Seconds(3));
  EXPECT_EQ(answer.get(), "here");
}

TEST(AskTest, TimesOutOnTheSchedulerClock) {
  ManualClock clock;
  TestKit kit(TestKit::Deterministic{.clock = &clock});
  ActorRef c = kit.Sys().ActorOf(Props::Create<Counter>());
  Future<int> f = Ask<int>(c, std::string("silence"), absl::Seconds(5));
  clock.Advance(absl::Seconds(4));
  kit.DispatchAll();
  EXPECT_FALSE(f.is_ready());
  clock.Advance(absl::Seconds(1));
  EXPECT_THROW(f.get(), AskTimeoutException);
}

TEST(AskTest, AStatusFailureReplyFailsTheFuture) {
  TestKit kit;
  ActorRef c = kit.Sys().ActorOf(Props::Create<Counter>());
  EXPECT_THROW(Ask<int>(c, Fail{}, absl::Seconds(3)).get(),
               std::invalid_argument);
}

TEST(AskTest, AReplyOfTheWrongTypeFailsNamingBothTypes) {
  TestKit kit;
  ActorRef c = kit.Sys().ActorOf(Props::Create<Counter>());
  Future<std::string> f = Ask<std::string>(c, Get{}, absl::Seconds(3));
  try {
    f.get();
    FAIL() << "expected a failure";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("int"), std::string::npos) << e.what();
  }
}

TEST(AskTest, AskingAStoppedActorTimesOut) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef c = kit.Sys().ActorOf(Props::Create<Counter>());
  kit.Watch(c);
  c.Tell(PoisonPill{});
  kit.ExpectTerminated(c);
  Future<int> f = Ask<int>(c, Get{}, absl::Seconds(1));
  clock.Advance(absl::Seconds(1));
  EXPECT_THROW(f.get(), AskTimeoutException);
}

// `f` fails soon with AskTimeoutException saying the system terminated.
void ExpectFailedByTheTermination(Future<int>& f) {
  ASSERT_TRUE(f.wait_for(absl::Seconds(5)));
  try {
    f.get();
    ADD_FAILURE() << "expected AskTimeoutException";
  } catch (const AskTimeoutException& e) {
    EXPECT_NE(std::string(e.what()).find("terminated"), std::string::npos)
        << e.what();
  }
}

TEST(AskTest, AskingAfterTheSystemTerminatedFailsAtOnce) {
  // No timeout can be scheduled any more, so nothing would end the wait.
  auto system = ActorSystem::Create("gone", TestKit::TestConfig()).value();
  ActorRef c = system->ActorOf(Props::Create<Counter>());
  system->Terminate().wait();
  Future<int> f = Ask<int>(c, Get{}, absl::Hours(1));
  ExpectFailedByTheTermination(f);
}

TEST(AskTest, AnAskPendingWhenTheSystemTerminatesFails) {
  // Its timeout is dropped with the scheduler: without this the future
  // would wait forever, and its callbacks (which hold it) leaked.
  auto system = ActorSystem::Create("ending", TestKit::TestConfig()).value();
  ActorRef c = system->ActorOf(Props::Create<Counter>());
  Future<int> f = Ask<int>(c, std::string("silence"), absl::Hours(1));
  system->Terminate().wait();
  system.reset();
  ASSERT_TRUE(f.wait_for(absl::Seconds(5)));
  EXPECT_THROW(f.get(), AskTimeoutException);
}

// Keeps the sender of the request it gets, unanswered, by handing it out.
class SenderKeeper final : public Actor {
 public:
  explicit SenderKeeper(Promise<ActorRef> kept) {
    Receive<std::string>([this, kept](const std::string&) mutable {
      kept.TrySetValue(Sender());
    });
  }
};

TEST(AskTest, AnAskWhoseRequestIsStillHeldFailsWhenTheSystemTerminates) {
  // The bank's serve waited for its asks before destroying the system; a
  // request held where nothing would answer it (here by the test) kept the
  // reply target alive, and the wait never ended.
  auto system = ActorSystem::Create("held", TestKit::TestConfig()).value();
  Promise<ActorRef> kept;
  ActorRef keeper = system->ActorOf(Props::Create<SenderKeeper>(kept));
  Future<int> f = Ask<int>(keeper, std::string("hold this"), absl::Hours(1));
  ActorRef reply_target = kept.GetFuture().get();
  system->Terminate().wait();
  ExpectFailedByTheTermination(f);
}

TEST(AskTest, PipeToSendsTheValueOrTheFailure) {
  TestKit kit;
  ActorRef c = kit.Sys().ActorOf(Props::Create<Counter>());
  c.Tell(7);
  PipeTo(Ask<int>(c, Get{}, absl::Seconds(3)), kit.TestActor());
  kit.ExpectMsg<int>(7);
  PipeTo(Ask<int>(c, Fail{}, absl::Seconds(3)), kit.TestActor());
  StatusFailure failure = kit.ExpectMsg<StatusFailure>();
  EXPECT_THROW(std::rethrow_exception(failure.cause), std::invalid_argument);
}

struct GetToken {};

class TokenMaker final : public Actor {
 public:
  TokenMaker() {
    Receive<GetToken>([this](const GetToken&) {
      Sender().Tell(std::make_shared<int>(7), Self());
    });
  }
};

TEST(AskTest, AnAnsweredAskKeepsNothingUntilItsTimeout) {
  // The timeout's task held the reply target, and with it the reply, until
  // the timeout was due: a day for a long backstop.
  TestKit kit;
  ActorRef maker = kit.Sys().ActorOf(Props::Create<TokenMaker>(), "maker");
  std::weak_ptr<int> watch;
  {
    Future<std::shared_ptr<int>> reply =
        Ask<std::shared_ptr<int>>(maker, GetToken{}, absl::Hours(24));
    watch = reply.get();
    EXPECT_EQ(*watch.lock(), 7);
  }
  kit.AwaitCondition([&] { return watch.expired(); }, absl::Seconds(10),
                     "the reply released");
}

TEST(FutureTest, OnCompleteRunsOnceWhetherAddedBeforeOrAfter) {
  Promise<int> p;
  Future<int> f = p.GetFuture();
  int calls = 0;
  f.OnComplete([&](const Future<int>& done) { calls += done.get(); });
  EXPECT_TRUE(p.TrySetValue(2));
  EXPECT_FALSE(p.TrySetValue(3));
  f.OnComplete([&](const Future<int>& done) { calls += done.get(); });
  EXPECT_EQ(calls, 4);
}

}  // namespace
}  // namespace cairn::actor
