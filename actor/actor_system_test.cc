#include "actor/actor_system.h"

#include <atomic>
#include <filesystem>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

class Echo final : public Actor {
 public:
  Echo() {
    ReceiveAny([this](const AnyMessage& m) { Sender().TellAny(m, Self()); });
  }
};

class Adder final : public Actor {
 public:
  explicit Adder(int base) : base_(base) {
    Receive<int>([this](int x) { Sender().Tell(base_ + x); });
  }

 private:
  int base_;
};

TEST(ActorSystemTest, TellReachesTheActorAndTheReplyComesBack) {
  TestKit kit;
  ActorRef echo = kit.Sys().ActorOf(Props::Create<Echo>(), "echo");
  echo.Tell(std::string("hello"));
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "hello");
  EXPECT_EQ(kit.LastSender(), echo);
}

TEST(ActorSystemTest, PropsPassConstructorArguments) {
  TestKit kit;
  ActorRef adder = kit.Sys().ActorOf(Props::Create<Adder>(40));
  adder.Tell(2);
  kit.ExpectMsg<int>(42);
}

TEST(ActorSystemTest, PathsFollowTheHierarchy) {
  TestKit kit;
  ActorRef echo = kit.Sys().ActorOf(Props::Create<Echo>(), "echo");
  EXPECT_EQ(echo.Path().ToString(), "akka://test/user/echo");
  EXPECT_NE(echo.Path().uid(), 0);
}

TEST(ActorSystemTest, NamesAreValidatedAndUnique) {
  TestKit kit;
  kit.Sys().ActorOf(Props::Create<Echo>(), "taken");
  EXPECT_THROW(kit.Sys().ActorOf(Props::Create<Echo>(), "taken"),
               InvalidActorNameException);
  EXPECT_THROW(kit.Sys().ActorOf(Props::Create<Echo>(), "bad name"),
               InvalidActorNameException);
  ActorRef a = kit.Sys().ActorOf(Props::Create<Echo>());
  ActorRef b = kit.Sys().ActorOf(Props::Create<Echo>());
  EXPECT_EQ(a.Path().name().front(), '$');
  EXPECT_NE(a.Path(), b.Path());
}

TEST(ActorSystemTest, ANameIsFreeAgainOnceItsActorHasStopped) {
  TestKit kit;
  ActorRef first = kit.Sys().ActorOf(Props::Create<Echo>(), "reused");
  kit.Watch(first);
  kit.Sys().Stop(first);
  kit.ExpectTerminated(first);
  kit.AwaitCondition([&] {
    try {
      kit.Sys().ActorOf(Props::Create<Echo>(), "reused");
      return true;
    } catch (const InvalidActorNameException&) {
      return false;  // the guardian has not yet seen the stop
    }
  });
}

TEST(ActorSystemTest, BadSettingsAreReportedByKey) {
  auto bad_level = hocon::Config::ParseString("akka.loglevel = LOUD").value();
  absl::StatusOr<std::unique_ptr<ActorSystem>> s =
      ActorSystem::Create("x", bad_level);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("akka.loglevel"), std::string::npos)
      << s.status();
  EXPECT_FALSE(ActorSystem::Create("bad name").ok());
}

TEST(ActorSystemTest, UnknownDispatcherIsAConfigurationError) {
  TestKit kit;
  EXPECT_THROW(
      kit.Sys().ActorOf(Props::Create<Echo>().WithDispatcher("no-such")),
      ConfigurationException);
}

class ThreadReporter final : public Actor {
 public:
  ThreadReporter() {
    Receive<std::string>([this](const std::string&) {
      Sender().Tell(std::this_thread::get_id());
    });
  }
};

TEST(ActorSystemTest, PinnedDispatcherGivesEachActorItsOwnThread) {
  TestKit kit;
  Props pinned = Props::Create<ThreadReporter>().WithDispatcher(
      "akka.actor.pinned-dispatcher");
  ActorRef a = kit.Sys().ActorOf(pinned);
  ActorRef b = kit.Sys().ActorOf(pinned);
  a.Tell(std::string("?"));
  auto ta1 = kit.ExpectMsg<std::thread::id>();
  b.Tell(std::string("?"));
  auto tb = kit.ExpectMsg<std::thread::id>();
  a.Tell(std::string("?"));
  auto ta2 = kit.ExpectMsg<std::thread::id>();
  EXPECT_EQ(ta1, ta2);
  EXPECT_NE(ta1, tb);
}

// Counts the instances made, to show that a refused ActorOf makes none.
class CountedReporter final : public Actor {
 public:
  explicit CountedReporter(std::atomic<int>* made) {
    made->fetch_add(1);
    Receive<std::string>([this](const std::string&) {
      Sender().Tell(std::this_thread::get_id());
    });
  }
};

// The threads of this process (Linux: one entry each in /proc/self/task).
int ThreadsOfThisProcess() {
  return static_cast<int>(
      std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                    std::filesystem::directory_iterator()));
}

