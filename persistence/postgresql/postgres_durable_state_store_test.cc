// The PostgreSQL durable state store against a real server (skipped
// without one), beyond DurableStateStoreSpec (tck_test): ids PostgreSQL's
// text cannot hold, fenced writes, two processes on one schema, deletes in
// the changes, offsets in commit order, values that cannot be read, and a
// schema made before the store existed.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/postgres_leases.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/postgresql/postgres_plugin.h"
#include "persistence/postgresql/testing/test_database.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using testing::CurrentChanges;
using testing::DeleteObject;
using testing::GetObject;
using ::testing::HasSubstr;
using testing::Slot;
using testing::TestDatabase;
using testing::UpsertObject;

const absl::Duration kTtl = absl::Seconds(60);

// Sessions of the server waiting for advisory lock `key_sql` (a bigint
// expression, as pg_advisory_xact_lock takes it), as events_by_tag_gap_test
// counts them.
std::string WaitersOf(const std::string& key_sql) {
  return absl::StrCat(
      "(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT "
      "granted AND objsubid = 1 AND classid::bigint = ((",
      key_sql, ")::bigint >> 32) & 4294967295 AND objid::bigint = (", key_sql,
      ")::bigint & 4294967295)");
}

serialization::Payload PayloadOf(const char* text) {
  return serialization::Payload::Of(std::string(text));
}

// The stored text of `object` ("<none>" for none).
std::string TextOf(const absl::StatusOr<DurableStateObject>& object) {
  if (!object.ok()) return object.status().ToString();
  if (!object->value.has_value()) return "<none>";
  const std::string* text = object->value->As<std::string>();
  return text == nullptr ? "<not a string>" : *text;
}

class PostgresDurableStateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
    options_.connection_string = db_->url();
    options_.schema = db_->schema();
    ASSERT_OK(RegisterPostgresPlugins(registry_, options_));
    store_ = NewStore();
    ASSERT_NE(store_, nullptr);
  }

  // A store of its own (connection and thread), as another process's.
  std::unique_ptr<DurableStateStore> NewStore() {
    absl::StatusOr<std::unique_ptr<DurableStateStore>> store =
        registry_.CreateDurableStateStore(kPostgresDurableStateStorePluginId,
                                          {serialization_});
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // The text of `sql`'s one value, polled until it is "t" or a while
  // passed: whether it became true.
  bool Eventually(const std::string& sql) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline) {
      absl::StatusOr<std::vector<std::vector<std::string>>> rows =
          db_->Query(sql);
      if (rows.ok() && !rows->empty() && (*rows)[0][0] == "t") return true;
      absl::SleepFor(absl::Milliseconds(10));
    }
    return false;
  }

  std::string Value(const std::string& sql) {
    absl::StatusOr<std::vector<std::vector<std::string>>> rows =
        db_->Query(sql);
    EXPECT_OK(rows);
    if (!rows.ok() || rows->empty() || (*rows)[0].empty()) return "";
    return (*rows)[0][0];
  }

  std::optional<TestDatabase> db_;  // first: dropped after the rest
  PostgresOptions options_;
  std::shared_ptr<const serialization::SerializationRegistry> serialization_ =
      testing::NewTestSerialization();
  PluginRegistry registry_;
  std::unique_ptr<DurableStateStore> store_;
};

TEST_F(PostgresDurableStateStoreTest, AnIdOrTagWithANulIsRefused) {
  const std::string id("a\0b", 3);
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_EQ(GetObject(*store_, id).status().code(), kInvalid);
  EXPECT_EQ(UpsertObject(*store_, id, 1, PayloadOf("x")).code(), kInvalid);
  EXPECT_EQ(DeleteObject(*store_, id, 1).code(), kInvalid);
  EXPECT_EQ(
      UpsertObject(*store_, "p", 1, PayloadOf("x"), std::string("t\0u", 3))
          .code(),
      kInvalid);
  EXPECT_EQ(
      CurrentChanges(*store_, std::string("t\0u", 3), 0, 10).status().code(),
      kInvalid);
  // Neither "a" nor "p" was stored.
  EXPECT_EQ(GetObject(*store_, "a")->revision, 0);
  EXPECT_EQ(GetObject(*store_, "p")->revision, 0);
}

