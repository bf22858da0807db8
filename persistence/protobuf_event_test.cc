// Protobuf events are persisted and replayed with no registration: the
// serialization registry's built-in protobuf serializer (serialization.h)
// stores them under their full name, and recovery gets the generated type.

#include <cstdint>
#include <string>
#include <utility>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"
#include "persistence/persistent_actor.h"
#include "persistence/protobuf_event_test.pb.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;

// Persists a Deposited per amount it is sent; answers "balance" with the
// sum and the last note.
class Account final : public PersistentActor {
 public:
  explicit Account(std::string id) : id_(std::move(id)) {
    Recover<persistence_test::Deposited>(
        [this](const persistence_test::Deposited& e) { Apply(e); });
    Command<int64_t>([this](int64_t amount) {
      persistence_test::Deposited event;
      event.set_amount(amount);
      event.set_note("deposit of " + std::to_string(amount));
      Persist(std::move(event), [this](const persistence_test::Deposited& e) {
        Apply(e);
        Sender().Tell(balance_);
      });
    });
    Command<std::string>([this](const std::string&) {
      Sender().Tell(std::to_string(balance_) + " " + last_note_);
    });
  }
  std::string PersistenceId() const override { return id_; }

 private:
  void Apply(const persistence_test::Deposited& e) {
    balance_ += e.amount();
    last_note_ = e.note();
  }

  std::string id_;
  int64_t balance_ = 0;
  std::string last_note_;
};

TEST(ProtobufEventTest, PersistsAndReplaysAProtobufEventWithNoRegistration) {
  TestKit kit(R"(
    akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
    akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
  )");
  ActorRef first =
      kit.Sys().ActorOf(Props::Create<Account>("account-1"), "first");
  first.Tell(int64_t{30}, kit.TestActor());
  first.Tell(int64_t{12}, kit.TestActor());
  kit.ExpectMsg<int64_t>(30);
  kit.ExpectMsg<int64_t>(42);
  kit.Watch(first);
  kit.Sys().Stop(first);
  kit.ExpectTerminated(first);

  ActorRef second =
      kit.Sys().ActorOf(Props::Create<Account>("account-1"), "second");
  second.Tell(std::string("balance"), kit.TestActor());
  kit.ExpectMsg<std::string>("42 deposit of 12");
}

}  // namespace
}  // namespace cairn::persistence
