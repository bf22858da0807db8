// DurableStateStoreSpec: durable_state_store.h's contract on every plugin
// that has a durable state store: one value per id under a revision that
// grows by one per write, deletes that keep the revision, the latest
// change per id by tag in offset order, values that cannot be serialized,
// and callbacks off the caller's thread.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/callback_probe.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/tck.h"

namespace cairn::persistence::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The text of a stored value ("<none>" for none).
std::string Text(const absl::StatusOr<DurableStateObject>& object) {
  if (!object.ok())
    return absl::StrCat("<error: ", object.status().ToString(), ">");
  if (!object->value.has_value()) return "<none>";
  const std::string* text = object->value->As<std::string>();
  return text == nullptr ? "<not a string>" : *text;
}

// "<id>@<revision>=<text>" for each change.
std::vector<std::string> Described(
    const absl::StatusOr<std::vector<DurableStateChange>>& changes) {
  std::vector<std::string> out;
  if (!changes.ok()) {
    out.push_back(changes.status().ToString());
    return out;
  }
  for (const DurableStateChange& c : *changes) {
    if (c.deleted) {
      out.push_back(absl::StrCat(c.persistence_id, "@", c.revision,
                                 c.value.empty() ? " deleted" : " deleted?"));
      continue;
    }
    const std::string* text = c.value.As<std::string>();
    out.push_back(absl::StrCat(c.persistence_id, "@", c.revision, "=",
                               text == nullptr ? "?" : *text));
  }
  return out;
}

struct NotSerializable {};

TEST_P(DurableStateStoreSpec, AnIdNeverWrittenHasNoValueAndRevisionZero) {
  absl::StatusOr<DurableStateObject> object = GetObject(*store_, "nobody");
  ASSERT_OK(object);
  EXPECT_FALSE(object->value.has_value());
  EXPECT_EQ(object->revision, 0);
}

TEST_P(DurableStateStoreSpec, EachUpsertReplacesTheValueAtTheNextRevision) {
  ASSERT_OK(UpsertObject(*store_, "p-1", 1,
                         serialization::Payload::Of(std::string("one"))));
  ASSERT_OK(UpsertObject(*store_, "p-1", 2,
                         serialization::Payload::Of(std::string("two"))));
  absl::StatusOr<DurableStateObject> object = GetObject(*store_, "p-1");
  EXPECT_EQ(Text(object), "two");
  ASSERT_OK(object);
  EXPECT_EQ(object->revision, 2);
}

