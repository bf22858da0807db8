// AnyMessage as a bridge to other holders of type-erased values (what a
// transport does with a serialization::Payload): the shared value, the
// pointer thrower, and messages adopted from a shared value.
#include "actor/any_message.h"

#include <memory>
#include <string>

#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

struct Base {
  virtual ~Base() = default;
  int n = 0;
};
struct Derived final : Base {
  std::string text;
};

template <typename T>
bool ThrowsAs(AnyMessage::PointerThrower thrower, const void* value) {
  try {
    thrower(value);
  } catch (const T* p) {
    return p == value;
  } catch (...) {
  }
  return false;
}

TEST(AnyMessageTest, TheSharedValueOutlivesTheMessage) {
  std::shared_ptr<const void> value;
  {
    AnyMessage message = AnyMessage::Of(std::string("kept"));
    value = message.SharedValue();
    EXPECT_EQ(value.get(), message.As<std::string>());
  }
  EXPECT_EQ(*static_cast<const std::string*>(value.get()), "kept");
  EXPECT_EQ(AnyMessage().SharedValue(), nullptr);
}

TEST(AnyMessageTest, ThePointerThrowerThrowsTheExactTypeAndItsBases) {
  Derived d;
  AnyMessage message = AnyMessage::Of(d);
  const void* raw = message.As<Derived>();
  EXPECT_TRUE(ThrowsAs<Derived>(message.pointer_thrower(), raw));
  EXPECT_TRUE(ThrowsAs<Base>(message.pointer_thrower(), raw));
  EXPECT_FALSE(ThrowsAs<std::string>(message.pointer_thrower(), raw));
}

TEST(AnyMessageTest, AnAdoptedValueMatchesByExactTypeAndByBase) {
  Derived d;
  d.n = 7;
  d.text = "seven";
  AnyMessage original = AnyMessage::Of(d);
  AnyMessage adopted = AnyMessage::Adopt(
      original.SharedValue(), original.type(), original.pointer_thrower());
  ASSERT_NE(adopted.As<Derived>(), nullptr);
  EXPECT_EQ(adopted.As<Derived>()->text, "seven");
  ASSERT_NE(adopted.As<Base>(), nullptr);
  EXPECT_EQ(adopted.As<Base>()->n, 7);
  EXPECT_EQ(adopted.As<std::string>(), nullptr);
  // Shares, does not copy, and hands the same value on.
  EXPECT_EQ(adopted.As<Derived>(), original.As<Derived>());
  EXPECT_EQ(adopted.SharedValue(), original.SharedValue());
  EXPECT_EQ(adopted.TypeName(), original.TypeName());
}

class Echo final : public Actor {
 public:
  Echo() {
    Receive<std::string>([this](const std::string& m) { Sender().Tell(m); });
  }
};

template <typename T>
AnyMessage AdoptedCopy(T value) {
  AnyMessage original = AnyMessage::Of(std::move(value));
  return AnyMessage::Adopt(original.SharedValue(), original.type(),
                           original.pointer_thrower());
}

// A PoisonPill or an Identify that came from elsewhere is the runtime's,
// as one sent with Of.
TEST(AnyMessageTest, AdoptedRuntimeMessagesAreTakenByTheRuntime) {
  TestKit kit;
  ActorRef echo = kit.Sys().ActorOf(Props::Create<Echo>());
  echo.TellAny(AdoptedCopy(Identify{AnyMessage::Of(std::string("id"))}),
               kit.TestActor());
  ActorIdentity identity = kit.ExpectMsg<ActorIdentity>();
  EXPECT_EQ(identity.subject, echo);
  EXPECT_EQ(*identity.message_id.As<std::string>(), "id");

  kit.Watch(echo);
  echo.TellAny(AdoptedCopy(PoisonPill{}), kit.TestActor());
  kit.ExpectTerminated(echo);
}

}  // namespace
}  // namespace cairn::actor
