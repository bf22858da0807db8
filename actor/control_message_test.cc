// Control messages (control_message.h): processed ahead of the ordinary
// messages waiting, in their own order, behind what the actor put in front,
// in every kind of mailbox; dead letters once the actor has stopped. The
// actor under test blocks in a handler while the test fills its mailbox,
// so what waits there is certain.
#include "actor/control_message.h"

#include <future>
#include <string>
#include <utility>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

struct Urgent {
  std::string text;
};

}  // namespace
}  // namespace cairn::actor

template <>
inline constexpr bool cairn::actor::kControlMessage<cairn::actor::Urgent> =
    true;

namespace cairn::actor {
namespace {

// Reports every message to the observer. "block" blocks until released
// (after reporting "blocked"); "stash" stashes the message after it;
// "unstash-and-block" unstashes everything, then blocks like "block";
// "block-then-check" blocks like "block", then reports whether a system
// message waits; "keep" goes to the internal stash (the first time), which
// Urgent{"unstash one"} lets one message out of.
class Recorder final : public Actor {
 public:
  Recorder(std::shared_future<void> release, ActorRef observer)
      : release_(std::move(release)), observer_(std::move(observer)) {
    Receive<Urgent>([this](const Urgent& u) {
      observer_.Tell("urgent " + u.text);
      if (u.text == "unstash one") UnstashOneInternally();
    });
    Receive<std::string>([this](const std::string& m) {
      if (stash_next_) {
        stash_next_ = false;
        observer_.Tell("stashed " + m);
        Stash();
        return;
      }
      if (m == "keep" && !kept_) {
        kept_ = true;
        observer_.Tell(std::string("kept"));
        StashInternally();
      } else if (m == "stash") {
        stash_next_ = true;
      } else if (m == "unstash-and-block") {
        UnstashAll();
        Block();
      } else if (m == "block") {
        Block();
      } else if (m == "block-then-check") {
        Block();
        observer_.Tell(
            std::string(SystemMessagePending() ? "pending" : "none pending"));
      } else {
        observer_.Tell(m);
      }
    });
  }

 private:
  void Block() {
    observer_.Tell(std::string("blocked"));
    release_.wait();
  }

  std::shared_future<void> release_;
  ActorRef observer_;
  bool stash_next_ = false;
  bool kept_ = false;
};

class ControlMessageTest : public ::testing::Test {
 protected:
  explicit ControlMessageTest(const char* config = "") : kit_(config) {}

  ActorRef StartRecorder(const char* mailbox = nullptr) {
    Props props = Props::Create<Recorder>(release_.get_future().share(),
                                          kit_.TestActor());
    if (mailbox != nullptr) props = props.WithMailbox(mailbox);
    return kit_.Sys().ActorOf(props);
  }
  void Expect(const char* message) {
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), message);
  }

  TestKit kit_;
  std::promise<void> release_;
};

TEST_F(ControlMessageTest, GoesAheadOfTheMessagesWaiting) {
  ActorRef a = StartRecorder();
  a.Tell(std::string("block"));
  Expect("blocked");
  a.Tell(std::string("1"));
  a.Tell(std::string("2"));
  a.Tell(Urgent{"u"});
  release_.set_value();
  Expect("urgent u");
  Expect("1");
  Expect("2");
}

TEST_F(ControlMessageTest, ControlMessagesKeepTheirOrder) {
  ActorRef a = StartRecorder();
  a.Tell(std::string("block"));
  Expect("blocked");
  a.Tell(Urgent{"u1"});
  a.Tell(std::string("1"));
  a.Tell(Urgent{"u2"});
  a.Tell(Urgent{"u3"});
  release_.set_value();
  Expect("urgent u1");
  Expect("urgent u2");
  Expect("urgent u3");
  Expect("1");
}

TEST_F(ControlMessageTest, WaitsBehindWhatTheActorUnstashed) {
  ActorRef a = StartRecorder();
  a.Tell(std::string("stash"));
  a.Tell(std::string("s"));
  Expect("stashed s");
  a.Tell(std::string("unstash-and-block"));
  Expect("blocked");
  a.Tell(std::string("1"));
  a.Tell(Urgent{"u"});
  release_.set_value();
  Expect("s");  // unstashed before the control message came
  Expect("urgent u");
  Expect("1");
}

TEST_F(ControlMessageTest, IsNotASystemMessagePending) {
  ActorRef a = StartRecorder();
  a.Tell(std::string("block-then-check"));
  Expect("blocked");
  a.Tell(Urgent{"u"});  // in the actor's system queue when Tell returns
  release_.set_value();
  Expect("none pending");
  Expect("urgent u");
}

// A message let out of the internal stash one at a time waits only for
// unstashed messages in front, not for control messages there: one that
// the actor dropped unread would otherwise hold the stash (a persistent
// actor's stale write reply).
TEST_F(ControlMessageTest, DoesNotHoldBackTheInternalStash) {
  ActorRef a = StartRecorder();
  a.Tell(std::string("keep"));
  Expect("kept");
  a.Tell(std::string("block"));
  Expect("blocked");
  a.Tell(Urgent{"unstash one"});
  a.Tell(Urgent{"behind it"});  // in front while the first one runs
  release_.set_value();
  Expect("urgent unstash one");
  Expect("urgent behind it");
  Expect("keep");
}

class BoundedControlMessageTest : public ControlMessageTest {
 protected:
  BoundedControlMessageTest()
      : ControlMessageTest(R"(
          one-message {
            mailbox-type = "bounded"
            mailbox-capacity = 1
            mailbox-push-timeout-time = 0s
          })") {}
};

TEST_F(BoundedControlMessageTest, GoesAroundABoundedMailboxsCapacity) {
  auto dead = kit_.CreateTestProbe();
  kit_.Sys().EventStream().Subscribe<DeadLetter>(dead->Ref());
  ActorRef a = StartRecorder("one-message");
  a.Tell(std::string("block"));
  Expect("blocked");
  a.Tell(std::string("1"));
  a.Tell(std::string("2"));  // no room
  EXPECT_EQ(*dead->ExpectMsg<DeadLetter>().message.As<std::string>(), "2");
  a.Tell(Urgent{"u"});  // room or not
  release_.set_value();
  Expect("urgent u");
  Expect("1");
}

TEST_F(ControlMessageTest, ToAStoppedActorIsADeadLetter) {
  auto dead = kit_.CreateTestProbe();
  kit_.Sys().EventStream().Subscribe<DeadLetter>(dead->Ref());
  ActorRef a = StartRecorder();
  kit_.Watch(a);
  kit_.Sys().Stop(a);
  kit_.ExpectTerminated(a);
  a.Tell(Urgent{"late"});
  EXPECT_EQ(dead->ExpectMsg<DeadLetter>().message.As<Urgent>()->text, "late");
}

TEST_F(ControlMessageTest, QueuedWhenTheActorStopsIsADeadLetter) {
  auto dead = kit_.CreateTestProbe();
  kit_.Sys().EventStream().Subscribe<DeadLetter>(dead->Ref());
  ActorRef a = StartRecorder();
  kit_.Watch(a);
  a.Tell(std::string("block"));
  Expect("blocked");
  kit_.Sys().Stop(a);  // a system message: ahead of control messages
  a.Tell(Urgent{"behind the stop"});
  release_.set_value();
  kit_.ExpectTerminated(a);
  EXPECT_EQ(dead->ExpectMsg<DeadLetter>().message.As<Urgent>()->text,
            "behind the stop");
}

}  // namespace
}  // namespace cairn::actor