TEST_F(PostgresDurableStateStoreTest,
       FencedWritesAreAppliedOnlyWhileTheirHoldingIsCurrent) {
  absl::StatusOr<std::unique_ptr<PostgresLeases>> leases =
      PostgresLeases::Open(options_);
  ASSERT_OK(leases);
  absl::StatusOr<WriteFence> a =
      (*leases)->Acquire("shard-1", "process-a", kTtl);
  ASSERT_OK(a);
  ASSERT_OK(UpsertObject(*store_, "account-7", 1, PayloadOf("a-1"), "t", *a));

  ASSERT_OK(db_->Execute(
      "UPDATE cairn_lease SET expires_at = clock_timestamp() - interval "
      "'1 second' WHERE name = 'shard-1'"));
  absl::StatusOr<WriteFence> b =
      (*leases)->Acquire("shard-1", "process-b", kTtl);
  ASSERT_OK(b);

  // Process a wakes up: its writes are refused, naming the lease and its
  // holder, and change nothing.
  absl::Status upserted =
      UpsertObject(*store_, "account-7", 2, PayloadOf("a-2"), "t", *a);
  EXPECT_EQ(upserted.code(), absl::StatusCode::kFailedPrecondition) << upserted;
  EXPECT_THAT(std::string(upserted.message()), HasSubstr("not stored"));
  EXPECT_THAT(std::string(upserted.message()), HasSubstr("'shard-1'"));
  EXPECT_THAT(std::string(upserted.message()), HasSubstr("'process-b'"));
  absl::Status deleted = DeleteObject(*store_, "account-7", 2, *a);
  EXPECT_EQ(deleted.code(), absl::StatusCode::kFailedPrecondition) << deleted;
  EXPECT_THAT(std::string(deleted.message()), HasSubstr("not deleted"));
  absl::StatusOr<DurableStateObject> object = GetObject(*store_, "account-7");
  EXPECT_EQ(TextOf(object), "a-1");
  EXPECT_EQ(object->revision, 1);

  // The current holder's are applied; an unfenced write is not checked.
  EXPECT_OK(UpsertObject(*store_, "account-7", 2, PayloadOf("b-2"), "t", *b));
  EXPECT_OK(DeleteObject(*store_, "account-7", 3, *b));
  EXPECT_OK(UpsertObject(*store_, "account-7", 4, PayloadOf("free-4")));
  EXPECT_EQ(TextOf(GetObject(*store_, "account-7")), "free-4");
}

TEST_F(PostgresDurableStateStoreTest, TwoProcessesCannotBothWriteARevision) {
  std::unique_ptr<DurableStateStore> other = NewStore();
  ASSERT_NE(other, nullptr);
  ASSERT_OK(UpsertObject(*store_, "p", 1, PayloadOf("one")));
  absl::Status again = UpsertObject(*other, "p", 1, PayloadOf("other"));
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition) << again;
  EXPECT_THAT(std::string(again.message()),
              HasSubstr("'p': revision 1 written where revision 1 is stored"));
  ASSERT_OK(UpsertObject(*other, "p", 2, PayloadOf("two")));
  absl::Status stale = DeleteObject(*store_, "p", 2);
  EXPECT_THAT(std::string(stale.message()),
              HasSubstr("revision 2 written where revision 2 is stored"));
  absl::StatusOr<DurableStateObject> object = GetObject(*store_, "p");
  EXPECT_EQ(TextOf(object), "two");
  EXPECT_EQ(object->revision, 2);
}

