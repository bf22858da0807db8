// The routing logics on their own, over refs of idle actors.
#include "actor/routing/routing_logic.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actor/actor_system.h"
#include "actor/routing/router.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor::routing {
namespace {

using testkit::TestKit;

class Idle final : public Actor {
 public:
  Idle() {
    ReceiveAny([](const AnyMessage&) {});
  }
};

std::vector<Routee> MakeRoutees(TestKit& kit, int n) {
  std::vector<Routee> routees;
  for (int i = 0; i < n; ++i) {
    routees.emplace_back(kit.Sys().ActorOf(
        Props::Create<Idle>().WithMailboxStatus(), "r" + std::to_string(i)));
  }
  return routees;
}

TEST(RoundRobinRoutingLogicTest, CyclesThroughTheRoutees) {
  TestKit kit(TestKit::Deterministic{});
  std::vector<Routee> routees = MakeRoutees(kit, 3);
  RoundRobinRoutingLogic logic;
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(logic.Select(AnyMessage::Of(1), routees),
              std::vector<size_t>{i % 3});
  }
}

TEST(RandomRoutingLogicTest, SameSeedSameChoices) {
  TestKit kit(TestKit::Deterministic{});
  std::vector<Routee> routees = MakeRoutees(kit, 5);
  RandomRoutingLogic a(7), b(7);
  std::set<size_t> seen;
  for (int i = 0; i < 100; ++i) {
    std::vector<size_t> pa = a.Select(AnyMessage::Of(i), routees);
    ASSERT_EQ(pa.size(), 1u);
    EXPECT_LT(pa[0], 5u);
    EXPECT_EQ(pa, b.Select(AnyMessage::Of(i), routees));
    seen.insert(pa[0]);
  }
  EXPECT_EQ(seen.size(), 5u);
}

TEST(BroadcastRoutingLogicTest, PicksEveryRoutee) {
  TestKit kit(TestKit::Deterministic{});
  std::vector<Routee> routees = MakeRoutees(kit, 3);
  BroadcastRoutingLogic logic;
  EXPECT_EQ(logic.Select(AnyMessage::Of(1), routees),
            (std::vector<size_t>{0, 1, 2}));
}

struct Keyed : ConsistentHashable {
  explicit Keyed(std::string k) : key(std::move(k)) {}
  HashKey ConsistentHashKey() const override { return key; }
  std::string key;
};

TEST(ConsistentHashingRoutingLogicTest, SameKeySameRouteeAndFewMovesOnRemove) {
  TestKit kit(TestKit::Deterministic{});
  std::vector<Routee> routees = MakeRoutees(kit, 4);
  ConsistentHashingRoutingLogic logic(nullptr, /*virtual_nodes_factor=*/20);
  std::map<std::string, size_t> before;
  std::set<size_t> used;
  for (int i = 0; i < 200; ++i) {
    std::string key = "key-" + std::to_string(i);
    std::vector<size_t> p = logic.Select(AnyMessage::Of(Keyed(key)), routees);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p, logic.Select(AnyMessage::Of(Keyed(key)), routees));
    before[key] = p[0];
    used.insert(p[0]);
  }
  EXPECT_EQ(used.size(), 4u);  // the keys spread over every routee

  // Without routee 1, only its keys move; the others keep their routee.
  std::vector<Routee> fewer = {routees[0], routees[2], routees[3]};
  for (const auto& [key, index] : before) {
    size_t now = logic.Select(AnyMessage::Of(Keyed(key)), fewer)[0];
    if (index != 1) {
      EXPECT_EQ(fewer[now], routees[index]) << key;
    }
  }
}

