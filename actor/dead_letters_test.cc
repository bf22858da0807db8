#include <string>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;
using testkit::TestProbe;

class Sink final : public Actor {
 public:
  Sink() {
    Receive<std::string>([](const std::string&) {});
  }
};

TEST(DeadLettersTest, MessagesToAStoppedActorArePublishedAsDeadLetters) {
  TestKit kit;
  auto listener = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<DeadLetter>(listener->Ref());
  ActorRef sink = kit.Sys().ActorOf(Props::Create<Sink>(), "sink");
  kit.Watch(sink);
  kit.Sys().Stop(sink);
  kit.ExpectTerminated(sink);
  sink.Tell(std::string("too late"));
  DeadLetter letter = listener->ExpectMsg<DeadLetter>();
  EXPECT_EQ(*letter.message.As<std::string>(), "too late");
  EXPECT_EQ(letter.recipient, sink);
  EXPECT_EQ(letter.sender, kit.TestActor());
}

TEST(DeadLettersTest, MessagesQueuedBehindAPoisonPillBecomeDeadLetters) {
  TestKit kit;
  auto listener = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<DeadLetter>(listener->Ref());
  ActorRef sink = kit.Sys().ActorOf(Props::Create<Sink>());
  sink.Tell(std::string("processed"));
  sink.Tell(PoisonPill{});
  sink.Tell(std::string("after-1"));
  sink.Tell(std::string("after-2"));
  DeadLetter first = listener->ExpectMsg<DeadLetter>();
  DeadLetter second = listener->ExpectMsg<DeadLetter>();
  EXPECT_EQ(*first.message.As<std::string>(), "after-1");
  EXPECT_EQ(*second.message.As<std::string>(), "after-2");
}

TEST(DeadLettersTest, TellingDeadLettersDirectlyPublishes) {
  TestKit kit;
  auto listener = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<DeadLetter>(listener->Ref());
  kit.Sys().DeadLetters().Tell(5);
  DeadLetter letter = listener->ExpectMsg<DeadLetter>();
  EXPECT_EQ(*letter.message.As<int>(), 5);
  EXPECT_EQ(letter.recipient.Path().ToString(), "akka://test/deadLetters");
}

TEST(DeadLettersTest, UnhandledMessagesArePublished) {
  TestKit kit;
  auto listener = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<UnhandledMessage>(listener->Ref());
  ActorRef sink = kit.Sys().ActorOf(Props::Create<Sink>());
  sink.Tell(3.5);
  UnhandledMessage u = listener->ExpectMsg<UnhandledMessage>();
  EXPECT_EQ(*u.message.As<double>(), 3.5);
  EXPECT_EQ(u.recipient, sink);
}

}  // namespace
}  // namespace cairn::actor