// A delete is the id's last change under the tag its value had (Akka's
// DeletedDurableState), at a new offset, its row keeping the tag with no
// payload; a delete of an id never written has no tag, and is not reported.
TEST_F(PostgresDurableStateStoreTest, DeletesAreReportedAsTheLastChange) {
  ASSERT_OK(UpsertObject(*store_, "a", 1, PayloadOf("a-1"), "t"));
  ASSERT_OK(UpsertObject(*store_, "b", 1, PayloadOf("b-1"), "t"));
  ASSERT_OK(DeleteObject(*store_, "a", 2));
  ASSERT_OK(DeleteObject(*store_, "never-written", 1));
  EXPECT_EQ(Value("SELECT tag = 't' AND payload IS NULL AND serializer_id IS "
                  "NULL FROM durable_state WHERE persistence_id = 'a'"),
            "t");
  EXPECT_EQ(Value("SELECT tag IS NULL AND revision = 1 FROM durable_state "
                  "WHERE persistence_id = 'never-written'"),
            "t");

  absl::StatusOr<std::vector<DurableStateChange>> changes =
      CurrentChanges(*store_, "t", 0, 10);
  ASSERT_OK(changes);
  ASSERT_EQ(changes->size(), 2u);
  EXPECT_EQ((*changes)[0].persistence_id, "b");
  EXPECT_FALSE((*changes)[0].deleted);
  EXPECT_EQ((*changes)[1].persistence_id, "a");
  EXPECT_TRUE((*changes)[1].deleted);
  EXPECT_EQ((*changes)[1].revision, 2);
  EXPECT_TRUE((*changes)[1].value.empty());
  EXPECT_LT((*changes)[0].offset, (*changes)[1].offset);
  const int64_t first_delete = (*changes)[1].offset;
  // Neither under the untagged values.
  absl::StatusOr<std::vector<DurableStateChange>> untagged =
      CurrentChanges(*store_, "", 0, 10);
  ASSERT_OK(untagged);
  EXPECT_TRUE(untagged->empty());

  // A second delete moves the id's offset: reported once, as its latest.
  ASSERT_OK(DeleteObject(*store_, "a", 3));
  changes = CurrentChanges(*store_, "t", 0, 10);
  ASSERT_OK(changes);
  ASSERT_EQ(changes->size(), 2u);
  EXPECT_EQ((*changes)[1].persistence_id, "a");
  EXPECT_TRUE((*changes)[1].deleted);
  EXPECT_EQ((*changes)[1].revision, 3);
  EXPECT_GT((*changes)[1].offset, first_delete);
  changes = CurrentChanges(*store_, "t", first_delete, 10);
  ASSERT_OK(changes);
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].persistence_id, "a");

  // An upsert after the delete sets the value and the tag again.
  ASSERT_OK(UpsertObject(*store_, "a", 4, PayloadOf("a-4"), "u"));
  changes = CurrentChanges(*store_, "t", 0, 10);
  ASSERT_OK(changes);
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].persistence_id, "b");
  changes = CurrentChanges(*store_, "u", 0, 10);
  ASSERT_OK(changes);
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].persistence_id, "a");
  EXPECT_FALSE((*changes)[0].deleted);
  EXPECT_EQ((*changes)[0].revision, 4);
  const std::string* text = (*changes)[0].value.As<std::string>();
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(*text, "a-4");
}

// A value whose serializer is gone, or whose row was damaged, is reported
// (DataLoss naming the id and revision), not passed over.
TEST_F(PostgresDurableStateStoreTest, AValueThatCannotBeReadIsDataLoss) {
  ASSERT_OK(UpsertObject(*store_, "p", 1, PayloadOf("one"), "t"));
  ASSERT_OK(db_->Execute("UPDATE durable_state SET serializer_id = 987654"));
  absl::StatusOr<DurableStateObject> object = GetObject(*store_, "p");
  EXPECT_EQ(object.status().code(), absl::StatusCode::kDataLoss)
      << object.status();
  EXPECT_THAT(std::string(object.status().message()),
              HasSubstr("'p' at revision 1"));
  EXPECT_EQ(CurrentChanges(*store_, "t", 0, 10).status().code(),
            absl::StatusCode::kDataLoss);
}

