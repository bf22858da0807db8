#include <future>
#include <string>
#include <vector>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

// Blocks on the first message until released, then reports what it gets.
class Blocker final : public Actor {
 public:
  Blocker(std::shared_future<void> release, ActorRef observer)
      : release_(std::move(release)), observer_(std::move(observer)) {
    Receive<std::string>([this](const std::string& m) {
      if (m == "block") {
        observer_.Tell(std::string("blocked"));
        release_.wait();
      } else {
        observer_.Tell(m);
      }
    });
  }

 private:
  std::shared_future<void> release_;
  ActorRef observer_;
};

TEST(MailboxTest, BoundedMailboxSendsOverflowToDeadLetters) {
  TestKit kit(R"(
    small-mailbox {
      mailbox-type = "bounded"
      mailbox-capacity = 2
      mailbox-push-timeout-time = 0s
    })");
  auto dead = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<DeadLetter>(dead->Ref());
  std::promise<void> release;
  ActorRef a = kit.Sys().ActorOf(
      Props::Create<Blocker>(release.get_future().share(), kit.TestActor())
          .WithMailbox("small-mailbox"));
  a.Tell(std::string("block"));
  kit.ExpectMsg<std::string>("blocked");
  a.Tell(std::string("1"));
  a.Tell(std::string("2"));
  a.Tell(std::string("3"));  // no room
  DeadLetter d = dead->ExpectMsg<DeadLetter>();
  EXPECT_EQ(*d.message.As<std::string>(), "3");
  release.set_value();
  kit.ExpectMsg<std::string>("1");
  kit.ExpectMsg<std::string>("2");
}

TEST(MailboxTest, PriorityMailboxOrdersByPriorityThenArrival) {
  TestKit kit;
  std::promise<void> release;
  PriorityFunction priority = [](const AnyMessage& m) {
    const std::string* s = m.As<std::string>();
    if (s == nullptr) return 5;
    if (*s == "urgent") return 0;
    if (s->rfind("low", 0) == 0) return 9;
    return 5;
  };
  ActorRef a = kit.Sys().ActorOf(
      Props::Create<Blocker>(release.get_future().share(), kit.TestActor())
          .WithPriorityMailbox(priority));
  a.Tell(std::string("block"));
  kit.ExpectMsg<std::string>("blocked");
  for (const char* m : {"low-1", "normal-1", "low-2", "urgent", "normal-2"}) {
    a.Tell(std::string(m));
  }
  release.set_value();
  for (const char* expected :
       {"urgent", "normal-1", "normal-2", "low-1", "low-2"}) {
    EXPECT_EQ(kit.ExpectMsg<std::string>(), expected);
  }
}

TEST(MailboxTest, UnknownMailboxTypeIsAConfigurationError) {
  TestKit kit(R"(odd-mailbox { mailbox-type = "fancy" })");
  try {
    kit.Sys().ActorOf(
        Props::Create<Blocker>(std::shared_future<void>(), kit.TestActor())
            .WithMailbox("odd-mailbox"));
    FAIL() << "expected ConfigurationException";
  } catch (const ConfigurationException& e) {
    EXPECT_NE(std::string(e.what()).find("odd-mailbox.mailbox-type"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cairn::actor
