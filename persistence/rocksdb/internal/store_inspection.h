#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STORE_INSPECTION_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STORE_INSPECTION_H_

// What journal_tool does, over an open database: list the streams, dump one
// as JSON lines, verify every record. Reads only; never writes.
//
// Thread safety: the functions share no state; each reads through the view
// it is given (valid during Db::Read) and calls `problems` on the calling
// thread.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/wal_check.h"

namespace cairn::persistence::rocksdb_internal {

// Receives one problem found while reading: a record that cannot be used,
// or an error of the store. `where` is the column family ("events",
// "snapshots", "metadata") or "store"; `problem`'s message names the
// persistence id and sequence number where they are known.
using ProblemSink = absl::FunctionRef<void(std::string_view where,
                                           const absl::Status& problem)>;

// `text` as a JSON string literal (quotes included). Bytes that are not
// valid UTF-8 are written as \u00XX, the code point of the same number, so
// the output is valid JSON for any bytes.
std::string JsonString(std::string_view text);

// One JSON object per stream that has events or metadata, in key order
// (shorter ids first, then bytewise):
//   {"id":"p-1","highest_sequence_nr":5,"events":3}
// `events` counts the stored (not deleted) events. Returns the number of
// problems reported to `problems` (unreadable keys or metadata).
int64_t ListStreams(const Db::View& view, std::ostream& out,
                    ProblemSink problems);

// Whether `persistence_id` has stored events or metadata (a stream whose
// events were all deleted still has its metadata).
bool HasStream(const Db::View& view, std::string_view persistence_id);

// One JSON object per stored event of `persistence_id`, ascending:
//   {"id":"p-1","seq":1,"manifest":"","serializer_id":1,"writer":"w",
//    "timestamp":1000,"tags":["t"],"payload_size":3,"text":"a-1"}
// `text` only for the string serializer (kStringSerializerId). A record that
// cannot be decoded is reported to `problems` and skipped. Returns the
// number of problems.
int64_t DumpStream(const Db::View& view, std::string_view persistence_id,
                   std::ostream& out, ProblemSink problems);

struct CheckCounts {
  int64_t events = 0;
  int64_t snapshots = 0;
  int64_t metadata = 0;
  int64_t problems = 0;
};

// Reports each problem of the write-ahead logs (wal_check.h) to
// `problems` as "wal"; returns how many.
int64_t ReportWalProblems(const WalReport& logs, ProblemSink problems);

// Sequence numbers from..to of a stream that are not stored.
struct MissingEvents {
  std::string persistence_id;
  int64_t from = 0;
  int64_t to = 0;
};

// Every run of events missing from a stream: between two stored events
// (a journal deletes only from a stream's start, so nothing there was
// deleted), and after the last stored event up to the highest sequence
// number the stream's metadata records (written when it deletes). Events
// missing at a stream's end without such metadata cannot be seen, nor can
// a stream whose every event is missing. In key order. Unreadable keys
// and metadata go to `problems`.
std::vector<MissingEvents> FindMissingEvents(const Db::View& view,
                                             ProblemSink problems);

// Verifies every record of every column family as a read would (keys,
// FlatBuffers envelopes, identities, format versions; not the payloads,
// whose serializers a tool does not have), then RocksDB's checksums of
// every table file. Each problem goes to `problems`.
CheckCounts CheckStore(const Db::View& view, ProblemSink problems);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STORE_INSPECTION_H_
