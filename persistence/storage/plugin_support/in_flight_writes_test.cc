// InFlightWrites on its own: which reads are held, and which write's end
// releases them. Reads are "started" into a list, on the calling thread.

#include "persistence/storage/plugin_support/in_flight_writes.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cairn::persistence::plugin_support {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class InFlightWritesTest : public ::testing::Test {
 protected:
  // A read that notes `name` in started_ when it runs.
  void Read(const std::string& id, const std::string& name) {
    in_flight_.StartRead(id, [this, name] { started_.push_back(name); });
  }

  std::vector<std::string> started_;
  InFlightWrites in_flight_{
      [](InFlightWrites::Read read) { std::move(read)(); }};
};

TEST_F(InFlightWritesTest, StartsAReadOfAStreamWithNothingInFlightAtOnce) {
  Read("p", "p-read");
  EXPECT_THAT(started_, ElementsAre("p-read"));
  // Ended writes leave nothing behind.
  const std::vector<std::string> p = {"p"};
  in_flight_.End(p, in_flight_.Begin(p));
  Read("p", "p-read-2");
  EXPECT_THAT(started_, ElementsAre("p-read", "p-read-2"));
}

TEST_F(InFlightWritesTest, HoldsAReadUntilTheWriteBeforeItEnds) {
  const std::vector<std::string> p = {"p"};
  const InFlightWrites::Ticket write = in_flight_.Begin(p);
  Read("p", "p-read");
  Read("q", "q-read");  // another stream: no wait
  EXPECT_THAT(started_, ElementsAre("q-read"));
  EXPECT_EQ(in_flight_.held_reads(), 1u);
  in_flight_.End(p, write);
  EXPECT_THAT(started_, ElementsAre("q-read", "p-read"));
  EXPECT_EQ(in_flight_.held_reads(), 0u);
}

TEST_F(InFlightWritesTest, HoldsReadsOfEveryIdOfAWrite) {
  const std::vector<std::string> ids = {"p", "q", "p"};
  const InFlightWrites::Ticket write = in_flight_.Begin(ids);
  Read("p", "p-read");
  Read("q", "q-read");
  Read("r", "r-read");
  EXPECT_THAT(started_, ElementsAre("r-read"));
  in_flight_.End(ids, write);
  EXPECT_THAT(started_, ElementsAre("r-read", "p-read", "q-read"));
}

// Writes of one id begun after a read do not hold it: a stream written
// without pause does not starve its readers.
TEST_F(InFlightWritesTest, AReadWaitsOnlyForTheWritesBegunBeforeIt) {
  const std::vector<std::string> p = {"p"};
  const InFlightWrites::Ticket first = in_flight_.Begin(p);
  Read("p", "after-first");
  const InFlightWrites::Ticket second = in_flight_.Begin(p);
  Read("p", "after-second");
  in_flight_.End(p, first);
  EXPECT_THAT(started_, ElementsAre("after-first"));
  in_flight_.End(p, second);
  EXPECT_THAT(started_, ElementsAre("after-first", "after-second"));
}

// Two threads' writes of one id may reach the writer, and end, in the
// other order than they began: a read waits for both that began before it.
TEST_F(InFlightWritesTest, AWriteEndingOutOfOrderReleasesNothingEarly) {
  const std::vector<std::string> p = {"p"};
  const InFlightWrites::Ticket first = in_flight_.Begin(p);
  Read("p", "after-first");
  const InFlightWrites::Ticket second = in_flight_.Begin(p);
  Read("p", "after-second");
  in_flight_.End(p, second);
  EXPECT_THAT(started_, IsEmpty());
  in_flight_.End(p, first);
  EXPECT_THAT(started_, ElementsAre("after-first", "after-second"));
}

TEST_F(InFlightWritesTest, AWriteOfNoIdsHoldsNothing) {
  const std::vector<std::string> none;
  const InFlightWrites::Ticket write = in_flight_.Begin(none);
  Read("p", "p-read");
  in_flight_.End(none, write);
  EXPECT_THAT(started_, ElementsAre("p-read"));
}

// A group commit ends its writes together: each held read goes once the
// writes begun before it have ended, whichever streams they wrote, and a
// read held by a write outside the group stays held.
TEST_F(InFlightWritesTest, EndAllEndsEachWriteOfAGroup) {
  const std::vector<std::string> p = {"p"};
  const std::vector<std::string> q = {"q"};
  const InFlightWrites::Ticket p_first = in_flight_.Begin(p);
  const InFlightWrites::Ticket q_write = in_flight_.Begin(q);
  Read("p", "p-read");
  Read("q", "q-read");
  const InFlightWrites::Ticket p_later = in_flight_.Begin(p);
  Read("p", "p-read-later");
  const InFlightWrites::Ended group[] = {{p, p_first}, {q, q_write}};
  in_flight_.EndAll(group);
  EXPECT_THAT(started_, ElementsAre("p-read", "q-read"));
  EXPECT_EQ(in_flight_.held_reads(), 1u);
  in_flight_.End(p, p_later);
  EXPECT_THAT(started_, ElementsAre("p-read", "q-read", "p-read-later"));
}

// A read started by End may start another read of the same stream (a
// callback calling the journal again): End holds no lock while it starts.
TEST_F(InFlightWritesTest, AReleasedReadMayStartAnother) {
  const std::vector<std::string> p = {"p"};
  const InFlightWrites::Ticket write = in_flight_.Begin(p);
  in_flight_.StartRead("p", [this] {
    started_.push_back("outer");
    Read("p", "inner");
  });
  in_flight_.End(p, write);
  EXPECT_THAT(started_, ElementsAre("outer", "inner"));
}

}  // namespace
}  // namespace cairn::persistence::plugin_support
