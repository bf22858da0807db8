#include "actor/typed_ref.h"

#include <cstdint>
#include <string>
#include <variant>

#include "absl/container/flat_hash_set.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

struct Start {};
struct Halt {
  std::string why;
};
using Control = std::variant<Start, Halt>;

// What a TypedRef takes is checked when the program is compiled.
static_assert(AcceptedBy<Start, Control>);
static_assert(AcceptedBy<const Halt&, Control>);
static_assert(AcceptedBy<Control, Control>);
static_assert(!AcceptedBy<int, Control>);
static_assert(!AcceptedBy<std::string, Control>);
static_assert(AcceptedBy<int, int64_t>);  // converts: an int64_t is sent
static_assert(!AcceptedBy<std::string, int64_t>);
static_assert(!AcceptedBy<double, int64_t>);  // would narrow
static_assert(AcceptedBy<const char*, std::string>);
template <typename R, typename T>
concept CanTell = requires(const R& r, T t) {
  r.Tell(t);
};
static_assert(CanTell<TypedRef<Control>, Start>);
static_assert(!CanTell<TypedRef<Control>, int>);
static_assert(!CanTell<ReplyTo<int64_t>, std::string>);

TEST(TypedRefTest, AVariantIsSentAsTheAlternativeItHolds) {
  TestKit kit;
  TypedRef<Control> ref(kit.TestActor());
  ref.Tell(Control(Halt{"done"}));
  EXPECT_EQ(kit.ExpectMsg<Halt>().why, "done");
  ref.Tell(Start{});
  kit.ExpectMsg<Start>();
}

TEST(TypedRefTest, AValueThatConvertsIsSentAsTheRefsType) {
  TestKit kit;
  ReplyTo<int64_t> reply_to(kit.TestActor());
  reply_to.Tell(7);  // an int
  EXPECT_EQ(kit.ExpectMsg<int64_t>(), 7);
}

TEST(TypedRefTest, TheSenderCanBeGiven) {
  TestKit kit;
  testkit::TestProbe probe(kit.Sys());
  TypedRef<std::string> ref(probe.Ref());
  ref.Tell(std::string("hi"), kit.TestActor());
  EXPECT_EQ(probe.ExpectMsg<std::string>(), "hi");
  EXPECT_EQ(probe.LastSender(), kit.TestActor());
}

TEST(TypedRefTest, NoSenderDropsWhatItIsToldAndRefsCompareAsTheirActors) {
  TypedRef<Control> nobody;
  EXPECT_TRUE(nobody.IsNobody());
  nobody.Tell(Start{});  // nothing happens
  TestKit kit;
  TypedRef<Control> a(kit.TestActor());
  TypedRef<Control> b(kit.TestActor());
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a == nobody);
  absl::flat_hash_set<TypedRef<Control>> set{a, b, nobody};
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(a.Path(), kit.TestActor().Path());
}

// Answers a Question to the ReplyTo inside it.
struct Question {
  ReplyTo<int64_t> reply_to;
};
class Answerer final : public Actor {
 public:
  Answerer() {
    Receive<Question>([](const Question& q) { q.reply_to.Tell(42); });
  }
};

TEST(TypedRefTest, AskBuildsTheCommandAroundItsReplyTo) {
  TestKit kit;
  TypedRef<Question> answerer(
      kit.Sys().ActorOf(Props::Create<Answerer>(), "answerer"));
  Future<int64_t> answer = Ask<int64_t>(
      answerer, [](ReplyTo<int64_t> to) { return Question{to}; },
      absl::Seconds(3));
  EXPECT_EQ(answer.get(), 42);
}

}  // namespace
}  // namespace cairn::actor
