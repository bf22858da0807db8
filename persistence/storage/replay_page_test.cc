// ReplayPage: events deserialized already and serialized ones come out in
// order, deserialized where the page is read; a stream whose events take
// turns between manifests keeps each manifest once; a payload that does
// not deserialize stops the page, naming the record.

#include "persistence/storage/replay_page.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ReplayPageTest : public ::testing::Test {
 protected:
  // Appends `value` to `page` serialized, as a journal would.
  void AddSerialized(ReplayPage& page, int64_t sequence_nr,
                     serialization::Payload value) {
    absl::StatusOr<serialization::SerializedPayload> bytes =
        registry_->Serialize(value);
    ASSERT_OK(bytes);
    page.AddSerialized(sequence_nr, bytes->serializer_id, bytes->manifest,
                       bytes->bytes);
  }

  // Each event as "<sequence nr>:<text or amount>".
  std::vector<std::string> Read(const ReplayPage& page,
                                absl::Status* status = nullptr) {
    std::vector<std::string> seen;
    absl::Status read = page.ForEach(
        "p-1", [&](const serialization::Payload& payload, int64_t n) {
          if (const auto* text = payload.As<std::string>()) {
            seen.push_back(absl::StrCat(n, ":", *text));
          } else if (const auto* amount = payload.As<testing::Amount>()) {
            seen.push_back(absl::StrCat(n, ":", amount->value));
          } else {
            seen.push_back(absl::StrCat(n, ":?"));
          }
          return true;
        });
    if (status != nullptr) *status = read;
    return seen;
  }

  std::shared_ptr<const serialization::SerializationRegistry> registry_ =
      testing::NewTestSerialization();
};

TEST_F(ReplayPageTest, GivesEveryEventInOrderWhicheverWayItCame) {
  ReplayPage page(registry_);
  page.AddPayload(1, serialization::Payload::Of(std::string("a")));
  ASSERT_NO_FATAL_FAILURE(
      AddSerialized(page, 2, serialization::Payload::Of(std::string("b"))));
  ASSERT_NO_FATAL_FAILURE(
      AddSerialized(page, 3, serialization::Payload::Of(testing::Amount{7})));
  ASSERT_NO_FATAL_FAILURE(
      AddSerialized(page, 4, serialization::Payload::Of(std::string("d"))));
  ASSERT_NO_FATAL_FAILURE(
      AddSerialized(page, 5, serialization::Payload::Of(testing::Amount{9})));
  EXPECT_EQ(page.size(), 5u);
  EXPECT_EQ(page.last_sequence_nr(), 5);
  absl::Status status;
  EXPECT_THAT(Read(page, &status),
              ElementsAre("1:a", "2:b", "3:7", "4:d", "5:9"));
  EXPECT_OK(status);
  // Read again (a page is not used up by reading it).
  EXPECT_THAT(Read(page), ElementsAre("1:a", "2:b", "3:7", "4:d", "5:9"));
}

TEST_F(ReplayPageTest, StopsWhereTheReaderSays) {
  ReplayPage page(registry_);
  for (int64_t n = 1; n <= 3; ++n) {
    ASSERT_NO_FATAL_FAILURE(AddSerialized(
        page, n, serialization::Payload::Of(absl::StrCat("e", n))));
  }
  std::vector<int64_t> seen;
  EXPECT_OK(page.ForEach("p-1", [&](const serialization::Payload&, int64_t n) {
    seen.push_back(n);
    return n < 2;
  }));
  EXPECT_THAT(seen, ElementsAre(1, 2));
}

TEST_F(ReplayPageTest, APayloadThatDoesNotDeserializeStopsThePageNamingIt) {
  ReplayPage page(registry_);
  ASSERT_NO_FATAL_FAILURE(
      AddSerialized(page, 4, serialization::Payload::Of(std::string("ok"))));
  ASSERT_NO_FATAL_FAILURE(AddSerialized(
      page, 5, serialization::Payload::Of(testing::FailsToDecode{5})));
  ASSERT_NO_FATAL_FAILURE(
      AddSerialized(page, 6, serialization::Payload::Of(std::string("no"))));
  absl::Status status;
  EXPECT_THAT(Read(page, &status), ElementsAre("4:ok"));
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("persistence id 'p-1', sequence nr 5"));
}

TEST_F(ReplayPageTest, AnEmptyPageHasNoLastSequenceNumber) {
  ReplayPage page;
  EXPECT_TRUE(page.empty());
  EXPECT_EQ(page.last_sequence_nr(), 0);
  EXPECT_THAT(Read(page), ::testing::IsEmpty());
}

}  // namespace
}  // namespace cairn::persistence
