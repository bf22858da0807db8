#include "persistence/rocksdb/internal/key_codec.h"

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "base/string_view.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

constexpr size_t kLengthBytes = 4;
constexpr size_t kSequenceBytes = 8;

void AppendBigEndian(std::string& out, uint64_t value, size_t bytes) {
  for (size_t i = bytes; i > 0; --i) {
    out.push_back(static_cast<char>((value >> (8 * (i - 1))) & 0xff));
  }
}

uint64_t ReadBigEndian(std::string_view in, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) {
    value = (value << 8) | static_cast<unsigned char>(in[i]);
  }
  return value;
}

absl::Status BadKey(std::string_view key, std::string_view why) {
  return absl::DataLossError(base::StrCat(
      "malformed key ", absl::BytesToHexString(base::Av(key)), ": ", why));
}

// The id of a key that starts with [length][id]; `rest` is what follows.
absl::StatusOr<std::string_view> SplitPrefix(std::string_view key,
                                             std::string_view& rest) {
  if (key.size() < kLengthBytes) return BadKey(key, "too short");
  const uint64_t length = ReadBigEndian(key, kLengthBytes);
  if (length == 0) return BadKey(key, "empty persistence id");
  if (key.size() - kLengthBytes < length) {
    return BadKey(key, "shorter than its persistence id length");
  }
  rest = key.substr(kLengthBytes + length);
  return key.substr(kLengthBytes, length);
}

}  // namespace

std::string StreamPrefix(std::string_view persistence_id) {
  std::string key;
  key.reserve(kLengthBytes + persistence_id.size() + kSequenceBytes + 1);
  AppendBigEndian(key, persistence_id.size(), kLengthBytes);
  key.append(persistence_id);
  return key;
}

std::string RecordKey(std::string_view persistence_id, int64_t sequence_nr) {
  std::string key = StreamPrefix(persistence_id);
  AppendBigEndian(key, static_cast<uint64_t>(sequence_nr), kSequenceBytes);
  return key;
}

void AppendRecordKey(std::string_view persistence_id, int64_t sequence_nr,
                     std::string& out) {
  AppendBigEndian(out, persistence_id.size(), kLengthBytes);
  out.append(persistence_id);
  AppendBigEndian(out, static_cast<uint64_t>(sequence_nr), kSequenceBytes);
}

std::string KeyAfter(std::string_view persistence_id, int64_t sequence_nr) {
  std::string key = RecordKey(persistence_id, sequence_nr);
  key.push_back('\0');
  return key;
}

std::string StreamEnd(std::string_view persistence_id) {
  std::string key = StreamPrefix(persistence_id);
  // Above every real key: sequence numbers are at most 0x7fff...ff.
  key.append(kSequenceBytes, '\xff');
  return key;
}

absl::StatusOr<DecodedKey> DecodeRecordKey(std::string_view key) {
  std::string_view rest;
  absl::StatusOr<std::string_view> id = SplitPrefix(key, rest);
  if (!id.ok()) return id.status();
  if (rest.size() != kSequenceBytes) {
    return BadKey(key, "no 8-byte sequence number after the persistence id");
  }
  const uint64_t sequence_nr = ReadBigEndian(rest, kSequenceBytes);
  if (sequence_nr > uint64_t{INT64_MAX}) {
    return BadKey(key, "sequence number out of range");
  }
  return DecodedKey{*id, static_cast<int64_t>(sequence_nr)};
}

absl::StatusOr<std::string_view> DecodeStreamPrefix(std::string_view key) {
  std::string_view rest;
  absl::StatusOr<std::string_view> id = SplitPrefix(key, rest);
  if (!id.ok()) return id.status();
  if (!rest.empty()) return BadKey(key, "bytes after the persistence id");
  return id;
}

std::string TagKey(std::string_view tag, int64_t offset) {
  return RecordKey(tag, offset);
}

std::string EncodeTagOffset(int64_t offset) {
  std::string value;
  AppendBigEndian(value, static_cast<uint64_t>(offset), kSequenceBytes);
  return value;
}

absl::StatusOr<int64_t> DecodeTagOffset(std::string_view value) {
  if (value.size() != kSequenceBytes) {
    return absl::DataLossError(base::StrCat("the highest tag offset is ",
                                            value.size(), " bytes, not 8"));
  }
  return static_cast<int64_t>(ReadBigEndian(value, kSequenceBytes));
}

std::string IdLogKey(int64_t offset) { return EncodeIdOffset(offset); }

std::string EncodeIdOffset(int64_t offset) {
  std::string value;
  AppendBigEndian(value, static_cast<uint64_t>(offset), kSequenceBytes);
  return value;
}

absl::StatusOr<int64_t> DecodeIdOffset(std::string_view value) {
  if (value.size() != kSequenceBytes) {
    return absl::DataLossError(base::StrCat("the highest id offset is ",
                                            value.size(), " bytes, not 8"));
  }
  return static_cast<int64_t>(ReadBigEndian(value, kSequenceBytes));
}

absl::StatusOr<int64_t> DecodeIdLogKey(std::string_view key) {
  if (key.size() != kSequenceBytes) {
    return BadKey(key, "an id log key is 8 bytes");
  }
  const uint64_t offset = ReadBigEndian(key, kSequenceBytes);
  if (offset < 1 || offset > uint64_t{INT64_MAX}) {
    return BadKey(key, "id offset out of range");
  }
  return static_cast<int64_t>(offset);
}

std::string ManifestKey(uint64_t number) {
  std::string key(1, kManifestKeyTag);
  AppendBigEndian(key, number, kSequenceBytes);
  return key;
}

absl::StatusOr<uint64_t> DecodeManifestKey(std::string_view key) {
  if (key.size() != 1 + kSequenceBytes || key[0] != kManifestKeyTag) {
    return BadKey(key, "not a manifest number's key");
  }
  return ReadBigEndian(key.substr(1), kSequenceBytes);
}

}  // namespace cairn::persistence::rocksdb_internal
