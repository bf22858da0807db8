#include <string>

#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

// Akka's classic: a hot/cold switch.
class Switch final : public Actor {
 public:
  Switch() { Off(); }

 private:
  void Off() {
    Receive<std::string>([this](const std::string& m) {
      if (m == "toggle") {
        Become([this] { On(); });
      } else {
        Sender().Tell(std::string("off"));
      }
    });
  }
  void On() {
    Receive<std::string>([this](const std::string& m) {
      if (m == "toggle") {
        Become([this] { Off(); });
      } else {
        Sender().Tell(std::string("on"));
      }
    });
  }
};

TEST(BecomeTest, BecomeReplacesTheBehaviour) {
  TestKit kit;
  ActorRef s = kit.Sys().ActorOf(Props::Create<Switch>());
  s.Tell(std::string("state"));
  kit.ExpectMsg<std::string>("off");
  s.Tell(std::string("toggle"));
  s.Tell(std::string("state"));
  kit.ExpectMsg<std::string>("on");
  s.Tell(std::string("toggle"));
  s.Tell(std::string("state"));
  kit.ExpectMsg<std::string>("off");
}

// Declares in its constructor, switches behaviour there, then declares
// more: the later Receive calls go to the behaviour it switched to.
class BecomesInItsConstructor final : public Actor {
 public:
  BecomesInItsConstructor() {
    Receive<int>([this](int) { Sender().Tell(std::string("first")); });
    Become([this] {
      Receive<int>([this](int) { Sender().Tell(std::string("second")); });
    });
    Receive<std::string>([this](const std::string& m) { Sender().Tell(m); });
  }
};

TEST(BecomeTest, ReceiveAfterBecomeInTheConstructorExtendsTheNewBehaviour) {
  TestKit kit;
  ActorRef a = kit.Sys().ActorOf(Props::Create<BecomesInItsConstructor>());
  a.Tell(1);
  kit.ExpectMsg<std::string>("second");
  a.Tell(std::string("echo"));
  kit.ExpectMsg<std::string>("echo");
}

// Tries to declare a handler while handling a message.
class DeclaresLate final : public Actor {
 public:
  DeclaresLate() {
    Receive<int>([this](int) {
      try {
        Receive<std::string>([](const std::string&) {});
        Sender().Tell(std::string("accepted"));
      } catch (const IllegalActorStateException&) {
        Sender().Tell(std::string("refused"));
      }
    });
  }
};

TEST(BecomeTest, ReceiveOutsideTheConstructorOrBecomeIsRefused) {
  TestKit kit;
  ActorRef late = kit.Sys().ActorOf(Props::Create<DeclaresLate>());
  // Another actor constructed meanwhile does not make it legal.
  kit.Sys().ActorOf(Props::Create<DeclaresLate>());
  late.Tell(1);
  kit.ExpectMsg<std::string>("refused");
  late.Tell(2);
  kit.ExpectMsg<std::string>("refused");
}

class Stacked final : public Actor {
 public:
  Stacked() {
    Receive<int>([this](int depth) {
      BecomeStacked([this, depth] {
        Receive<int>([this, depth](int) { Sender().Tell(depth); });
        Receive<std::string>([this](const std::string&) { Unbecome(); });
      });
      Sender().Tell(std::string("pushed"));
    });
    Receive<std::string>(
        [this](const std::string&) { Sender().Tell(std::string("base")); });
  }
};

TEST(BecomeTest, StackedBehavioursUnbecomeToThePreviousOne) {
  TestKit kit;
  ActorRef a = kit.Sys().ActorOf(Props::Create<Stacked>());
  a.Tell(7);
  kit.ExpectMsg<std::string>("pushed");
  a.Tell(1);
  kit.ExpectMsg<int>(7);
  a.Tell(std::string("pop"));
  a.Tell(std::string("who"));
  kit.ExpectMsg<std::string>("base");
  // Unbecome on the first behaviour keeps it.
  a.Tell(std::string("who"));
  kit.ExpectMsg<std::string>("base");
}

class PredicateHandlers final : public Actor {
 public:
  PredicateHandlers() {
    Receive<int>([](int x) { return x < 0; },
                 [this](int) { Sender().Tell(std::string("negative")); });
    Receive<int>([this](int) { Sender().Tell(std::string("other")); });
  }
};

TEST(BecomeTest, HandlersAreTriedInOrderAndPredicatesFilter) {
  TestKit kit;
  ActorRef a = kit.Sys().ActorOf(Props::Create<PredicateHandlers>());
  a.Tell(-1);
  kit.ExpectMsg<std::string>("negative");
  a.Tell(5);
  kit.ExpectMsg<std::string>("other");
}

// Stashes everything until "open", then handles in arrival order.
class Gate final : public Actor {
 public:
  Gate() {
    Receive<std::string>([this](const std::string& m) {
      if (m == "open") {
        Become([this] {
          Receive<std::string>(
              [this](const std::string& x) { Sender().Tell(x); });
        });
        UnstashAll();
      } else {
        Stash();
      }
    });
  }
};

TEST(StashTest, UnstashAllKeepsOrderAndGoesBeforeNewerMessages) {
  TestKit kit;
  ActorRef gate = kit.Sys().ActorOf(Props::Create<Gate>());
  gate.Tell(std::string("1"));
  gate.Tell(std::string("2"));
  gate.Tell(std::string("3"));
  gate.Tell(std::string("open"));
  gate.Tell(std::string("4"));
  for (const char* expected : {"1", "2", "3", "4"}) {
    EXPECT_EQ(kit.ExpectMsg<std::string>(), expected);
  }
  // The original sender is kept through the stash.
  EXPECT_EQ(kit.LastSender(), gate);
}

class Overflowing final : public Actor {
 public:
  Overflowing() {
    Receive<int>([this](int n) {
      try {
        Stash();
        Sender().Tell(std::string("stashed ") + std::to_string(n));
      } catch (const StashOverflowException&) {
        Sender().Tell(std::string("overflow"));
      }
    });
  }
};

TEST(StashTest, CapacityComesFromConfig) {
  TestKit kit("akka.actor.default-mailbox.stash-capacity = 2");
  ActorRef a = kit.Sys().ActorOf(Props::Create<Overflowing>());
  a.Tell(1);
  a.Tell(2);
  a.Tell(3);
  kit.ExpectMsg<std::string>("stashed 1");
  kit.ExpectMsg<std::string>("stashed 2");
  kit.ExpectMsg<std::string>("overflow");
}

class Restashing final : public Actor {
 public:
  Restashing() {
    Receive<std::string>([this](const std::string& m) {
      if (m == "crash") throw std::runtime_error("crash");
      if (m == "go") {
        Become([this] {
          Receive<std::string>(
              [this](const std::string& x) { Sender().Tell(x); });
        });
        UnstashAll();
        return;
      }
      Stash();
    });
  }
};

TEST(StashTest, StashedMessagesSurviveARestart) {
  TestKit kit;
  ActorRef a = kit.Sys().ActorOf(Props::Create<Restashing>());
  a.Tell(std::string("a"));
  a.Tell(std::string("b"));
  a.Tell(std::string("crash"));  // restart: stash goes back to the mailbox
  a.Tell(std::string("go"));
  a.Tell(std::string("c"));
  // The fresh instance gets a and b back ahead of "go", stashes them again,
  // and "go" releases them in order.
  kit.ExpectMsg<std::string>("a");
  kit.ExpectMsg<std::string>("b");
  kit.ExpectMsg<std::string>("c");
}

}  // namespace
}  // namespace cairn::actor
