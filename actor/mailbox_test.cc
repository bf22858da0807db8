#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/mailbox_status.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
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

// Tells itself three messages in one turn.
class SelfTeller final : public Actor {
 public:
  explicit SelfTeller(ActorRef observer) : observer_(std::move(observer)) {
    Receive<std::string>([this](const std::string& m) {
      if (m == "go") {
        for (const char* n : {"1", "2", "3"}) Self().Tell(std::string(n));
      } else {
        observer_.Tell(m);
      }
    });
  }

 private:
  ActorRef observer_;
};

// An actor does not wait for room in its own bounded mailbox (only it can
// make room): what it tells itself while it runs is queued at once.
TEST(MailboxTest, AnActorsMessagesToItselfDoNotWaitForRoom) {
  TestKit kit(R"(
    small-mailbox {
      mailbox-type = "bounded"
      mailbox-capacity = 1
      mailbox-push-timeout-time = 30s
    })");
  auto dead = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<DeadLetter>(dead->Ref());
  ActorRef a = kit.Sys().ActorOf(
      Props::Create<SelfTeller>(kit.TestActor()).WithMailbox("small-mailbox"));
  a.Tell(std::string("go"));
  // Each within the kit's default wait, far below the push timeout.
  kit.ExpectMsg<std::string>("1");
  kit.ExpectMsg<std::string>("2");
  kit.ExpectMsg<std::string>("3");
  dead->ExpectNoMsg(absl::Milliseconds(100));
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

int UrgentFirst(const AnyMessage& m) {
  const std::string* s = m.As<std::string>();
  if (s == nullptr) return 5;
  if (*s == "urgent") return 0;
  if (s->rfind("low", 0) == 0) return 9;
  return 5;
}

std::unique_ptr<ActorSystem> SystemWithPriorities(std::string_view config) {
  ActorSystemOptions options;
  options.priority_functions["urgent-first"] = UrgentFirst;
  absl::StatusOr<std::unique_ptr<ActorSystem>> system =
      ActorSystem::Create("prio",
                          hocon::Config::ParseString(std::string(config))
                              .value()
                              .WithFallback(TestKit::TestConfig()),
                          std::move(options));
  EXPECT_OK(system);
  return system.ok() ? *std::move(system) : nullptr;
}

// Sends "block", then messages of mixed priority while the actor is
// blocked; returns the order in which it got them.
// `mailbox`: a config path; empty for the default mailbox.
std::vector<std::string> OrderSeenBy(ActorSystem& system,
                                     const std::string& mailbox) {
  testkit::TestProbe probe(system);
  std::promise<void> release;
  ActorRef a = system.ActorOf(
      Props::Create<Blocker>(release.get_future().share(), probe.Ref())
          .WithMailbox(mailbox));
  a.Tell(std::string("block"));
  probe.ExpectMsg<std::string>("blocked");
  for (const char* m : {"low-1", "normal-1", "low-2", "urgent", "normal-2"}) {
    a.Tell(std::string(m));
  }
  release.set_value();
  std::vector<std::string> seen;
  for (int i = 0; i < 5; ++i) seen.push_back(probe.ExpectMsg<std::string>());
  return seen;
}

const std::vector<std::string> kByPriority = {"urgent", "normal-1", "normal-2",
                                              "low-1", "low-2"};

TEST(MailboxTest, APriorityMailboxFromConfigNamesARegisteredFunction) {
  std::unique_ptr<ActorSystem> system = SystemWithPriorities(R"(
    prio-mailbox {
      mailbox-type = "unbounded-priority"
      priority-function = "urgent-first"
    })");
  ASSERT_NE(system, nullptr);
  EXPECT_EQ(OrderSeenBy(*system, "prio-mailbox"), kByPriority);
}

TEST(MailboxTest, TheDefaultMailboxCanBeAPriorityMailbox) {
  std::unique_ptr<ActorSystem> system = SystemWithPriorities(R"(
    akka.actor.default-mailbox {
      mailbox-type = "unbounded-stable-priority"
      priority-function = "urgent-first"
    })");
  ASSERT_NE(system, nullptr);
  EXPECT_EQ(OrderSeenBy(*system, ""), kByPriority);
}

TEST(MailboxTest, APriorityMailboxWithAnUnknownFunctionIsAConfigError) {
  std::unique_ptr<ActorSystem> system = SystemWithPriorities(R"(
    odd-mailbox {
      mailbox-type = "unbounded-priority"
      priority-function = "most-important"
    }
    bare-mailbox { mailbox-type = "unbounded-priority" })");
  ASSERT_NE(system, nullptr);
  testkit::TestProbe probe(*system);
  for (const char* path : {"odd-mailbox", "bare-mailbox"}) {
    try {
      system->ActorOf(
          Props::Create<Blocker>(std::shared_future<void>(), probe.Ref())
              .WithMailbox(path));
      ADD_FAILURE() << "expected ConfigurationException for " << path;
    } catch (const ConfigurationException& e) {
      EXPECT_NE(
          std::string(e.what()).find(absl::StrCat(path, ".priority-function")),
          std::string::npos)
          << e.what();
    }
  }
  // As the default mailbox, the system does not start: Create fails with
  // the reason and takes the half-made system down (its destructor used to
  // dereference the guardians Start never made).
  absl::StatusOr<std::unique_ptr<ActorSystem>> refused =
      ActorSystem::Create("refused", hocon::Config::ParseString(R"(
        akka.actor.default-mailbox {
          mailbox-type = "unbounded-priority"
          priority-function = "urgent-first"
        })")
                                         .value());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(
      refused.status().message().find("no priority function 'urgent-first'"),
      std::string::npos)
      << refused.status();
}

// What routers read: queued messages and whether the mailbox is scheduled.
TEST(MailboxStatusTest, CountsWhatWaitsAndSeesTheMailboxScheduled) {
  TestKit kit(TestKit::Deterministic{});
  class Sink final : public Actor {
   public:
    Sink() {
      ReceiveAny([](const AnyMessage&) {});
    }
  };
  // Not counted unless asked for.
  ActorRef plain = kit.Sys().ActorOf(Props::Create<Sink>());
  kit.DispatchAll();
  EXPECT_FALSE(LocalMailboxStatus(plain).has_value());

  ActorRef sink = kit.Sys().ActorOf(Props::Create<Sink>().WithMailboxStatus());
  kit.DispatchAll();
  std::optional<MailboxStatus> idle = LocalMailboxStatus(sink);
  ASSERT_TRUE(idle.has_value());
  EXPECT_EQ(idle->queued, 0u);
  EXPECT_FALSE(idle->scheduled);

  for (int i = 0; i < 3; ++i) sink.Tell(i);
  std::optional<MailboxStatus> busy = LocalMailboxStatus(sink);
  ASSERT_TRUE(busy.has_value());
  EXPECT_EQ(busy->queued, 3u);
  EXPECT_TRUE(busy->scheduled);

  kit.DispatchOne();  // takes one message
  EXPECT_EQ(LocalMailboxStatus(sink)->queued, 2u);
  kit.DispatchAll();
  EXPECT_EQ(LocalMailboxStatus(sink)->queued, 0u);
  EXPECT_FALSE(LocalMailboxStatus(sink)->scheduled);

  // Not a living local actor: nothing to see.
  EXPECT_FALSE(LocalMailboxStatus(ActorRef::NoSender()).has_value());
  EXPECT_FALSE(LocalMailboxStatus(kit.Sys().DeadLetters()).has_value());
  kit.Watch(sink);
  kit.Sys().Stop(sink);
  kit.ExpectTerminated(sink);
  EXPECT_FALSE(LocalMailboxStatus(sink).has_value());
}

// A custom (bounded) queue is counted the same way, and a message it
// refuses is not.
TEST(MailboxStatusTest, CountsABoundedMailboxAndNotWhatItRefuses) {
  TestKit kit(TestKit::Deterministic{
      .config = hocon::Config::ParseString(R"(
        small-mailbox {
          mailbox-type = "bounded"
          mailbox-capacity = 2
          mailbox-push-timeout-time = 0s
        })")
                    .value()
                    .WithFallback(TestKit::TestConfig())});
  class Sink final : public Actor {
   public:
    Sink() {
      ReceiveAny([](const AnyMessage&) {});
    }
  };
  ActorRef sink = kit.Sys().ActorOf(
      Props::Create<Sink>().WithMailbox("small-mailbox").WithMailboxStatus());
  kit.DispatchAll();
  for (int i = 0; i < 3; ++i) sink.Tell(i);  // the third is refused
  EXPECT_EQ(LocalMailboxStatus(sink)->queued, 2u);
  kit.DispatchAll();
  EXPECT_EQ(LocalMailboxStatus(sink)->queued, 0u);
}

}  // namespace
}  // namespace cairn::actor
