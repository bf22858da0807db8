#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_EVENT_CODEC_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_EVENT_CODEC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/aligned_bytes.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/persistent_repr.h"
#include "serialization/serializer.h"

namespace cairn::persistence::rocksdb_internal {

// An event's stored value, under its RecordKey in the events column
// family, in one of two formats; docs/PERSISTENCE_STORAGE.md has both.
//
// Format 1, read only: a StoredEvent FlatBuffer (stored_event.fbs), which
// repeats the persistence id, writer and manifest in every event: about
// 140 bytes around an 8-byte payload.
//
// Format 2, what this code writes: the fields an event has beyond its key
// and payload, packed, and a checksum. 17-30 bytes around the payload.
//
//   u8      2: the format (format 1 begins with a FlatBuffers root offset,
//           a multiple of 4, so a value says which it is)
//   varint  flags: 1 tags, 2 an adapter manifest, 4 a writer UUID as 16
//           bytes, 8 a writer as text; other bits: refused
//   varint  ZigZag(timestamp), milliseconds since the Unix epoch
//   varint  ZigZag(serializer id)
//   varint  the manifest's number in the store (manifest_table.h; 0: none)
//   the writer: 16 bytes, a lowercase canonical UUID
//           (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx) (flag 4); or varint
//           length and bytes (flag 8); or nothing (empty)
//   varint  length and bytes of the adapter manifest (flag 2)
//   varint  the number of tags, then each as varint length and bytes
//           (flag 1)
//   bytes   the payload, up to the checksum
//   u32     little-endian CRC-32C of the persistence id, the sequence
//           number (8 bytes, big-endian) and every byte above: a record
//           damaged, or stored under another event's key, fails it
inline constexpr unsigned char kCompactEventFormat = 2;

// The stored value of `event` in format 2; its payload was serialized to
// `payload`, whose manifest has number `manifest_number` in the store
// (ManifestTable::NumberOf).
std::string EncodeEvent(const PersistentRepr& event,
                        const serialization::SerializedPayload& payload,
                        uint64_t manifest_number);
// The same, appended to `out` (a key may be in front of it).
void AppendEncodedEvent(const PersistentRepr& event,
                        const serialization::SerializedPayload& payload,
                        uint64_t manifest_number, std::string& out);

// A verified stored event; the views point into the decoded value, into
// `aligned` (format 1's aligned copy), or into `manifest_text` or the
// ManifestMemo given to DecodeEvent (format 2).
struct EventView {
  base::AlignedBytes aligned;
  std::shared_ptr<const std::string> manifest_text;
  int format = 0;
  int64_t timestamp = 0;
  int32_t serializer_id = 0;
  std::string_view manifest;
  // The writer's uuid: its 16 bytes (writer_packed) or its text.
  std::string_view writer;
  bool writer_packed = false;
  std::string_view adapter_manifest;
  std::string_view payload;
  std::vector<std::string_view> tags;

  // The writer's uuid as text; the first into `out`, reusing its storage.
  void WriterUuid(std::string& out) const;
  std::string WriterUuid() const;
};

// The last manifest a scan looked up, so that a stream's events, which
// mostly share one, take the ManifestTable's lock once, not per event.
struct ManifestMemo {
  uint64_t number = 0;
  std::shared_ptr<const std::string> text;  // null: nothing remembered
};

// Verifies `value`, the record of (persistence_id, sequence_nr) (the
// identity its key gives), in either format: format 1 by the FlatBuffers
// Verifier, its file identifier, version, required fields and the identity
// it repeats; format 2 by its checksum and layout, its manifest looked up
// in `view`'s store. DataLoss naming the record otherwise;
// FailedPrecondition for a format this code does not know. A scan passes
// its `memo` from event to event.
absl::StatusOr<EventView> DecodeEvent(const Db::View& view,
                                      std::string_view persistence_id,
                                      int64_t sequence_nr,
                                      std::string_view value,
                                      ManifestMemo* memo = nullptr);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_EVENT_CODEC_H_