TEST_P(DurableStateStoreSpec, AWriteNotAtTheNextRevisionChangesNothing) {
  ASSERT_OK(UpsertObject(*store_, "p-1", 1,
                         serialization::Payload::Of(std::string("one"))));
  // Again at 1 (a second writer), and a gap: both refused.
  absl::Status again = UpsertObject(
      *store_, "p-1", 1, serialization::Payload::Of(std::string("other")));
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition) << again;
  EXPECT_THAT(std::string(again.message()), HasSubstr("p-1"));
  absl::Status gap = UpsertObject(
      *store_, "p-1", 3, serialization::Payload::Of(std::string("gap")));
  EXPECT_EQ(gap.code(), absl::StatusCode::kFailedPrecondition) << gap;
  absl::Status delete_stale = DeleteObject(*store_, "p-1", 1);
  EXPECT_EQ(delete_stale.code(), absl::StatusCode::kFailedPrecondition);
  absl::StatusOr<DurableStateObject> object = GetObject(*store_, "p-1");
  EXPECT_EQ(Text(object), "one");
  EXPECT_EQ(object->revision, 1);
  // A first write must be revision 1.
  absl::Status first = UpsertObject(
      *store_, "p-2", 2, serialization::Payload::Of(std::string("x")));
  EXPECT_EQ(first.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(UpsertObject(*store_, "p-2", 0,
                         serialization::Payload::Of(std::string("x")))
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(DurableStateStoreSpec, ADeleteKeepsTheRevisionForTheNextWriter) {
  ASSERT_OK(UpsertObject(*store_, "p-1", 1,
                         serialization::Payload::Of(std::string("one"))));
  ASSERT_OK(DeleteObject(*store_, "p-1", 2));
  absl::StatusOr<DurableStateObject> deleted = GetObject(*store_, "p-1");
  EXPECT_EQ(Text(deleted), "<none>");
  EXPECT_EQ(deleted->revision, 2);
  EXPECT_EQ(UpsertObject(*store_, "p-1", 1,
                         serialization::Payload::Of(std::string("again")))
                .code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(UpsertObject(*store_, "p-1", 3,
                         serialization::Payload::Of(std::string("three"))));
  EXPECT_EQ(Text(GetObject(*store_, "p-1")), "three");
}

TEST_P(DurableStateStoreSpec, AValueThatCannotBeSerializedIsRefused) {
  absl::Status refused = UpsertObject(
      *store_, "p-1", 1, serialization::Payload::Of(NotSerializable{}));
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
  EXPECT_EQ(GetObject(*store_, "p-1")->revision, 0);
}

TEST_P(DurableStateStoreSpec, ChangesByTagAreTheLatestPerIdInOffsetOrder) {
  auto text = [](const char* t) {
    return serialization::Payload::Of(std::string(t));
  };
  ASSERT_OK(UpsertObject(*store_, "a", 1, text("a1"), "blue"));
  ASSERT_OK(UpsertObject(*store_, "b", 1, text("b1"), "blue"));
  ASSERT_OK(UpsertObject(*store_, "c", 1, text("c1"), "red"));
  ASSERT_OK(UpsertObject(*store_, "a", 2, text("a2"), "blue"));  // moves last
  absl::StatusOr<std::vector<DurableStateChange>> all =
      CurrentChanges(*store_, "blue", 0, 100);
  EXPECT_THAT(Described(all), ElementsAre("b@1=b1", "a@2=a2"));
  ASSERT_OK(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_LT((*all)[0].offset, (*all)[1].offset);
  // From an offset on: what changed after it.
  EXPECT_THAT(Described(CurrentChanges(*store_, "blue", (*all)[0].offset, 100)),
              ElementsAre("a@2=a2"));
  // At most `max`.
  EXPECT_THAT(Described(CurrentChanges(*store_, "blue", 0, 1)),
              ElementsAre("b@1=b1"));
  // A delete is reported, as the id's latest change, under its tag.
  ASSERT_OK(DeleteObject(*store_, "b", 2));
  absl::StatusOr<std::vector<DurableStateChange>> after_delete =
      CurrentChanges(*store_, "blue", 0, 100);
  EXPECT_THAT(Described(after_delete), ElementsAre("a@2=a2", "b@2 deleted"));
  ASSERT_OK(after_delete);
  ASSERT_EQ(after_delete->size(), 2u);
  EXPECT_GT((*after_delete)[1].offset, (*all)[1].offset);
  EXPECT_THAT(Described(CurrentChanges(*store_, "blue",
                                       (*after_delete)[0].offset, 100)),
              ElementsAre("b@2 deleted"));
  EXPECT_THAT(Described(CurrentChanges(*store_, "red", 0, 100)),
              ElementsAre("c@1=c1"));
  // Written again, it is a value again; moved to another tag, it leaves
  // the old one.
  ASSERT_OK(UpsertObject(*store_, "b", 3, text("b3"), "red"));
  EXPECT_THAT(Described(CurrentChanges(*store_, "blue", 0, 100)),
              ElementsAre("a@2=a2"));
  EXPECT_THAT(Described(CurrentChanges(*store_, "red", 0, 100)),
              ElementsAre("c@1=c1", "b@3=b3"));
  // An id never written: its delete records the revision, nothing to
  // report.
  ASSERT_OK(DeleteObject(*store_, "never", 1));
  EXPECT_EQ(GetObject(*store_, "never")->revision, 1);
  EXPECT_THAT(Described(CurrentChanges(*store_, "", 0, 100)), ElementsAre());
}

TEST_P(DurableStateStoreSpec, CallbacksRunOffTheCallersThreadInOrder) {
  auto probe = std::make_shared<CallbackProbe>();
  for (int64_t revision = 1; revision <= 20; ++revision) {
    store_->AsyncUpsertObject(
        "p-1", revision,
        serialization::Payload::Of(absl::StrCat("v", revision)), "",
        std::nullopt, [probe, revision](absl::Status s) {
          probe->Ran(static_cast<int>(revision), s.ok());
        });
  }
  store_->AsyncGetObject(
      "p-1", [probe](absl::StatusOr<DurableStateObject> object) {
        probe->Ran(21, object.ok() && object->revision == 20);
      });
  ASSERT_TRUE(probe->WaitFor(21));
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(probe->on_caller(), 0);
  std::vector<int> in_order;
  for (int i = 1; i <= 21; ++i) in_order.push_back(i);
  EXPECT_EQ(probe->order(), in_order);
}

}  // namespace
}  // namespace cairn::persistence::testing
