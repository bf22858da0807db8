#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STATE_CODEC_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STATE_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cairn::persistence::rocksdb_internal {

// Keys and values of the durable state store's two column families
// (db.h's kStateColumnFamily and kStateTagsColumnFamily);
// docs/PERSISTENCE_STORAGE.md has the layout.
//
// `state`: StateKey(id), the id as the journal encodes it (key_codec.h's
// StreamPrefix: a length, then the bytes, so any id, NUL included, is one
// key of its own) -> the id's state record, below.
//
// `state-tags`: StateTagKey(tag, offset), laid out as key_codec.h's TagKey
// (the tag's length and bytes, then the offset as 8 big-endian bytes, so a
// tag's entries are one key range in offset order) -> the persistence id,
// one entry per id with a change to report, under its tag (the empty tag
// too) at the offset of its last change: an upsert, or the delete of a
// value (a tombstone, under the tag the value had). An id deleted without
// ever having had a value has none. The highest offset given so far is
// under kHighestStateOffsetKey (shorter than any entry) as 8 big-endian
// bytes: offsets never go back, so a projection reading on from an offset
// misses nothing.
//
// A state record (format 1):
//
//   u8      1: the format
//   varint  flags: 1 a value (without it: deleted); other bits: refused
//   varint  the revision (1 or more)
//   varint  the offset of its index entry: 1 or more, or 0 for a deleted
//           id that has none (it never had a value)
//   varint  ZigZag(timestamp) of that change, milliseconds since the Unix
//           epoch
//   varint  length and bytes of the tag (empty with offset 0)
//   with a value:
//   varint  ZigZag(serializer id)
//   varint  length and bytes of the serializer manifest (as text: one
//           record per id, rewritten whole, so a number for it as events
//           have (manifest_table.h) would save little)
//   bytes   the serialized value, up to the checksum
//   u32     little-endian CRC-32C of StateKey(id) and every byte above: a
//           record damaged, or stored under another id's key, fails it
//
// A deleted record keeps its tag, offset and timestamp so that
// CurrentChanges reports the delete and the id's next write finds the
// index entry to remove.

inline constexpr unsigned char kStateFormat = 1;
inline constexpr char kHighestStateOffsetKey[] = "";

std::string StateKey(std::string_view persistence_id);
std::string StateTagKey(std::string_view tag, int64_t offset);
// An exclusive upper bound above every StateTagKey of `tag`.
std::string StateTagEnd(std::string_view tag);
// The offset of `key`, a StateTagKey of `tag`; DataLoss (naming the tag)
// for any other key.
absl::StatusOr<int64_t> DecodeStateTagKey(std::string_view tag,
                                          std::string_view key);

std::string EncodeStateOffset(int64_t offset);
// DataLoss unless `value` is 8 bytes holding an offset of 0 or more.
absl::StatusOr<int64_t> DecodeStateOffset(std::string_view value);

// A state record's fields; the views point into the encoded value (or, to
// encode, at the caller's data).
struct StateRecord {
  int64_t revision = 0;
  bool has_value = false;  // false: deleted; the value's fields are unset
  int64_t offset = 0;      // 0: no index entry (deleted, never a value)
  int64_t timestamp_ms = 0;
  std::string_view tag;
  // The value's fields.
  int32_t serializer_id = 0;
  std::string_view manifest;
  std::string_view payload;
};

std::string EncodeState(std::string_view persistence_id,
                        const StateRecord& record);

// Verifies `value`, the record stored under StateKey(persistence_id): its
// format, checksum and layout. DataLoss naming the id if it is damaged;
// FailedPrecondition for a format this code does not know (a newer cairn).
absl::StatusOr<StateRecord> DecodeState(std::string_view persistence_id,
                                        std::string_view value);

// `cause` with "durable state of persistence id '<id>': " in front, so
// that every message about a record names it the same way.
absl::Status StateError(std::string_view persistence_id,
                        const absl::Status& cause);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STATE_CODEC_H_
