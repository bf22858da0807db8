#include <string>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

// Reports each ReceiveTimeout; answers "ping" with "pong".
class Idle final : public Actor {
 public:
  explicit Idle(ActorRef observer) : observer_(std::move(observer)) {
    Context().SetReceiveTimeout(absl::Seconds(1));
    Receive<ReceiveTimeout>([this](const ReceiveTimeout&) {
      observer_.Tell(std::string("timeout"));
    });
    Receive<std::string>([this](const std::string& m) {
      if (m == "off") Context().SetReceiveTimeout(std::nullopt);
      observer_.Tell(std::string("pong"));
    });
  }

 private:
  ActorRef observer_;
};

TEST(ReceiveTimeoutTest, FiresAfterTheIdleTimeAndRepeats) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef a = kit.Sys().ActorOf(Props::Create<Idle>(kit.TestActor()));
  a.Tell(std::string("ping"));  // started: the timer counts from here
  kit.ExpectMsg<std::string>("pong");
  clock.Advance(absl::Seconds(1));
  kit.ExpectMsg<std::string>("timeout");
  clock.Advance(absl::Seconds(1));
  kit.ExpectMsg<std::string>("timeout");
}

TEST(ReceiveTimeoutTest, AMessageResetsTheTimer) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef a = kit.Sys().ActorOf(Props::Create<Idle>(kit.TestActor()));
  a.Tell(std::string("ping"));
  kit.ExpectMsg<std::string>("pong");
  clock.Advance(absl::Milliseconds(600));
  a.Tell(std::string("ping"));
  kit.ExpectMsg<std::string>("pong");
  clock.Advance(absl::Milliseconds(600));
  // No timeout yet: 600 ms since the last message. A timeout would have
  // been sent before this pong.
  a.Tell(std::string("ping"));
  kit.ExpectMsg<std::string>("pong");
  clock.Advance(absl::Seconds(1));
  kit.ExpectMsg<std::string>("timeout");
}

TEST(ReceiveTimeoutTest, CanBeTurnedOff) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef a = kit.Sys().ActorOf(Props::Create<Idle>(kit.TestActor()));
  a.Tell(std::string("off"));
  kit.ExpectMsg<std::string>("pong");
  clock.Advance(absl::Seconds(5));
  a.Tell(std::string("ping"));
  kit.ExpectMsg<std::string>("pong");
}

}  // namespace
}  // namespace cairn::actor
