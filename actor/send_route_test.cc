// Props::WithSendRoute: a route that Tells to an actor take on the
// sender's thread (send_route.h).
#include "actor/send_route.h"

#include <atomic>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

// What a route saw and did, told to `observer` as strings:
// "handled:<token>" for each Handled.
//
// Takes the messages that start with "take:" (passing them on to
// `taker_sink`), declines those that start with "token:<n>:" with token n,
// and declines the rest without one. Counts its calls and the threads they
// came on.
class RecordingRoute final : public SendRoute {
 public:
  RecordingRoute(ActorRef observer, ActorRef taken_sink)
      : observer_(std::move(observer)), taken_sink_(std::move(taken_sink)) {}

  Decision OnSend(const AnyMessage& message, const ActorRef& sender) override {
    calls_.fetch_add(1);
    last_thread_ = std::this_thread::get_id();
    const std::string* text = message.As<std::string>();
    if (text == nullptr) return Decline();
    if (*text == "throw") throw std::runtime_error("the route throws");
    if (absl::StartsWith(*text, "take:")) {
      taken_sink_.TellAny(message, sender);
      return Take();
    }
    if (absl::StartsWith(*text, "token:")) {
      return Decline(static_cast<uint32_t>(std::stoul(text->substr(6))));
    }
    return Decline();
  }
  void Handled(uint32_t token) override {
    observer_.Tell(absl::StrCat("handled:", token));
  }

  int calls() const { return calls_.load(); }
  std::thread::id last_thread() const { return last_thread_.load(); }

 private:
  const ActorRef observer_;
  const ActorRef taken_sink_;
  std::atomic<int> calls_{0};
  std::atomic<std::thread::id> last_thread_{};
};

// Tells `observer` "got:<text>" for each string; "boom..." throws;
// "stash..." is stashed until "open", which unstashes everything;
// "block..." tells "blocked" and waits for `release`.
class Receiver final : public Actor {
 public:
  // `release`: what "block..." waits for (given only to the tests that
  // send one).
  explicit Receiver(ActorRef observer, std::shared_future<void> release = {})
      : observer_(std::move(observer)), release_(std::move(release)) {
    Receive<std::string>([this](const std::string& text) {
      if (absl::StrContains(text, "block")) {
        observer_.Tell(std::string("blocked"));
        release_.wait();
        return;
      }
      if (absl::StrContains(text, "stash") && !open_) {
        Stash();
        return;
      }
      observer_.Tell(absl::StrCat("got:", text));
      if (absl::StrContains(text, "open")) {
        open_ = true;
        UnstashAll();
      }
      if (absl::StrContains(text, "boom")) {
        throw std::runtime_error("boom");
      }
    });
    Receive<int>([this](int n) {
      observer_.Tell(absl::StrCat("got int:", n));
      Timers().StartSingleTimer(std::string("t"), std::string("tick"),
                                absl::ZeroDuration());
    });
  }

 private:
  const ActorRef observer_;
  const std::shared_future<void> release_;
  bool open_ = false;
};

struct Fixture {
  TestKit kit;
  std::unique_ptr<testkit::TestProbe> taken = kit.CreateTestProbe();
  std::shared_ptr<RecordingRoute> route =
      std::make_shared<RecordingRoute>(kit.TestActor(), taken->Ref());
  ActorRef receiver = kit.Sys().ActorOf(
      Props::Create<Receiver>(kit.TestActor()).WithSendRoute(route));
};

TEST(SendRouteTest, ATakenMessageIsPassedOnAndNeverReachesTheActor) {
  Fixture f;
  f.receiver.Tell(std::string("take:1"), f.kit.TestActor());
  f.receiver.Tell(std::string("plain"));
  f.kit.ExpectMsg<std::string>("got:plain");
  EXPECT_EQ(f.taken->ExpectMsg<std::string>(), "take:1");
  // With its sender.
  EXPECT_EQ(f.taken->LastSender(), f.kit.TestActor());
  f.kit.ExpectNoMsg(absl::Milliseconds(100));
  EXPECT_EQ(f.route->calls(), 2);
}

TEST(SendRouteTest, EachTokenIsHandledOnceItsMessageIsProcessed) {
  Fixture f;
  for (int i = 1; i <= 50; ++i) {
    f.receiver.Tell(absl::StrCat("token:", i));
  }
  for (int i = 1; i <= 50; ++i) {
    f.kit.ExpectMsg<std::string>(absl::StrCat("got:token:", i));
    f.kit.ExpectMsg<std::string>(absl::StrCat("handled:", i));
  }
  // A decline without a token is not Handled.
  f.receiver.Tell(std::string("plain"));
  f.kit.ExpectMsg<std::string>("got:plain");
  f.kit.ExpectNoMsg(absl::Milliseconds(100));
}