TEST(ConsistentHashingRoutingLogicTest, HashKeyFunctionFirstNoKeyNoRoutee) {
  TestKit kit(TestKit::Deterministic{});
  std::vector<Routee> routees = MakeRoutees(kit, 3);
  ConsistentHashingRoutingLogic logic(
      [](const AnyMessage& m) -> std::optional<std::string> {
        if (const int* i = m.As<int>()) return std::to_string(*i % 10);
        return std::nullopt;
      });
  EXPECT_EQ(logic.Select(AnyMessage::Of(13), routees),
            logic.Select(AnyMessage::Of(3), routees));
  EXPECT_EQ(logic.Select(AnyMessage::Of(Keyed("3")), routees),
            logic.Select(AnyMessage::Of(3), routees));
  EXPECT_TRUE(logic.Select(AnyMessage::Of(std::string("x")), routees).empty());
}

// Existing users' string keys keep their routee across versions: the
// hash of a string is pinned.
TEST(ConsistentHashingRoutingLogicTest, StringHashIsStable) {
  EXPECT_EQ(ConsistentHashingRoutingLogic::Hash(""), 17665956581633026203ull);
  EXPECT_EQ(ConsistentHashingRoutingLogic::Hash("user-42"),
            8797103408588478355ull);
  EXPECT_EQ(ConsistentHashingRoutingLogic::Hash("key-7"),
            13085792695947992952ull);
}

// A user's key type, hashed through AbslHashValue.
struct CustomerId {
  int region;
  std::string name;
  template <typename H>
  friend H AbslHashValue(H h, const CustomerId& id) {
    return H::combine(std::move(h), id.region, id.name);
  }
};
// A user's key type with only a std::hash specialization.
struct Sku {
  uint32_t code;
};

}  // namespace
}  // namespace cairn::actor::routing

template <>
struct std::hash<cairn::actor::routing::Sku> {
  size_t operator()(const cairn::actor::routing::Sku& s) const {
    return std::hash<uint32_t>()(s.code);
  }
};

