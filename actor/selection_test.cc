#include <set>
#include <string>

#include "actor/actor_selection.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

class Named final : public Actor {
 public:
  explicit Named(std::vector<std::string> children) {
    for (const auto& c : children) {
      Context().ActorOf(Props::Create<Named>(std::vector<std::string>{}), c);
    }
    Receive<std::string>([this](const std::string& m) {
      if (m == "name") {
        Sender().Tell(Self().Path().name());
      } else {
        // Forward a relative selection on behalf of the original sender.
        Context().ActorSelection(m).Tell(std::string("name"), Sender());
      }
    });
  }
};

std::set<std::string> Names(TestKit& kit, int n) {
  std::set<std::string> names;
  for (int i = 0; i < n; ++i) names.insert(kit.ExpectMsg<std::string>());
  return names;
}

TEST(SelectionTest, WildcardsSelectMatchingChildren) {
  TestKit kit(TestKit::Deterministic{});
  kit.Sys().ActorOf(Props::Create<Named>(std::vector<std::string>{
                        "worker-1", "worker-2", "manager"}),
                    "a");
  kit.Sys().ActorSelection("/user/a/worker-*").Tell(std::string("name"));
  EXPECT_EQ(Names(kit, 2), (std::set<std::string>{"worker-1", "worker-2"}));
  kit.Sys()
      .ActorSelection("akka://test/user/a/?anager")
      .Tell(std::string("name"));
  kit.ExpectMsg<std::string>("manager");
  kit.ExpectNoMsg();
}

TEST(SelectionTest, RelativePathsFromAnActor) {
  TestKit kit;
  ActorRef a = kit.Sys().ActorOf(
      Props::Create<Named>(std::vector<std::string>{"x", "y"}), "a");
  ActorRef x =
      kit.Sys().ActorSelection("/user/a/x").ResolveOne(absl::Seconds(3)).get();
  x.Tell(std::string("../y"));
  kit.ExpectMsg<std::string>("y");
  a.Tell(std::string("x"));
  kit.ExpectMsg<std::string>("x");
}

TEST(SelectionTest, IdentifyAnswersWithTheActorOrNobody) {
  TestKit kit;
  ActorRef a =
      kit.Sys().ActorOf(Props::Create<Named>(std::vector<std::string>{}), "a");
  kit.Sys().ActorSelection("/user/a").Tell(Identify{AnyMessage::Of(1)});
  ActorIdentity found = kit.ExpectMsg<ActorIdentity>();
  EXPECT_EQ(found.subject, a);
  EXPECT_EQ(*found.message_id.As<int>(), 1);
  kit.Sys().ActorSelection("/user/missing").Tell(Identify{AnyMessage::Of(2)});
  ActorIdentity missing = kit.ExpectMsg<ActorIdentity>();
  EXPECT_TRUE(missing.subject.IsNobody());
  EXPECT_EQ(*missing.message_id.As<int>(), 2);
}

TEST(SelectionTest, ResolveSeesWhatExistsNow) {
  TestKit kit;
  ActorRef a = kit.Sys().ActorOf(
      Props::Create<Named>(std::vector<std::string>{"k"}), "a");
  ActorRef k =
      kit.Sys().ActorSelection("/user/a/k").ResolveOne(absl::Seconds(3)).get();
  EXPECT_EQ(kit.Sys().ActorSelection("/user/a/*").Resolve(),
            std::vector<ActorRef>{k});
  EXPECT_TRUE(kit.Sys().ActorSelection("/user/nothing").Resolve().empty());
}

TEST(SelectionTest, ResolveOneFindsOrFails) {
  TestKit kit;
  ActorRef a =
      kit.Sys().ActorOf(Props::Create<Named>(std::vector<std::string>{}), "a");
  EXPECT_EQ(
      kit.Sys().ActorSelection("/user/a").ResolveOne(absl::Seconds(3)).get(),
      a);
  EXPECT_THROW(
      kit.Sys().ActorSelection("/user/b").ResolveOne(absl::Seconds(3)).get(),
      std::runtime_error);
}

}  // namespace
}  // namespace cairn::actor
