// EventSourcedBehaviorTestKit: a command's events, state and reply; a
// restart that recovers; the serialization checks; the PersistenceTestKit's
// faults underneath.

#include "persistence/typed/event_sourced_behavior_test_kit.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "actor/testkit/test_kit.h"
#include "actor/testkit/test_probe.h"
#include "actor/typed_ref.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/testkit/persistence_test_kit.h"
#include "persistence/typed/event_sourced_behavior.h"
#include "serialization/serialization.h"

namespace cairn::persistence::typed {
namespace {

using actor::ReplyTo;
using actor::testkit::TestKit;
using actor::testkit::TestKitAssertion;

struct Deposit {
  int64_t amount = 0;
  ReplyTo<int64_t> reply_to;
};
struct Split {  // two events in one write, no reply
  int64_t amount = 0;
};
struct Nothing {};
using Command = std::variant<Deposit, Split, Nothing>;
struct Deposited {
  int64_t amount = 0;
};
using Event = std::variant<Deposited>;
struct Account {
  int64_t balance = 0;
};
// A state no serializer takes.
struct Unregistered {
  int64_t balance = 0;
};

template <typename S>
EventSourcedBehavior<Command, Event, S> MakeAccount(std::string id) {
  using Effect = typename EventSourcedBehavior<Command, Event, S>::Effect;
  return EventSourcedBehavior<Command, Event, S>(
      std::move(id), S{},
      Overloaded{[](const S&, const Deposit& c) -> Effect {
                   return Effect::Persist(Deposited{c.amount})
                       .ThenReply(c.reply_to,
                                  [](const S& s) { return s.balance; });
                 },
                 [](const S&, const Split& c) -> Effect {
                   return Effect::Persist({Deposited{c.amount / 2},
                                           Deposited{c.amount - c.amount / 2}});
                 },
                 [](const S&, const Nothing&) { return Effect::None(); }},
      [](S s, const Deposited& e) {
        s.balance += e.amount;
        return s;
      });
}

std::shared_ptr<serialization::SerializationRegistry> Registry() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  auto number = [](int64_t n) -> absl::StatusOr<std::string> {
    return absl::StrCat(n);
  };
  auto parse = [](absl::string_view bytes) -> absl::StatusOr<int64_t> {
    int64_t n = 0;
    if (!absl::SimpleAtoi(bytes, &n))
      return absl::DataLossError("not a number");
    return n;
  };
  EXPECT_OK(registry->Register<Deposited>(
      "test.Deposited",
      [number](const Deposited& e) { return number(e.amount); },
      [parse](absl::string_view b) -> absl::StatusOr<Deposited> {
        absl::StatusOr<int64_t> n = parse(b);
        if (!n.ok()) return n.status();
        return Deposited{*n};
      }));
  EXPECT_OK(registry->Register<Account>(
      "test.Account", [number](const Account& a) { return number(a.balance); },
      [parse](absl::string_view b) -> absl::StatusOr<Account> {
        absl::StatusOr<int64_t> n = parse(b);
        if (!n.ok()) return n.status();
        return Account{*n};
      }));
  return registry;
}

using AccountKit = EventSourcedBehaviorTestKit<Command, Event, Account>;

class EventSourcedBehaviorTestKitTest : public ::testing::Test {
 protected:
  EventSourcedBehaviorTestKitTest()
      : kit_(testkit::PersistenceTestKit::Config()) {}

  std::unique_ptr<AccountKit> StartAccount(std::string id) {
    absl::StatusOr<std::unique_ptr<AccountKit>> account =
        AccountKit::Create(kit_.Sys(), MakeAccount<Account>(std::move(id)),
                           {.serialization = Registry()});
    EXPECT_OK(account);
    return *std::move(account);
  }

  TestKit kit_;
};

int64_t Amount(const Event& e) { return std::get<Deposited>(e).amount; }

TEST_F(EventSourcedBehaviorTestKitTest, ACommandGivesItsEventsStateAndReply) {
  std::unique_ptr<AccountKit> account = StartAccount("a1");
  auto result = account->RunCommand<int64_t>([](ReplyTo<int64_t> to) {
    return Deposit{5, to};
  });
  EXPECT_EQ(result.reply, 5);
  EXPECT_EQ(result.state.balance, 5);
  ASSERT_EQ(result.events.size(), 1u);
  EXPECT_EQ(Amount(result.events[0]), 5);
}

TEST_F(EventSourcedBehaviorTestKitTest, ACommandWithoutReplyGivesItsEvents) {
  std::unique_ptr<AccountKit> account = StartAccount("a2");
  AccountKit::CommandResult split = account->RunCommand(Split{7});
  ASSERT_EQ(split.events.size(), 2u);
  EXPECT_EQ(Amount(split.events[0]), 3);
  EXPECT_EQ(Amount(split.events[1]), 4);
  EXPECT_EQ(split.state.balance, 7);
  AccountKit::CommandResult nothing = account->RunCommand(Nothing{});
  EXPECT_TRUE(nothing.events.empty());
  EXPECT_EQ(nothing.state.balance, 7);
}

TEST_F(EventSourcedBehaviorTestKitTest, ARestartRecoversTheStoredState) {
  std::unique_ptr<AccountKit> account = StartAccount("a3");
  account->RunCommand(Split{10});
  EXPECT_EQ(account->Restart().balance, 10);
  // The replay is not counted as the next command's events.
  EXPECT_TRUE(account->RunCommand(Nothing{}).events.empty());
}

TEST_F(EventSourcedBehaviorTestKitTest, AStateThatDoesNotSerializeFails) {
  using Kit = EventSourcedBehaviorTestKit<Command, Event, Unregistered>;
  Kit::Settings settings;
  settings.verify_state = false;  // the start's GetState
  absl::StatusOr<std::unique_ptr<Kit>> account =
      Kit::Create(kit_.Sys(), MakeAccount<Unregistered>("a4"),
                  {.serialization = Registry()}, settings);
  ASSERT_OK(account);
  EXPECT_EQ((*account)->RunCommand(Split{2}).state.balance, 2);
  // Checked (the default), it is refused as a snapshot of it would be.
  TestKit other(testkit::PersistenceTestKit::Config());
  try {
    absl::StatusOr<std::unique_ptr<Kit>> checked =
        Kit::Create(other.Sys(), MakeAccount<Unregistered>("a5"),
                    {.serialization = Registry()});
    FAIL() << "the state was not checked";
  } catch (const TestKitAssertion& e) {
    EXPECT_NE(std::string(e.what()).find("does not round-trip"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(EventSourcedBehaviorTestKitTest, ChecksNeedTheRegistry) {
  EXPECT_EQ(AccountKit::Create(kit_.Sys(), MakeAccount<Account>("a7"))
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(EventSourcedBehaviorTestKitTest, AFailedWriteIsNoReply) {
  AccountKit::Settings settings;
  settings.timeout = absl::Milliseconds(300);  // the wait is bound to expire
  absl::StatusOr<std::unique_ptr<AccountKit>> created =
      AccountKit::Create(kit_.Sys(), MakeAccount<Account>("a6"),
                         {.serialization = Registry()}, settings);
  ASSERT_OK(created);
  std::unique_ptr<AccountKit> account = *std::move(created);
  account->persistence().FailNextPersisted();
  // The write fails: the actor stops, and no reply comes.
  EXPECT_THROW(account->RunCommand<int64_t>([](ReplyTo<int64_t> to) {
    return Deposit{1, to};
  }),
               TestKitAssertion);
}

}  // namespace
}  // namespace cairn::persistence::typed
