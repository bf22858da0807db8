#include "persistence/rocksdb/internal/state_codec.h"

#include <climits>
#include <cstddef>

#include "absl/strings/escaping.h"
#include "base/crc32c.h"
#include "base/string_view.h"
#include "base/varint.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::rocksdb_internal {

using plugin_support::Corrupt;

namespace {

constexpr uint64_t kHasValue = 1;
constexpr uint64_t kKnownFlags = kHasValue;
constexpr size_t kOffsetBytes = 8;
constexpr size_t kChecksumBytes = 4;
// First bytes a later format may take; a value beginning with one is
// refused as too new, any other as damaged (as event_codec.cc does).
constexpr unsigned kHighestFutureFormat = 63;

uint64_t ReadBigEndian(std::string_view in) {
  uint64_t value = 0;
  for (char c : in) value = (value << 8) | static_cast<unsigned char>(c);
  return value;
}

uint32_t Checksum(std::string_view persistence_id, std::string_view body) {
  return base::Crc32c(body, base::Crc32c(StateKey(persistence_id)));
}

void AppendBytes(std::string& out, std::string_view bytes) {
  base::AppendVarint(out, bytes.size());
  out.append(bytes);
}

// Reads a record's fields in order; each call false if the value ends
// inside the field.
class Reader {
 public:
  explicit Reader(std::string_view body) : body_(body) {}
  bool Varint(uint64_t& value) { return base::ReadVarint(body_, pos_, value); }
  bool LengthPrefixed(std::string_view& bytes) {
    uint64_t n = 0;
    if (!Varint(n) || n > body_.size() - pos_) return false;
    bytes = body_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  std::string_view Rest() const { return body_.substr(pos_); }

 private:
  std::string_view body_;
  size_t pos_ = 0;
};

absl::Status CorruptState(std::string_view why) {
  return Corrupt("durable state record", why);
}

}  // namespace

std::string StateKey(std::string_view persistence_id) {
  return StreamPrefix(persistence_id);
}

std::string StateTagKey(std::string_view tag, int64_t offset) {
  return TagKey(tag, offset);
}

std::string StateTagEnd(std::string_view tag) { return StreamEnd(tag); }

absl::StatusOr<int64_t> DecodeStateTagKey(std::string_view tag,
                                          std::string_view key) {
  const std::string prefix = StreamPrefix(tag);
  if (key.size() != prefix.size() + kOffsetBytes ||
      key.substr(0, prefix.size()) != prefix) {
    return absl::DataLossError(base::StrCat(
        "the durable state tag index of tag '", tag, "' holds the key ",
        absl::BytesToHexString(base::Av(key)), ", which is not one of its"));
  }
  const uint64_t offset = ReadBigEndian(key.substr(prefix.size()));
  if (offset == 0 || offset > uint64_t{INT64_MAX}) {
    return absl::DataLossError(
        base::StrCat("the durable state tag index of tag '", tag,
                     "' holds an entry at offset ", offset, ", out of range"));
  }
  return static_cast<int64_t>(offset);
}

std::string EncodeStateOffset(int64_t offset) {
  // The same 8 big-endian bytes as the other families' highest offsets.
  return EncodeTagOffset(offset);
}

absl::StatusOr<int64_t> DecodeStateOffset(std::string_view value) {
  if (value.size() != kOffsetBytes) {
    return absl::DataLossError(
        base::StrCat("the highest durable state offset is ", value.size(),
                     " bytes, not ", kOffsetBytes));
  }
  const uint64_t offset = ReadBigEndian(value);
  if (offset > uint64_t{INT64_MAX}) {
    return absl::DataLossError("the highest durable state offset is negative");
  }
  return static_cast<int64_t>(offset);
}

std::string EncodeState(std::string_view persistence_id,
                        const StateRecord& record) {
  std::string out;
  out.reserve(32 + record.manifest.size() + record.tag.size() +
              record.payload.size());
  out.push_back(static_cast<char>(kStateFormat));
  base::AppendVarint(out, record.has_value ? kHasValue : 0);
  base::AppendVarint(out, static_cast<uint64_t>(record.revision));
  base::AppendVarint(out, static_cast<uint64_t>(record.offset));
  base::AppendVarint(out, base::ZigZag(record.timestamp_ms));
  AppendBytes(out, record.tag);
  if (record.has_value) {
    base::AppendVarint(out, base::ZigZag(record.serializer_id));
    AppendBytes(out, record.manifest);
    out.append(record.payload);
  }
  const uint32_t checksum = Checksum(persistence_id, out);
  for (size_t i = 0; i < kChecksumBytes; ++i) {
    out.push_back(static_cast<char>(checksum >> (8 * i)));
  }
  return out;
}

absl::StatusOr<StateRecord> DecodeState(std::string_view persistence_id,
                                        std::string_view value) {
  auto error = [&](const absl::Status& cause) {
    return StateError(persistence_id, cause);
  };
  const unsigned first =
      value.empty() ? 0 : static_cast<unsigned char>(value[0]);
  if (first != kStateFormat) {
    if (first > kStateFormat && first <= kHighestFutureFormat) {
      return error(absl::FailedPreconditionError(base::StrCat(
          "a durable state record in format ", first,
          ", which this build does not know (written by a newer cairn?)")));
    }
    return error(CorruptState(
        base::StrCat("its first byte, ", first, ", names no format")));
  }
  if (value.size() < 1 + kChecksumBytes) {
    return error(CorruptState("shorter than a record can be"));
  }
  const std::string_view body = value.substr(0, value.size() - kChecksumBytes);
  uint32_t stored_checksum = 0;
  for (size_t i = 0; i < kChecksumBytes; ++i) {
    stored_checksum |= static_cast<uint32_t>(
                           static_cast<unsigned char>(value[body.size() + i]))
                       << (8 * i);
  }
  if (Checksum(persistence_id, body) != stored_checksum) {
    return error(
        CorruptState("checksum mismatch (damaged, or another id's record)"));
  }
  Reader in(body.substr(1));
  uint64_t flags = 0, revision = 0, offset = 0, timestamp = 0;
  StateRecord record;
  if (!in.Varint(flags) || !in.Varint(revision) || !in.Varint(offset) ||
      !in.Varint(timestamp) || !in.LengthPrefixed(record.tag)) {
    return error(CorruptState("it ends inside its header"));
  }
  if ((flags & ~kKnownFlags) != 0) {
    return error(CorruptState(base::StrCat("unknown flags ", flags)));
  }
  if (revision < 1 || revision > uint64_t{INT64_MAX}) {
    return error(CorruptState(base::StrCat("revision ", revision)));
  }
  record.has_value = (flags & kHasValue) != 0;
  // Offset 0 only for a deleted id without an index entry, and so no tag.
  if (offset > uint64_t{INT64_MAX} ||
      (offset == 0 && (record.has_value || !record.tag.empty()))) {
    return error(CorruptState(base::StrCat("offset ", offset)));
  }
  record.revision = static_cast<int64_t>(revision);
  record.offset = static_cast<int64_t>(offset);
  record.timestamp_ms = base::UnZigZag(timestamp);
  if (!record.has_value) {
    if (!in.Rest().empty()) {
      return error(CorruptState("bytes after a deleted value's tag"));
    }
    return record;
  }
  uint64_t serializer = 0;
  if (!in.Varint(serializer) || !in.LengthPrefixed(record.manifest)) {
    return error(CorruptState("it ends inside its fields"));
  }
  const int64_t serializer_id = base::UnZigZag(serializer);
  if (serializer_id < INT32_MIN || serializer_id > INT32_MAX) {
    return error(CorruptState("its serializer id is out of range"));
  }
  record.serializer_id = static_cast<int32_t>(serializer_id);
  record.payload = in.Rest();
  return record;
}

absl::Status StateError(std::string_view persistence_id,
                        const absl::Status& cause) {
  return absl::Status(cause.code(),
                      base::StrCat("durable state of persistence id '",
                                   persistence_id, "': ", cause.message()));
}

}  // namespace cairn::persistence::rocksdb_internal
