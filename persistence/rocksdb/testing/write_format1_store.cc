// Writes the store kept in persistence/rocksdb/testdata/format1/, through
// the RocksDB plugins, with event format version 1 (a StoredEvent
// FlatBuffer). //persistence/rocksdb:format1_store_test reads it to prove
// that stores written by that format still recover; see the README there.
//
//   write_format1_store DIR     writes the store at DIR (which must not
//                               exist; its parents are made if missing); a
//                               relative DIR is relative to where `bazel
//                               run` was typed
//
// Written in two opens: the first half is flushed to table files when the
// second open recovers it from the write-ahead log; the second half stays
// in the write-ahead log only. Every value written is fixed (timestamps,
// writer uuids), so a rerun stores the same records; RocksDB's own files
// (ids, file numbers, table properties) differ between runs.
//
// What it writes, in this order (tag offsets in brackets):
//   open 1
//     "long" 1..300 in AtomicWrites of 100: odd n the string "long-<n>",
//       even n Amount{10n}; n % 50 == 0 tagged "fifty" [1..6], n % 100 == 0
//       also "hundred"; writer "writer-long-1", timestamp kEpoch + n
//     "tagged" 1..4 (1..2 in one AtomicWrite, 3 and 4 alone), writer
//       "writer-tagged-1":
//       1 TestEvent{"t-1", 1, ["x"]} tags green [7], adapter "tagged-v1"
//       2 "t-2" tags green, blue, red [8], adapter "tagged-v1"
//       3 Amount{3}, no tags, no adapter manifest
//       4 TestEvent{"t-4", -4, []} tags blue [9], adapter "tagged-v2"
//     kOddId 1..3, writer "writer-odd-1": 1 "caf\xc3\xa9 \xff\x01" tagged
//       green [10]; 2 "a\0b"; 3 Amount{-1} tagged "caf\xc3\xa9" [11]
//     "deleted" 1..5 (Amount{n}), then deleted up to 2
//     "all-deleted" 1..3 ("gone-<n>"), then deleted up to kMaxSequenceNr
//     "rejected" 1 ("r-1") and a rejected write of 2..3 (NotSerializable)
//     snapshots: ("long", 300) Amount{300}; (kOddId, 2) "odd-state\xff";
//       ("tagged", 2) "tagged-2"
//   open 2
//     "long" 301..600 as before, writer "writer-long-2" [12..17]
//     "tagged" 5 "t-5" tags green, blue [18], adapter "tagged-v2", writer
//       "writer-tagged-2"
//     "wal-only" 1 "w-1", 2 "w-2" tagged red [19], writer "writer-wal-1"
//     "deleted" deleted up to 3
//     snapshots: ("long", 450) TestEvent{"long-state", 450, ["a", "b"]};
//       ("tagged", 4) Amount{4}; ("snap-only", 7) "s-7"
// Events not listed otherwise have no tags and no adapter manifest.
// Timestamps (ms): "long" kEpoch + n; the others kEpoch + base + 1000 n, the
// base 100'000 for "tagged", 200'000 kOddId, 300'000 "deleted", 400'000
// "all-deleted", 500'000 "rejected", 600'000 "wal-only". Snapshots: kEpoch +
// 1'000'000 + n ("long"), 1'100'000 + n ("tagged"), 1'200'000 + n (kOddId),
// 1'700'000 + n ("snap-only").

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence::testing {
namespace {

constexpr int64_t kEpoch = 1'700'000'000'000;  // 2023-11-14, in ms
const std::string kOddId = std::string("odd\0id\"\n\xc3(", 10);

PersistentRepr EventOf(const std::string& id, int64_t n,
                       serialization::Payload payload,
                       const std::string& writer, int64_t timestamp,
                       std::vector<std::string> tags = {},
                       std::string adapter_manifest = "") {
  PersistentRepr event;
  event.persistence_id = id;
  event.sequence_nr = n;
  event.payload = std::move(payload);
  event.writer_uuid = writer;
  event.timestamp = timestamp;
  event.tags = std::move(tags);
  event.adapter_manifest = std::move(adapter_manifest);
  return event;
}

TestEventT TestEvent(std::string name, int64_t value,
                     std::vector<std::string> labels) {
  TestEventT event;
  event.name = std::move(name);
  event.value = value;
  event.labels = std::move(labels);
  return event;
}

// "long" from..to in AtomicWrites of 100.
std::vector<AtomicWrite> LongStream(int64_t from, int64_t to,
                                    const std::string& writer) {
  std::vector<AtomicWrite> writes;
  for (int64_t n = from; n <= to; ++n) {
    if ((n - from) % 100 == 0) writes.emplace_back();
    serialization::Payload payload =
        n % 2 == 1 ? serialization::Payload::Of("long-" + std::to_string(n))
                   : serialization::Payload::Of(Amount{10 * n});
    std::vector<std::string> tags;
    if (n % 50 == 0) tags.push_back("fifty");
    if (n % 100 == 0) tags.push_back("hundred");
    writes.back().events.push_back(EventOf(
        "long", n, std::move(payload), writer, kEpoch + n, std::move(tags)));
  }
  return writes;
}

AtomicWrite One(PersistentRepr event) {
  AtomicWrite write;
  write.events.push_back(std::move(event));
  return write;
}

class Writer {
 public:
  explicit Writer(std::string path) : path_(std::move(path)) {}

  // Opens the store, runs `body`, closes the store. False (having said
  // why) if anything failed.
  bool Session(const std::function<void()>& body) {
    RocksDbOptions options;
    options.path = path_;
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
    if (!Check(store.status(), "opening")) return false;
    auto serialization = NewTestSerialization();
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store->NewJournal(serialization);
    if (!Check(journal.status(), "making the journal")) return false;
    journal_ = journal->get();
    std::unique_ptr<SnapshotStore> snapshots =
        store->NewSnapshotStore(serialization);
    snapshots_ = snapshots.get();
    body();
    journal_ = nullptr;
    snapshots_ = nullptr;
    return ok_;
  }

  // Writes `writes` in one call; each must be stored, except those whose
  // index is in `rejected`, which must be rejected.
  void Write(std::vector<AtomicWrite> writes,
             std::vector<size_t> rejected = {}) {
    if (!ok_) return;
    const size_t count = writes.size();
    WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
    if (!Check(outcome.batch, "writing")) return;
    if (outcome.per_write.size() != count) {
      Fail("writing: wrong number of outcomes");
      return;
    }
    for (size_t i = 0; i < count; ++i) {
      bool expect_rejected = false;
      for (size_t r : rejected) expect_rejected |= r == i;
      if (outcome.per_write[i].ok() == expect_rejected) {
        Fail("writing: write " + std::to_string(i) + " was " +
             (expect_rejected
                  ? "stored, not rejected"
                  : "rejected: " + outcome.per_write[i].ToString()));
        return;
      }
    }
  }

  void Delete(const std::string& id, int64_t to) {
    if (ok_) Check(DeleteMessagesTo(*journal_, id, to), "deleting");
  }

  void Snapshot(const std::string& id, int64_t n, int64_t timestamp,
                serialization::Payload state) {
    if (ok_) {
      Check(SaveSnapshot(*snapshots_, {id, n, timestamp}, std::move(state)),
            "saving a snapshot");
    }
  }

 private:
  bool Check(const absl::Status& status, const std::string& what) {
    if (!status.ok()) Fail(what + ": " + status.ToString());
    return status.ok();
  }
  void Fail(const std::string& why) {
    std::cerr << "write_format1_store: " << why << "\n";
    ok_ = false;
  }

  std::string path_;
  Journal* journal_ = nullptr;
  SnapshotStore* snapshots_ = nullptr;
  bool ok_ = true;
};

int WriteStore(const std::string& path) {
  std::error_code error;
  if (std::filesystem::exists(path, error) || error) {
    std::cerr << "write_format1_store: " << path
              << " exists; give a new directory\n";
    return 1;
  }
  const std::filesystem::path parent =
      std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::create_directories(parent, error) &&
      error) {
    std::cerr << "write_format1_store: cannot create " << parent << ": "
              << error.message() << "\n";
    return 1;
  }
  Writer writer(path);
  const bool first = writer.Session([&] {
    writer.Write(LongStream(1, 300, "writer-long-1"));
    const std::string tagged_writer = "writer-tagged-1";
    const int64_t tagged_time = kEpoch + 100'000;
    AtomicWrite tagged_1_2;
    tagged_1_2.events.push_back(EventOf(
        "tagged", 1, serialization::Payload::Of(TestEvent("t-1", 1, {"x"})),
        tagged_writer, tagged_time + 1000, {"green"}, "tagged-v1"));
    tagged_1_2.events.push_back(
        EventOf("tagged", 2, serialization::Payload::Of(std::string("t-2")),
                tagged_writer, tagged_time + 2000, {"green", "blue", "red"},
                "tagged-v1"));
    std::vector<AtomicWrite> tagged;
    tagged.push_back(std::move(tagged_1_2));
    tagged.push_back(
        One(EventOf("tagged", 3, serialization::Payload::Of(Amount{3}),
                    tagged_writer, tagged_time + 3000)));
    tagged.push_back(One(EventOf(
        "tagged", 4, serialization::Payload::Of(TestEvent("t-4", -4, {})),
        tagged_writer, tagged_time + 4000, {"blue"}, "tagged-v2")));
    writer.Write(std::move(tagged));

    const int64_t odd_time = kEpoch + 200'000;
    std::vector<AtomicWrite> odd;
    odd.push_back(One(
        EventOf(kOddId, 1,
                serialization::Payload::Of(std::string("caf\xc3\xa9 \xff\x01")),
                "writer-odd-1", odd_time + 1000, {"green"})));
    odd.push_back(One(
        EventOf(kOddId, 2, serialization::Payload::Of(std::string("a\0b", 3)),
                "writer-odd-1", odd_time + 2000)));
    odd.push_back(
        One(EventOf(kOddId, 3, serialization::Payload::Of(Amount{-1}),
                    "writer-odd-1", odd_time + 3000, {"caf\xc3\xa9"})));
    writer.Write(std::move(odd));

    const int64_t deleted_time = kEpoch + 300'000;
    AtomicWrite deleted;
    for (int64_t n = 1; n <= 5; ++n) {
      deleted.events.push_back(
          EventOf("deleted", n, serialization::Payload::Of(Amount{n}),
                  "writer-deleted-1", deleted_time + 1000 * n));
    }
    writer.Write({std::move(deleted)});
    writer.Delete("deleted", 2);

    const int64_t gone_time = kEpoch + 400'000;
    AtomicWrite gone;
    for (int64_t n = 1; n <= 3; ++n) {
      gone.events.push_back(
          EventOf("all-deleted", n,
                  serialization::Payload::Of("gone-" + std::to_string(n)),
                  "writer-gone-1", gone_time + 1000 * n));
    }
    writer.Write({std::move(gone)});
    writer.Delete("all-deleted", kMaxSequenceNr);

    const int64_t rejected_time = kEpoch + 500'000;
    AtomicWrite refused;
    for (int64_t n = 2; n <= 3; ++n) {
      refused.events.push_back(EventOf(
          "rejected", n,
          serialization::Payload::Of(NotSerializable{static_cast<int>(n)}),
          "writer-rejected-1", rejected_time + 1000 * n));
    }
    std::vector<AtomicWrite> rejected;
    rejected.push_back(One(
        EventOf("rejected", 1, serialization::Payload::Of(std::string("r-1")),
                "writer-rejected-1", rejected_time + 1000)));
    rejected.push_back(std::move(refused));
    writer.Write(std::move(rejected), {1});

    writer.Snapshot("long", 300, kEpoch + 1'000'300,
                    serialization::Payload::Of(Amount{300}));
    writer.Snapshot(kOddId, 2, kEpoch + 1'200'002,
                    serialization::Payload::Of(std::string("odd-state\xff")));
    writer.Snapshot("tagged", 2, kEpoch + 1'100'002,
                    serialization::Payload::Of(std::string("tagged-2")));
  });
  if (!first) return 1;

  const bool second = writer.Session([&] {
    writer.Write(LongStream(301, 600, "writer-long-2"));
    writer.Write({One(EventOf("tagged", 5,
                              serialization::Payload::Of(std::string("t-5")),
                              "writer-tagged-2", kEpoch + 100'000 + 5000,
                              {"green", "blue"}, "tagged-v2"))});
    std::vector<AtomicWrite> wal_only;
    wal_only.push_back(One(
        EventOf("wal-only", 1, serialization::Payload::Of(std::string("w-1")),
                "writer-wal-1", kEpoch + 600'000 + 1000)));
    wal_only.push_back(One(
        EventOf("wal-only", 2, serialization::Payload::Of(std::string("w-2")),
                "writer-wal-1", kEpoch + 600'000 + 2000, {"red"})));
    writer.Write(std::move(wal_only));
    writer.Delete("deleted", 3);

    writer.Snapshot(
        "long", 450, kEpoch + 1'000'450,
        serialization::Payload::Of(TestEvent("long-state", 450, {"a", "b"})));
    writer.Snapshot("tagged", 4, kEpoch + 1'100'004,
                    serialization::Payload::Of(Amount{4}));
    writer.Snapshot("snap-only", 7, kEpoch + 1'700'007,
                    serialization::Payload::Of(std::string("s-7")));
  });
  return second ? 0 : 1;
}

}  // namespace
}  // namespace cairn::persistence::testing

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_format1_store DIR\n";
    return 2;
  }
  // `bazel run` starts the binary in its runfiles: a relative path means
  // relative to where the user typed the command.
  std::string path = argv[1];
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (!path.empty() && path.front() != '/' && cwd != nullptr && *cwd != '\0') {
    path = std::string(cwd) + "/" + path;
  }
  return cairn::persistence::testing::WriteStore(path);
}
