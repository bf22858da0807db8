#include "actor/event_stream.h"

#include <atomic>
#include <string>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

struct Animal {
  virtual ~Animal() = default;
  virtual std::string Sound() const = 0;
};
struct Dog : Animal {
  std::string Sound() const override { return "woof"; }
};
struct Cat : Animal {
  std::string Sound() const override { return "meow"; }
};

TEST(EventStreamTest, SubscribersToABaseTypeGetDerivedEvents) {
  TestKit kit(TestKit::Deterministic{});
  auto animals = kit.CreateTestProbe();
  auto dogs = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<Animal>(animals->Ref());
  kit.Sys().EventStream().Subscribe<Dog>(dogs->Ref());
  kit.Sys().EventStream().Publish(Dog{});
  kit.Sys().EventStream().Publish(Cat{});
  AnyMessage first = animals->ReceiveOne();
  ASSERT_NE(first.As<Animal>(), nullptr);
  EXPECT_EQ(first.As<Animal>()->Sound(), "woof");
  AnyMessage second = animals->ReceiveOne();
  EXPECT_EQ(second.As<Animal>()->Sound(), "meow");
  EXPECT_TRUE(second.Is<Cat>());
  dogs->ExpectMsg<Dog>();
  dogs->ExpectNoMsg();
}

TEST(EventStreamTest, UnsubscribeStopsDelivery) {
  TestKit kit(TestKit::Deterministic{});
  auto p = kit.CreateTestProbe();
  EXPECT_TRUE(kit.Sys().EventStream().Subscribe<int>(p->Ref()));
  EXPECT_FALSE(kit.Sys().EventStream().Subscribe<int>(p->Ref()));
  kit.Sys().EventStream().Publish(1);
  p->ExpectMsg<int>(1);
  EXPECT_TRUE(kit.Sys().EventStream().Unsubscribe<int>(p->Ref()));
  kit.Sys().EventStream().Publish(2);
  p->ExpectNoMsg();
}

TEST(EventStreamTest, FunctionSubscribersRunOnThePublishingThread) {
  TestKit kit;
  int seen = 0;
  int64_t token = kit.Sys().EventStream().SubscribeFunction<int>(
      [&](const int& x) { seen += x; });
  kit.Sys().EventStream().Publish(4);
  EXPECT_EQ(seen, 4);
  kit.Sys().EventStream().UnsubscribeFunction(token);
  kit.Sys().EventStream().Publish(4);
  EXPECT_EQ(seen, 4);
}

TEST(EventStreamTest, LogEventsAreObservable) {
  TestKit kit(TestKit::Deterministic{});
  auto p = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<LogEvent>(p->Ref());
  kit.Sys().Log("me").Error("broken");
  kit.Sys().Log("me").Debug("hidden: below akka.loglevel");
  LogEvent e = p->ExpectMsg<LogEvent>();
  EXPECT_EQ(e.level, LogLevel::kError);
  EXPECT_EQ(e.source, "me");
  EXPECT_EQ(e.message, "broken");
  p->ExpectNoMsg();
}

}  // namespace
}  // namespace cairn::actor
