// CollectAll over streams that answer as the test says: whole queries in
// batches, a failure, a plugin that breaks the contract, and one that does
// not answer in time.
#include "persistence/storage/collect_query.h"

#include <cstddef>
#include <deque>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cairn::persistence {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Batch = QueryStream<std::string>::Batch;
using Outcome = absl::StatusOr<Batch>;

// Answers each Pull with the next scripted outcome, on a thread of its own
// (as a plugin: never inside Pull); records what each Pull asked for. With
// no outcome left it keeps the callback, for the test to run later.
class ScriptedStream final : public QueryStream<std::string> {
 public:
  explicit ScriptedStream(std::deque<Outcome> script)
      : script_(std::move(script)) {}
  ~ScriptedStream() override {
    for (std::thread& t : threads_) t.join();
  }

  void Pull(std::size_t max, PullCallback done) override {
    asked_.push_back(max);
    if (script_.empty()) {
      kept_ = std::move(done);
      return;
    }
    Outcome next = std::move(script_.front());
    script_.pop_front();
    threads_.emplace_back(
        [done = std::move(done), next = std::move(next)]() mutable {
          std::move(done)(std::move(next));
        });
  }

  const std::vector<std::size_t>& asked() const { return asked_; }
  PullCallback& kept() { return kept_; }

 private:
  std::deque<Outcome> script_;
  std::vector<std::size_t> asked_;
  std::vector<std::thread> threads_;
  PullCallback kept_;
};

Batch Of(std::vector<std::string> elements, bool complete = false) {
  return Batch{std::move(elements), complete};
}

TEST(CollectAllTest, ReadsEveryBatchUntilTheQueryCompletes) {
  ScriptedStream stream({Of({"a", "b"}), Of({"c"}), Of({}, true)});
  absl::StatusOr<std::vector<std::string>> all =
      CollectAll(stream, absl::Seconds(60), 2);
  ASSERT_OK(all);
  EXPECT_THAT(*all, ElementsAre("a", "b", "c"));
  EXPECT_THAT(stream.asked(), ElementsAre(2, 2, 2));
}

TEST(CollectAllTest, AFailedPullEndsItWithTheQuerysError) {
  ScriptedStream stream(
      {Of({"a", "b"}), absl::DataLossError("event p/3 cannot be read")});
  absl::StatusOr<std::vector<std::string>> all =
      CollectAll(stream, absl::Seconds(60), 2);
  EXPECT_EQ(all.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(all.status().message(), HasSubstr("after 2 elements"));
  EXPECT_THAT(all.status().message(), HasSubstr("event p/3 cannot be read"));
}

TEST(CollectAllTest, APluginThatBreaksTheContractIsAnInternalError) {
  ScriptedStream empty({Of({})});  // empty and not complete
  EXPECT_EQ(CollectAll(empty, absl::Seconds(60), 2).status().code(),
            absl::StatusCode::kInternal);
  ScriptedStream large({Of({"a", "b", "c"})});
  EXPECT_EQ(CollectAll(large, absl::Seconds(60), 2).status().code(),
            absl::StatusCode::kInternal);
}

TEST(CollectAllTest, ABatchOfZeroIsInvalid) {
  ScriptedStream stream({});
  EXPECT_EQ(CollectAll(stream, absl::Seconds(60), 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(stream.asked().empty());
}

// A query that does not complete in time (here a Pull never answered, as
// a live query with nothing new) ends with DeadlineExceeded; the Pull's
// late answer is harmless.
TEST(CollectAllTest, AQueryThatDoesNotCompleteInTimeIsDeadlineExceeded) {
  ScriptedStream stream({Of({"a"})});
  absl::StatusOr<std::vector<std::string>> all =
      CollectAll(stream, absl::Milliseconds(50), 10);
  EXPECT_EQ(all.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(all.status().message(), HasSubstr("1 elements came"));
  ASSERT_EQ(stream.asked().size(), 2u);
  std::move(stream.kept())(Of({"late"}, true));
}

}  // namespace
}  // namespace cairn::persistence
