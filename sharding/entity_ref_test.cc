// Typed entity references: an EventSourcedBehavior hosted by a region
// started for an EntityTypeKey, told and asked through EntityRefs that
// take only its commands.
#include "sharding/entity_ref.h"

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include "absl/time/time.h"
#include "actor/testkit/test_kit.h"
#include "actor/typed_ref.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/persistence.h"
#include "persistence/typed/event_sourced_behavior.h"
#include "serialization/json_serialization.h"

namespace cairn::sharding {
namespace {

using actor::ReplyTo;
using actor::testkit::TestKit;
using persistence::typed::EventSourcedBehavior;
using persistence::typed::Overloaded;

struct Deposit {
  int64_t amount = 0;
  ReplyTo<int64_t> reply_to;
};
struct GetBalance {
  ReplyTo<int64_t> reply_to;
};
using AccountCommand = std::variant<Deposit, GetBalance>;
struct Deposited {
  int64_t amount = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Deposited, amount)
struct Balance {
  int64_t total = 0;
};
using Account = EventSourcedBehavior<AccountCommand, Deposited, Balance>;

Account MakeAccount(const std::string& id) {
  return Account::WithEnforcedReplies(
      "account-" + id, Balance{},
      Overloaded{[](const Balance&, const Deposit& c) {
                   return Account::Effect::Persist(Deposited{c.amount})
                       .ThenReply(c.reply_to,
                                  [](const Balance& b) { return b.total; });
                 },
                 [](const Balance& b, const GetBalance& c) {
                   return Account::Effect::Reply(c.reply_to, b.total);
                 }},
      [](Balance b, const Deposited& e) {
        b.total += e.amount;
        return b;
      });
}

// What an EntityRef takes is checked when this file compiles.
template <typename M>
concept Tells = requires(const EntityRef<AccountCommand>& ref, M m) {
  ref.Tell(m);
};
static_assert(Tells<Deposit>);
static_assert(Tells<AccountCommand>);
static_assert(!Tells<Deposited>);
static_assert(!Tells<std::string>);

class EntityRefTest : public ::testing::Test {
 protected:
  EntityRefTest()
      : kit_(R"(
          akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
          akka.persistence.snapshot-store.plugin =
              "akka.persistence.snapshot-store.inmem"
        )") {
    auto registry = std::make_shared<serialization::SerializationRegistry>();
    EXPECT_OK(serialization::RegisterJson<Deposited>(*registry, "Deposited"));
    EXPECT_OK(persistence::Persistence::Get(kit_.Sys())
                  .Setup({.serialization = registry}));
  }

  TestKit kit_;
};

TEST_F(EntityRefTest, EachIdIsItsOwnEntityHostedByTheRegion) {
  const EntityTypeKey<AccountCommand> kAccounts{"account"};
  TypedRegion<AccountCommand> accounts = TypedRegion<AccountCommand>::Start(
      kit_.Sys(), kAccounts,
      [](const std::string& id) { return MakeAccount(id).ToProps(); },
      EntityRegionSettings{});
  ReplyTo<int64_t> me(kit_.TestActor());
  EntityRef<AccountCommand> a = accounts.EntityRefFor("a");
  a.Tell(Deposit{5, me});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 5);
  a.Tell(AccountCommand(Deposit{2, me}));  // a variant: sent as its command
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 7);
  accounts.EntityRefFor("b").Tell(Deposit{1, me});
  EXPECT_EQ(kit_.ExpectMsg<int64_t>(), 1);
  actor::Future<int64_t> balance = Ask<int64_t>(
      a, [](ReplyTo<int64_t> to) { return GetBalance{to}; }, absl::Seconds(3));
  EXPECT_EQ(balance.get(), 7);
}

}  // namespace
}  // namespace cairn::sharding
