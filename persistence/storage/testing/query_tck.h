#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_QUERY_TCK_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_QUERY_TCK_H_

// The query conformance suites: a port of Akka's Persistence Query specs
// (CurrentEventsByPersistenceIdSpec, EventsByPersistenceIdSpec,
// CurrentEventsByTagSpec, EventsByTagSpec, CurrentPersistenceIdsSpec,
// PersistenceIdsSpec) to
// cairn's ReadJournal (read_journal.h, docs/QUERIES.md). Every journal
// plugin with queries runs them: a test binary links
// //persistence/storage/testing:query_tck and instantiates the suites with
// its plugins, inside namespace cairn::persistence::testing:
//
//   CAIRN_INSTANTIATE_QUERY_TCK(Plugin, RocksDbPlugins());
//
// Every test case gets a fresh PluginRegistry and an empty directory, a
// journal made through the registry by id, as the runtime does, and the
// journal's read journal. Nothing waits on time: a live query's waiting
// Pull is proven by what it delivers after a commit, and every wait has
// kCallDeadline (sync_calls.h).

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/read_journal.h"
#include "persistence/storage/testing/plugin_under_test.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::persistence::testing {

using EnvelopeStream = QueryStream<EventEnvelope>;
using EnvelopeBatch = EnvelopeStream::Batch;
using IdStream = QueryStream<std::string>;
using IdBatch = IdStream::Batch;

// What the suites share: the journal, its read journal, and writes made
// the way a persistent actor makes them (the next sequence number of the
// persistence id, one AtomicWrite per event).
class QueryTest : public ::testing::TestWithParam<PluginUnderTest> {
 protected:
  void SetUp() override;
  // Destroys the read journal, then the journal.
  void TearDown() override;

  // Stores `text` (a std::string payload) as the next event of
  // `persistence_id` with `tags`, in a call of its own; a test failure
  // unless it is stored. Returns its sequence number.
  int64_t Persist(const std::string& persistence_id, const std::string& text,
                  std::vector<std::string> tags = {});
  // Stores "<id>-<n>" for the next `count` sequence numbers n, one call
  // each.
  void PersistNumbered(const std::string& persistence_id, int count,
                       const std::vector<std::string>& tags = {});
  void DeleteTo(const std::string& persistence_id, int64_t to);

  // Everything a query delivers: Pulls of `max` until it completes. A test
  // failure if a Pull fails, a batch holds more than `max`, or one is
  // empty without completing.
  std::vector<EventEnvelope> Drain(EnvelopeStream& stream, std::size_t max);
  std::vector<std::string> DrainIds(IdStream& stream, std::size_t max);

  struct Pulled {
    std::vector<EventEnvelope> events;
    bool complete = false;
  };
  // Pulls of `max` until at least `count` events came or the query
  // completed. For live queries: a Pull that finds nothing waits for a
  // commit, so the test writes first (or from another thread).
  Pulled PullAtLeast(EnvelopeStream& stream, std::size_t count,
                     std::size_t max);

  // The batch a Pull started with StartPull (sync_calls.h) delivered; a
  // test failure (and an empty batch) if it failed or did not call back
  // within kCallDeadline.
  template <typename Batch>
  static Batch Await(Slot<absl::StatusOr<Batch>>& slot) {
    std::optional<absl::StatusOr<Batch>> got = slot.Wait();
    if (!got.has_value()) {
      ADD_FAILURE() << "the Pull did not call back in time";
      return {};
    }
    if (!got->ok()) {
      ADD_FAILURE() << "the Pull failed: " << got->status();
      return {};
    }
    return **std::move(got);
  }

  std::optional<TempDir> dir_;
  PluginRegistry plugins_;
  std::unique_ptr<Journal> journal_;
  std::unique_ptr<ReadJournal> queries_;
  std::map<std::string, int64_t> highest_;  // per persistence id, as written
};

// The std::string events of `events` ("?" for other payloads).
std::vector<std::string> EventTexts(const std::vector<EventEnvelope>& events);
// "<persistence id>:<sequence nr>" of each envelope.
std::vector<std::string> Positions(const std::vector<EventEnvelope>& events);

// One fixture per Akka spec, so that test names say which spec a case
// ports.
class CurrentEventsByPersistenceIdSpec : public QueryTest {};
class EventsByPersistenceIdSpec : public QueryTest {};
class CurrentPersistenceIdsSpec : public QueryTest {};
class PersistenceIdsSpec : public QueryTest {};

// The by-tag suites start with Akka's events (tags in braces), one call
// each, in this order:
//   a-1 "hello" {}          a-2 "a green apple" {green, apple}
//   b-1 "a black car" {black}
//   a-3 "something else" {} a-4 "a green banana" {green}
//   b-2 "a green leaf" {green}
class TaggedEventsSpec : public QueryTest {
 protected:
  void SetUp() override;
};
class CurrentEventsByTagSpec : public TaggedEventsSpec {};
class EventsByTagSpec : public TaggedEventsSpec {};

// gtest test names: the plugin's name.
std::string QueryPluginName(
    const ::testing::TestParamInfo<PluginUnderTest>& info);

}  // namespace cairn::persistence::testing

// Instantiates every query suite for the given plugins (PluginUnderTest
// values), test names prefixed by `prefix` and suffixed by each plugin's
// name. Use once per binary and prefix, inside namespace
// cairn::persistence::testing.
#define CAIRN_INSTANTIATE_QUERY_TCK(prefix, ...)                             \
  INSTANTIATE_TEST_SUITE_P(prefix, CurrentEventsByPersistenceIdSpec,         \
                           ::testing::Values(__VA_ARGS__), QueryPluginName); \
  INSTANTIATE_TEST_SUITE_P(prefix, EventsByPersistenceIdSpec,                \
                           ::testing::Values(__VA_ARGS__), QueryPluginName); \
  INSTANTIATE_TEST_SUITE_P(prefix, CurrentEventsByTagSpec,                   \
                           ::testing::Values(__VA_ARGS__), QueryPluginName); \
  INSTANTIATE_TEST_SUITE_P(prefix, EventsByTagSpec,                          \
                           ::testing::Values(__VA_ARGS__), QueryPluginName); \
  INSTANTIATE_TEST_SUITE_P(prefix, CurrentPersistenceIdsSpec,                \
                           ::testing::Values(__VA_ARGS__), QueryPluginName); \
  INSTANTIATE_TEST_SUITE_P(prefix, PersistenceIdsSpec,                       \
                           ::testing::Values(__VA_ARGS__), QueryPluginName)

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_QUERY_TCK_H_
