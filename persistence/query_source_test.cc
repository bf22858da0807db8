// QuerySource: a query run for a consumer actor on its demand. It sends no
// more than was asked for, completes a current query, follows a live one,
// and reports a failure.

#include "persistence/query_source.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/persistence.h"
#include "persistence/persistence_query.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::testkit::TestKit;
using ::testing::ElementsAre;

constexpr char kInMemConfig[] = R"(
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
)";

class QuerySourceTest : public ::testing::Test {
 protected:
  QuerySourceTest() : kit_(kInMemConfig) {
    PersistenceSetup setup;
    setup.serialization = testing::NewTestSerialization();
    EXPECT_OK(Persistence::Get(kit_.Sys()).Setup(std::move(setup)));
  }

  // Events n of "a", tagged "t", each written alone.
  void WriteTagged(int64_t from, int64_t to) {
    absl::StatusOr<Journal*> journal =
        Persistence::Get(kit_.Sys()).JournalFor("");
    ASSERT_OK(journal);
    for (int64_t n = from; n <= to; ++n) {
      AtomicWrite write = testing::Single(
          "a", n, serialization::Payload::Of(absl::StrCat("e", n)));
      write.events[0].tags = {"t"};
      ASSERT_OK(testing::WriteMessages(**journal, {std::move(write)}).batch);
    }
  }

  ReadJournal& Queries() {
    absl::StatusOr<ReadJournal*> queries =
        PersistenceQuery::Get(kit_.Sys()).ReadJournalFor("");
    EXPECT_OK(queries);
    return **queries;
  }

  // The texts of the elements received until `n` arrived.
  std::vector<std::string> Receive(std::size_t n) {
    std::vector<std::string> texts;
    while (texts.size() < n) {
      QueryElements got = kit_.ExpectMsg<QueryElements>();
      for (const EventEnvelope& e : got.elements) {
        texts.push_back(*e.event.As<std::string>());
      }
    }
    return texts;
  }

  TestKit kit_;
};

TEST_F(QuerySourceTest, SendsWhatWasAskedForThenCompletes) {
  WriteTagged(1, 5);
  ActorRef source = kit_.Sys().ActorOf(QuerySource::Props(
      Queries().CurrentEventsByTag("t", 0), kit_.TestActor()));
  kit_.Watch(source);
  source.Tell(QueryDemand{2}, kit_.TestActor());
  EXPECT_THAT(Receive(2), ElementsAre("e1", "e2"));
  kit_.ExpectNoMsg();  // no demand, nothing sent
  source.Tell(QueryDemand{10}, kit_.TestActor());
  EXPECT_THAT(Receive(3), ElementsAre("e3", "e4", "e5"));
  kit_.ExpectMsg<QueryCompleted>();
  kit_.ExpectTerminated(source);
}

TEST_F(QuerySourceTest, FollowsALiveQuery) {
  WriteTagged(1, 1);
  ActorRef source = kit_.Sys().ActorOf(QuerySource::Props(
      Queries().EventsByTag("t", 0), kit_.TestActor(), /*max_batch=*/2));
  source.Tell(QueryDemand{3}, kit_.TestActor());
  EXPECT_THAT(Receive(1), ElementsAre("e1"));
  WriteTagged(2, 4);
  // Demand 3: e2 and e3 only, e4 waits for more demand.
  EXPECT_THAT(Receive(2), ElementsAre("e2", "e3"));
  kit_.ExpectNoMsg();
  source.Tell(QueryDemand{1}, kit_.TestActor());
  EXPECT_THAT(Receive(1), ElementsAre("e4"));
  kit_.Watch(source);
  kit_.Sys().Stop(source);
  kit_.ExpectTerminated(source);
}

TEST_F(QuerySourceTest, AsksForNothingWithoutDemandAndReportsAFailure) {
  WriteTagged(1, 1);
  absl::StatusOr<Journal*> journal =
      Persistence::Get(kit_.Sys()).JournalFor("");
  ASSERT_OK(journal);
  AtomicWrite unreadable = testing::Single(
      "a", 2, serialization::Payload::Of(testing::FailsToDecode{}));
  unreadable.events[0].tags = {"t"};
  ASSERT_OK(testing::WriteMessages(**journal, {std::move(unreadable)}).batch);
  ActorRef source = kit_.Sys().ActorOf(QuerySource::Props(
      Queries().CurrentEventsByTag("t", 0), kit_.TestActor()));
  kit_.Watch(source);
  source.Tell(QueryDemand{0}, kit_.TestActor());
  kit_.ExpectNoMsg();  // no demand: no Pull
  source.Tell(QueryDemand{1}, kit_.TestActor());
  EXPECT_THAT(Receive(1), ElementsAre("e1"));
  source.Tell(QueryDemand{5}, kit_.TestActor());
  QueryFailed failed = kit_.ExpectMsg<QueryFailed>();
  EXPECT_EQ(failed.cause.code(), absl::StatusCode::kDataLoss);
  kit_.ExpectTerminated(source);
}

}  // namespace
}  // namespace cairn::persistence