namespace cairn::actor::routing {
namespace {

struct Order : ConsistentHashable {
  explicit Order(int64_t c) : customer(c) {}
  HashKey ConsistentHashKey() const override { return customer; }
  int64_t customer;
};

// Akka hashes a key of any type: integers (stable everywhere, one key for
// every integer type of one value) and user types with AbslHashValue or
// std::hash (stable within the process).
TEST(ConsistentHashingRoutingLogicTest, KeysOfAnyType) {
  EXPECT_EQ(HashKey(42).hash(), 16239707572940805204ull);  // pinned
  EXPECT_EQ(HashKey(42), HashKey(int64_t{42}));
  EXPECT_EQ(HashKey(42), HashKey(uint8_t{42}));
  EXPECT_EQ(HashKey(-1), HashKey(int64_t{-1}));
  EXPECT_EQ(HashKey(-1).hash(), 10922763448914652373ull);
  EXPECT_EQ(HashKey(std::string("abc")).hash(),
            ConsistentHashingRoutingLogic::Hash("abc"));
  EXPECT_EQ(HashKey("abc"), HashKey(std::string_view("abc")));
  EXPECT_EQ(HashKey(CustomerId{1, "ann"}), HashKey(CustomerId{1, "ann"}));
  EXPECT_EQ(HashKey(Sku{7}), HashKey(Sku{7}));

  TestKit kit(TestKit::Deterministic{});
  std::vector<Routee> routees = MakeRoutees(kit, 4);
  ConsistentHashingRoutingLogic logic(
      [](const AnyMessage& m) -> std::optional<HashKey> {
        if (const auto* id = m.As<CustomerId>()) return *id;
        if (const auto* sku = m.As<Sku>()) return *sku;
        return std::nullopt;
      });
  auto pick = [&](const AnyMessage& m) {
    std::vector<size_t> p = logic.Select(m, routees);
    EXPECT_EQ(p.size(), 1u);
    return p.empty() ? size_t{99} : p[0];
  };
  std::set<size_t> used;
  for (int i = 0; i < 200; ++i) {
    const size_t by_envelope =
        pick(AnyMessage::Of(ConsistentHashableEnvelope{AnyMessage::Of(0), i}));
    EXPECT_EQ(by_envelope, pick(AnyMessage::Of(Order(i))));
    EXPECT_EQ(pick(AnyMessage::Of(CustomerId{i, "x"})),
              pick(AnyMessage::Of(CustomerId{i, "x"})));
    EXPECT_EQ(pick(AnyMessage::Of(Sku{static_cast<uint32_t>(i)})),
              pick(AnyMessage::Of(Sku{static_cast<uint32_t>(i)})));
    used.insert(by_envelope);
    used.insert(pick(AnyMessage::Of(CustomerId{i, "x"})));
  }
  EXPECT_EQ(used.size(), 4u);  // integer and user keys spread too
}

// In the deterministic mode a mailbox keeps what it is sent until the test
// dispatches it, so mailbox sizes are exact.
TEST(SmallestMailboxRoutingLogicTest, PrefersIdleThenFewestQueued) {
  TestKit kit(TestKit::Deterministic{});
  std::vector<Routee> routees = MakeRoutees(kit, 3);
  kit.DispatchAll();
  SmallestMailboxRoutingLogic logic;
  auto pick = [&] {
    std::vector<size_t> picked = logic.Select(AnyMessage::Of(0), routees);
    EXPECT_EQ(picked.size(), 1u);
    return picked.empty() ? size_t{99} : picked[0];
  };
  // All idle and empty: the first.
  EXPECT_EQ(pick(), 0u);
  for (int i = 0; i < 3; ++i) routees[0].ref().Tell(i);
  routees[1].ref().Tell(0);
  // The idle one, though listed last.
  EXPECT_EQ(pick(), 2u);
  routees[2].ref().Tell(0);
  routees[2].ref().Tell(0);
  // None idle: the fewest queued (1 < 2 < 3).
  EXPECT_EQ(pick(), 1u);
  kit.DispatchAll();
  EXPECT_EQ(pick(), 0u);
}

TEST(SmallestMailboxRoutingLogicTest, UnseenMailboxesComeLast) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef busy =
      kit.Sys().ActorOf(Props::Create<Idle>().WithMailboxStatus(), "busy");
  ActorRef stopped =
      kit.Sys().ActorOf(Props::Create<Idle>().WithMailboxStatus(), "stopped");
  kit.Watch(stopped);
  kit.Sys().Stop(stopped);
  kit.ExpectTerminated(stopped);
  for (int i = 0; i < 5; ++i) busy.Tell(i);
  std::vector<Routee> routees{Routee(kit.Sys().ActorSelection("/user/busy")),
                              Routee(stopped), Routee(busy)};
  SmallestMailboxRoutingLogic logic;
  // A busy local actor beats a path and a stopped actor.
  EXPECT_EQ(logic.Select(AnyMessage::Of(0), routees), std::vector<size_t>{2});
  // With nothing seen, still one routee: the first.
  routees.pop_back();
  EXPECT_EQ(logic.Select(AnyMessage::Of(0), routees), std::vector<size_t>{0});
}

TEST(RouterTest, ImmutableRouteesAndBroadcastUnwrapped) {
  TestKit kit;
  auto p1 = kit.CreateTestProbe();
  auto p2 = kit.CreateTestProbe();
  Router empty(std::make_shared<RoundRobinRoutingLogic>());
  EXPECT_FALSE(empty.Route(AnyMessage::Of(1), ActorRef()));
  Router router =
      empty.AddRoutee(Routee(p1->Ref())).AddRoutee(Routee(p2->Ref()));
  EXPECT_TRUE(empty.routees().empty());
  ASSERT_EQ(router.routees().size(), 2u);
  EXPECT_TRUE(router.Route(AnyMessage::Of(Broadcast{AnyMessage::Of(5)}),
                           kit.TestActor()));
  EXPECT_EQ(p1->ExpectMsg<int>(), 5);
  EXPECT_EQ(p1->LastSender(), kit.TestActor());
  EXPECT_EQ(p2->ExpectMsg<int>(), 5);
  EXPECT_EQ(router.RemoveRoutee(Routee(p1->Ref())).routees(),
            std::vector<Routee>{Routee(p2->Ref())});
}

}  // namespace
}  // namespace cairn::actor::routing