// A schema made before the store existed (version 4) gets its table on
// first use, and keeps what it held.
TEST_F(PostgresDurableStateStoreTest, AnOlderSchemaGetsTheTable) {
  store_.reset();
  ASSERT_OK(db_->Execute(
      "DROP FUNCTION cairn_write_state; DROP TABLE durable_state; DROP "
      "SEQUENCE durable_state_offset; UPDATE cairn_schema SET version = 4"));
  store_ = NewStore();
  ASSERT_NE(store_, nullptr);
  ASSERT_OK(UpsertObject(*store_, "p", 1, PayloadOf("one"), "t"));
  EXPECT_EQ(TextOf(GetObject(*store_, "p")), "one");
  EXPECT_EQ(Value("SELECT version FROM cairn_schema"), "5");
}

// The gap problem (events_by_tag_gap_test) for durable state: writer A's
// transaction is held, by a trigger, after it drew its offset; writer B
// must wait for A's commit, so that B's higher offset is never visible
// while A's lower one may still come.
TEST_F(PostgresDurableStateStoreTest, OffsetsRiseInCommitOrder) {
  std::unique_ptr<DurableStateStore> writer_a = NewStore();
  std::unique_ptr<DurableStateStore> writer_b = NewStore();
  ASSERT_NE(writer_a, nullptr);
  ASSERT_NE(writer_b, nullptr);
  // Keys of this schema's own: other tests share the server.
  const std::string hold_key =
      absl::StrCat("hashtext('hold-writer-a:", db_->schema(), "')");
  const std::string ordering_key =
      absl::StrCat("hashtext('cairn-state-ordering:", db_->schema(), "')");
  ASSERT_OK(db_->Execute(absl::StrCat(R"sql(
      CREATE FUNCTION hold_writer_a() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared()sql",
                                      hold_key, R"sql();
        RETURN NULL;
      END $$;
      CREATE TRIGGER hold_writer_a AFTER INSERT ON durable_state
        FOR EACH ROW WHEN (NEW.persistence_id = 'a')
        EXECUTE FUNCTION hold_writer_a();
      SELECT pg_advisory_lock()sql",
                                      hold_key, ")")));
  auto a_done = std::make_shared<Slot<absl::Status>>();
  auto b_done = std::make_shared<Slot<absl::Status>>();
  writer_a->AsyncUpsertObject(
      "a", 1, PayloadOf("a-1"), "t", std::nullopt,
      [a_done](absl::Status s) { a_done->Set(std::move(s)); });
  const bool a_held =
      Eventually(absl::StrCat("SELECT ", WaitersOf(hold_key), " = 1"));
  writer_b->AsyncUpsertObject(
      "b", 1, PayloadOf("b-1"), "t", std::nullopt,
      [b_done](absl::Status s) { b_done->Set(std::move(s)); });
  const bool b_waits =
      Eventually(absl::StrCat("SELECT ", WaitersOf(ordering_key), " = 1"));
  const std::string b_stored =
      Value("SELECT count(*) FROM durable_state WHERE persistence_id = 'b'");
  ASSERT_OK(
      db_->Execute(absl::StrCat("SELECT pg_advisory_unlock(", hold_key, ")")));
  EXPECT_TRUE(a_held) << "writer A's write never reached the trigger";
  EXPECT_TRUE(b_waits) << "writer B did not wait for writer A's commit";
  EXPECT_EQ(b_stored, "0") << "writer B committed while A was held";
  EXPECT_OK(a_done->Wait().value_or(absl::UnknownError("no answer")));
  EXPECT_OK(b_done->Wait().value_or(absl::UnknownError("no answer")));
  absl::StatusOr<std::vector<DurableStateChange>> changes =
      CurrentChanges(*store_, "t", 0, 10);
  ASSERT_OK(changes);
  ASSERT_EQ(changes->size(), 2u);
  EXPECT_EQ((*changes)[0].persistence_id, "a");
  EXPECT_EQ((*changes)[1].persistence_id, "b");
  EXPECT_LT((*changes)[0].offset, (*changes)[1].offset);
}

}  // namespace
}  // namespace cairn::persistence
