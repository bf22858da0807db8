// The extension points a base class uses to run user code on behalf of
// several messages in one (PersistentActor's write replies):
// Actor::SenderOverride, which Sender() and Forward follow while it lives;
// Actor::SystemMessagePending, which tells it to stop between steps; and
// Actor::ProcessAgainFirst, which leaves the rest for the next turn ahead
// of every other message.
#include <memory>
#include <stdexcept>
#include <string>

#include "actor/actor_system.h"
#include "actor/supervisor_strategy.h"
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

// Processed twice: the first time it asks for a second turn ahead of
// everything (and then stops the actor, or throws, if asked to).
struct Twice {
  bool stop = false;
  bool fail = false;
};

class Steps final : public Actor {
 public:
  Steps() {
    Receive<Twice>([this](const Twice& m) {
      if (!again_) {
        again_ = true;
        ProcessAgainFirst();
        if (m.stop) Context().Stop(Self());
        if (m.fail) throw std::runtime_error("after ProcessAgainFirst");
        return;
      }
      again_ = false;
      Sender().Tell(std::string("again"));
    });
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

 private:
  bool again_ = false;
};

// Creates the child it is sent and resumes it on any failure.
class ResumingParent final : public Actor {
 public:
  ResumingParent() {
    Receive<Props>(
        [this](const Props& p) { Sender().Tell(Context().ActorOf(p)); });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<OneForOneStrategy>(
        Decider().Otherwise(Directive::kResume), /*logging_enabled=*/false);
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

TEST(ProcessAgainFirstTest, TheMessageComesAgainBeforeThoseQueuedBehindIt) {
  TestKit kit;
  ActorRef steps = kit.Sys().ActorOf(Props::Create<Steps>());
  steps.Tell(WhoSent{});
  ASSERT_EQ(kit.ExpectMsg<std::string>(), "you");
  // The string is behind Twice in the mailbox, and Twice's second turn
  // comes before anything in the mailbox.
  steps.Tell(Twice{});
  steps.Tell(std::string("behind"));
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "again");
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "echo behind");
}

TEST(ProcessAgainFirstTest, AStopDropsIt) {
  TestKit kit;
  ActorRef steps = kit.Sys().ActorOf(Props::Create<Steps>());
  kit.Watch(steps);
  steps.Tell(Twice{.stop = true});
  kit.ExpectTerminated(steps);  // not "again" first
}

TEST(ProcessAgainFirstTest, AResumedFailureKeepsIt) {
  TestKit kit;
  ActorRef parent = kit.Sys().ActorOf(Props::Create<ResumingParent>());
  parent.Tell(Props::Create<Steps>());
  ActorRef steps = kit.ExpectMsg<ActorRef>();
  steps.Tell(Twice{.fail = true});
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "again");
}

}  // namespace
}  // namespace cairn::actor
