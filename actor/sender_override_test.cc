// The extension points a base class uses to run user code on behalf of
// several messages in one (PersistentActor's write replies):
// Actor::SenderOverride, which Sender() and Forward follow while it lives,
// and Actor::SystemMessagePending, which tells it to stop between steps.
#include <stdexcept>
#include <string>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "actor/testkit/test_probe.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;
using testkit::TestProbe;

// On behalf of: answer `to` (overriding the sender) with "for <to>", and
// forward "forwarded" in the same scope; then answer the real sender.
struct OnBehalfOf {
  ActorRef to;
};
// Throws inside an override; the next message must see its own sender.
struct ThrowInside {
  ActorRef to;
};
struct WhoSent {};
// Stops itself, then tells the sender whether a system message waits.
struct StopAndLook {};

class Steps final : public Actor {
 public:
  Steps() {
    Receive<OnBehalfOf>([this](const OnBehalfOf& m) {
      {
        SenderOverride scope(m.to);
        Sender().Tell(std::string("for them"));
        {
          SenderOverride inner(Self());
          if (Sender() != Self()) throw std::logic_error("inner scope");
        }
        Self().Forward(std::string("forwarded"));
      }
      Sender().Tell(std::string("for the sender"));
    });
    Receive<std::string>(
        [this](const std::string& s) { Sender().Tell("echo " + s); });
    Receive<ThrowInside>([](const ThrowInside& m) {
      SenderOverride scope(m.to);
      throw std::runtime_error("inside an override");
    });
    Receive<WhoSent>(
        [this](const WhoSent&) { Sender().Tell(std::string("you")); });
    Receive<StopAndLook>([this](const StopAndLook&) {
      const bool before = SystemMessagePending();
      Context().Stop(Self());
      Sender().Tell(before ? std::string("pending before")
                           : std::string("none before"));
      Sender().Tell(SystemMessagePending() ? std::string("pending after")
                                           : std::string("none after"));
    });
  }
};

TEST(SenderOverrideTest, SenderAndForwardFollowTheOverrideWhileItLives) {
  TestKit kit;
  std::unique_ptr<TestProbe> them = kit.CreateTestProbe();
  ActorRef steps = kit.Sys().ActorOf(Props::Create<Steps>());
  steps.Tell(OnBehalfOf{them->Ref()});
  EXPECT_EQ(them->ExpectMsg<std::string>(), "for them");
  // Forwarded with `them` as the sender: its echo goes to them.
  EXPECT_EQ(them->ExpectMsg<std::string>(), "echo forwarded");
  // The scope ended: the message's own sender again.
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "for the sender");
}

TEST(SenderOverrideTest, AThrowInsideTheScopeLeavesNoOverrideBehind) {
  TestKit kit;
  std::unique_ptr<TestProbe> them = kit.CreateTestProbe();
  ActorRef steps = kit.Sys().ActorOf(Props::Create<Steps>());
  steps.Tell(ThrowInside{them->Ref()});
  steps.Tell(WhoSent{});
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "you");
  them->ExpectNoMsg(absl::ZeroDuration());
}

TEST(SystemMessagePendingTest, AStopOfItselfWaitsUntilTheHandlerReturns) {
  TestKit kit;
  ActorRef steps = kit.Sys().ActorOf(Props::Create<Steps>());
  kit.Watch(steps);
  steps.Tell(StopAndLook{});
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "none before");
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "pending after");
  kit.ExpectTerminated(steps);
}

}  // namespace
}  // namespace cairn::actor