TEST(ActorSystemTest, ARefusedNameMakesNoActorAndFreesItsPinnedThread) {
  TestKit kit;
  std::atomic<int> made{0};
  Props pinned = Props::Create<CountedReporter>(&made).WithDispatcher(
      "akka.actor.pinned-dispatcher");
  ActorRef first = kit.Sys().ActorOf(pinned, "pinned");
  first.Tell(std::string("?"));
  const auto thread = kit.ExpectMsg<std::thread::id>();
  const int threads = ThreadsOfThisProcess();
  // The second cell, and its thread, are made before the name is checked:
  // both are undone, and its actor is never constructed.
  EXPECT_THROW(kit.Sys().ActorOf(pinned, "pinned"), InvalidActorNameException);
  kit.AwaitCondition([&] { return ThreadsOfThisProcess() <= threads; });
  first.Tell(std::string("?"));
  EXPECT_EQ(kit.ExpectMsg<std::thread::id>(), thread);
  EXPECT_EQ(made.load(), 1);
}

// Records PostStop order into a shared log.
struct StopLog {
  base::Mutex mu;
  std::vector<std::string> order ABSL_GUARDED_BY(mu);
};

class Node final : public Actor {
 public:
  Node(StopLog* log, int depth) : log_(log) {
    if (depth > 0) {
      Context().ActorOf(Props::Create<Node>(log, depth - 1), "child");
    }
    // Keeps itself busy, so termination happens while messages flow.
    Receive<int>([this](int n) { Self().Tell(n + 1); });
  }
  void PostStop() override {
    base::MutexLock lock(&log_->mu);
    log_->order.push_back(Self().Path().ToString());
  }

 private:
  StopLog* log_;
};

TEST(ActorSystemTest, TerminateStopsBusyActorsChildrenBeforeParents) {
  StopLog log;
  {
    auto system = ActorSystem::Create("busy", TestKit::TestConfig()).value();
    ActorRef top = system->ActorOf(Props::Create<Node>(&log, 2), "top");
    for (int i = 0; i < 4; ++i) top.Tell(0);
    Future<void> done = system->Terminate();
    ASSERT_TRUE(done.wait_for(absl::Seconds(10)));
    EXPECT_TRUE(system->WhenTerminated().is_ready());
  }
  base::MutexLock lock(&log.mu);
  ASSERT_EQ(log.order.size(), 3u);
  EXPECT_EQ(log.order[0], "akka://busy/user/top/child/child");
  EXPECT_EQ(log.order[1], "akka://busy/user/top/child");
  EXPECT_EQ(log.order[2], "akka://busy/user/top");
}

TEST(ActorSystemTest, ActorOfAfterTerminateIsRefused) {
  auto system = ActorSystem::Create("late", TestKit::TestConfig()).value();
  system->Terminate().wait();
  EXPECT_THROW(system->ActorOf(Props::Create<Echo>()),
               IllegalActorStateException);
}

TEST(ActorSystemTest, ChildrenAreFoundByNameShortOrLong) {
  TestKit kit;
  // Up to 7 bytes a name is stored inside the actor, longer ones apart.
  const std::vector<std::string> names = {
      "a", "seven77", "eight888", "a-much-longer-name-than-sixteen-bytes"};
  std::vector<ActorRef> refs;
  for (const std::string& name : names) {
    refs.push_back(kit.Sys().ActorOf(Props::Create<Echo>(), name));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(refs[i].Path().ToString(), "akka://test/user/" + names[i]);
    EXPECT_EQ(refs[i].Path().name(), names[i]);
    EXPECT_EQ(kit.Sys()
                  .ActorSelection("/user/" + names[i])
                  .ResolveOne(absl::Seconds(5))
                  .get(),
              refs[i]);
  }
  // Generated names ($a, $b, ...) too.
  ActorRef generated = kit.Sys().ActorOf(Props::Create<Echo>());
  EXPECT_EQ(generated.Path().name().substr(0, 1), "$");
  EXPECT_EQ(kit.Sys()
                .ActorSelection("/user/" + generated.Path().name())
                .ResolveOne(absl::Seconds(5))
                .get(),
            generated);
}

// Counts the actors that started and stopped.
class Counted final : public Actor {
 public:
  Counted(std::atomic<int>* started, std::atomic<int>* stopped)
      : started_(started), stopped_(stopped) {}
  void PreStart() override { started_->fetch_add(1); }
  void PostStop() override { stopped_->fetch_add(1); }

 private:
  std::atomic<int>* started_;
  std::atomic<int>* stopped_;
};

TEST(ActorSystemTest, ActorOfRacingTerminateLeavesNoActorBehind) {
  // A thread keeps creating top-level actors while /user stops: each one is
  // either refused or stopped with the rest, and termination completes.
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::atomic<int> refused{0};
  auto system = ActorSystem::Create("race", TestKit::TestConfig()).value();
  std::thread spawner([&] {
    for (;;) {
      try {
        system->ActorOf(Props::Create<Counted>(&started, &stopped));
      } catch (const IllegalActorStateException&) {
        refused.fetch_add(1);
        return;
      }
    }
  });
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (started.load() < 100 && absl::Now() < deadline) {
    std::this_thread::yield();
  }
  Future<void> terminated = system->Terminate();
  ASSERT_TRUE(terminated.wait_for(absl::Seconds(10)));
  spawner.join();
  EXPECT_EQ(refused.load(), 1);
  EXPECT_GE(started.load(), 100);
  EXPECT_EQ(started.load(), stopped.load());
}

TEST(ActorSystemTest, ActorsCannotBeConstructedOutsideTheRuntime) {
  EXPECT_THROW(Echo(), IllegalActorStateException);
}

}  // namespace
}  // namespace cairn::actor
