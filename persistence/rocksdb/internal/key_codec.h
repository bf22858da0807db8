#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_KEY_CODEC_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_KEY_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace cairn::persistence::rocksdb_internal {

// Keys of the events and snapshots column families:
//
//   [u32 big-endian length of pid][pid bytes][u64 big-endian sequence nr]
//
// The length prefix makes every stream a contiguous key range that no other
// id can enter: "a" and "ab" have different prefixes ("\0\0\0\1a" vs
// "\0\0\0\2ab"), so "a"'s range never holds "ab"'s keys whatever bytes an id
// contains (NUL included). The big-endian sequence number sorts
// numerically, so replay is one forward scan. Streams sort by id length,
// then bytewise by id.
//
// Keys of the metadata column family are the stream prefix alone.

// [length][pid]: the common prefix of every key of a stream.
std::string StreamPrefix(std::string_view persistence_id);

std::string RecordKey(std::string_view persistence_id, int64_t sequence_nr);
// Appends RecordKey(persistence_id, sequence_nr) to `out`.
void AppendRecordKey(std::string_view persistence_id, int64_t sequence_nr,
                     std::string& out);

// An exclusive upper bound just above RecordKey(pid, sequence_nr): no key
// lies strictly between the two.
std::string KeyAfter(std::string_view persistence_id, int64_t sequence_nr);

// An exclusive upper bound above every key of the stream.
std::string StreamEnd(std::string_view persistence_id);

struct DecodedKey {
  std::string_view persistence_id;  // points into the decoded key
  int64_t sequence_nr = 0;
};

// DataLoss (naming the key in hex) unless `key` is exactly a RecordKey with
// a non-empty id and a sequence number of 0 or more (a snapshot may be taken
// at 0; events start at 1).
absl::StatusOr<DecodedKey> DecodeRecordKey(std::string_view key);

// Keys of the tags column family: the index entry of the event with tag
// offset `offset` under `tag` is TagKey(tag, offset), laid out as a
// RecordKey with the tag in place of the id (DecodeRecordKey reads it), so
// a tag's entries are one key range in offset order. Its value is the
// event's RecordKey. The highest offset given so far is stored under
// kHighestTagOffsetKey (shorter than any TagKey) as 8 big-endian bytes.
std::string TagKey(std::string_view tag, int64_t offset);
inline constexpr char kHighestTagOffsetKey[] = "";
std::string EncodeTagOffset(int64_t offset);
// DataLoss unless `value` is 8 bytes.
absl::StatusOr<int64_t> DecodeTagOffset(std::string_view value);

// Keys of the ids column family (the id log): the entry of the id with id
// offset `offset` (1, 2, ...: one counter per store, in the order ids got
// their first highest sequence number) is IdLogKey(offset), 8 big-endian
// bytes, so the log is one key range in offset order. Its value is the
// persistence id. The highest id offset given so far is stored under
// kHighestIdOffsetKey (shorter than any IdLogKey) as 8 big-endian bytes.
std::string IdLogKey(int64_t offset);
inline constexpr char kHighestIdOffsetKey[] = "";
std::string EncodeIdOffset(int64_t offset);
// DataLoss unless `value` is 8 bytes.
absl::StatusOr<int64_t> DecodeIdOffset(std::string_view value);
// DataLoss (naming the key in hex) unless `key` is an IdLogKey.
absl::StatusOr<int64_t> DecodeIdLogKey(std::string_view key);

// Keys of the names column family (manifest_table.h): a serializer
// manifest's entry is ManifestKey(number), kManifestKeyTag and the number
// as 8 big-endian bytes, so the entries are one key range in number order.
inline constexpr char kManifestKeyTag = 'i';
std::string ManifestKey(uint64_t number);
// DataLoss (naming the key in hex) unless `key` is a ManifestKey.
absl::StatusOr<uint64_t> DecodeManifestKey(std::string_view key);

// DataLoss unless `key` is exactly a StreamPrefix with a non-empty id.
absl::StatusOr<std::string_view> DecodeStreamPrefix(std::string_view key);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_KEY_CODEC_H_