TEST(SendRouteTest, ATokenIsHandledWhenItsHandlerThrows) {
  Fixture f;
  f.receiver.Tell(std::string("token:7:boom"));
  f.kit.ExpectMsg<std::string>("got:token:7:boom");
  f.kit.ExpectMsg<std::string>("handled:7");
  // The restarted actor goes on, the route with it.
  f.receiver.Tell(std::string("token:8"));
  f.kit.ExpectMsg<std::string>("got:token:8");
  f.kit.ExpectMsg<std::string>("handled:8");
}

TEST(SendRouteTest, AStashedMessageIsHandledWhenStashedAndNotAgain) {
  Fixture f;
  f.receiver.Tell(std::string("token:1:stash"));
  f.kit.ExpectMsg<std::string>("handled:1");
  f.receiver.Tell(std::string("token:2:open"));
  f.kit.ExpectMsg<std::string>("got:token:2:open");
  f.kit.ExpectMsg<std::string>("handled:2");
  f.kit.ExpectMsg<std::string>("got:token:1:stash");
  f.kit.ExpectNoMsg(absl::Milliseconds(100));
}

TEST(SendRouteTest, AThrowingRouteDeclinesAndTheSenderDoesNotSeeIt) {
  Fixture f;
  EXPECT_NO_THROW(f.receiver.Tell(std::string("throw")));
  f.kit.ExpectMsg<std::string>("got:throw");
}

TEST(SendRouteTest, WhatTheRuntimeHandlesItselfBypassesTheRoute) {
  Fixture f;
  // A user message that is not a string: the route declines it; the actor
  // starts a timer whose message reaches it without the route.
  f.receiver.Tell(3);
  f.kit.ExpectMsg<std::string>("got int:3");
  f.kit.ExpectMsg<std::string>("got:tick");
  EXPECT_EQ(f.route->calls(), 1);
  // Identify is answered by the runtime.
  f.receiver.Tell(Identify{AnyMessage::Of(42)}, f.kit.TestActor());
  ActorIdentity identity = f.kit.ExpectMsg<ActorIdentity>();
  EXPECT_EQ(*identity.message_id.As<int>(), 42);
  // A selection arrives in place.
  f.kit.Sys()
      .ActorSelection(f.receiver.Path().ToString())
      .Tell(std::string("by selection"));
  f.kit.ExpectMsg<std::string>("got:by selection");
  EXPECT_EQ(f.route->calls(), 1);
  // So do PoisonPill and the system messages that stop it.
  f.kit.Watch(f.receiver);
  f.receiver.Tell(PoisonPill{});
  f.kit.ExpectTerminated(f.receiver);
  EXPECT_EQ(f.route->calls(), 1);
}

TEST(SendRouteTest, AStoppedActorsMessagesGoToDeadLettersWithoutTheRoute) {
  Fixture f;
  auto dead = f.kit.CreateTestProbe();
  f.kit.Sys().EventStream().Subscribe<DeadLetter>(dead->Ref());
  f.kit.Watch(f.receiver);
  f.kit.Sys().Stop(f.receiver);
  f.kit.ExpectTerminated(f.receiver);
  f.receiver.Tell(std::string("take:late"), f.kit.TestActor());
  DeadLetter d = dead->ExpectMsg<DeadLetter>();
  EXPECT_EQ(*d.message.As<std::string>(), "take:late");
  EXPECT_EQ(d.sender, f.kit.TestActor());
  EXPECT_EQ(f.route->calls(), 0);
}

TEST(SendRouteTest, ATokenOfAMessageTheMailboxRefusesIsHandledAtOnce) {
  TestKit kit(R"(
    one-message-mailbox {
      mailbox-type = "bounded"
      mailbox-capacity = 1
      mailbox-push-timeout-time = 0s
    })");
  auto dead = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<DeadLetter>(dead->Ref());
  auto taken = kit.CreateTestProbe();
  auto route = std::make_shared<RecordingRoute>(kit.TestActor(), taken->Ref());
  std::promise<void> release;
  ActorRef blocker = kit.Sys().ActorOf(
      Props::Create<Receiver>(kit.TestActor(), release.get_future().share())
          .WithMailbox("one-message-mailbox")
          .WithSendRoute(route));
  blocker.Tell(std::string("token:1:block"));
  kit.ExpectMsg<std::string>("blocked");
  blocker.Tell(std::string("token:2"));  // fills the mailbox
  blocker.Tell(std::string("token:3"));  // refused
  kit.ExpectMsg<std::string>("handled:3");
  EXPECT_EQ(*dead->ExpectMsg<DeadLetter>().message.As<std::string>(),
            "token:3");
  release.set_value();
  kit.ExpectMsg<std::string>("handled:1");
  kit.ExpectMsg<std::string>("got:token:2");
  kit.ExpectMsg<std::string>("handled:2");
  kit.ExpectNoMsg(absl::Milliseconds(100));
}

TEST(SendRouteTest, TheRouteRunsOnTheSendersThread) {
  Fixture f;
  f.receiver.Tell(std::string("take:x"));
  f.taken->ExpectMsg<std::string>("take:x");
  EXPECT_EQ(f.route->last_thread(), std::this_thread::get_id());
}

}  // namespace
}  // namespace cairn::actor
