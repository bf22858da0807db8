#include "persistence/rocksdb/internal/event_codec.h"

#include <string>

#include "absl/status/status.h"
#include "base/crc32c.h"
#include "base/string_view.h"
#include "base/varint.h"
#include "persistence/rocksdb/internal/stored_event_generated.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::rocksdb_internal {

using base::AlignedBytes;
using plugin_support::CheckFormatVersion;
using plugin_support::Corrupt;
using plugin_support::RecordError;
using plugin_support::StringOrEmpty;

namespace {

namespace fb = ::cairn::persistence::storage;

// Format 1's version field (stored_event.fbs), the only one written.
constexpr uint16_t kFlatBufferEventVersion = 1;

// Format 2's flags.
constexpr uint64_t kHasTags = 1;
constexpr uint64_t kHasAdapterManifest = 2;
constexpr uint64_t kWriterIsUuid = 4;
constexpr uint64_t kWriterIsText = 8;
constexpr uint64_t kKnownFlags =
    kHasTags | kHasAdapterManifest | kWriterIsUuid | kWriterIsText;

// First bytes a later format may take (not multiples of 4, which begin
// format 1); a value beginning with one is refused as too new, any other
// as damaged.
constexpr unsigned kHighestFutureFormat = 63;

constexpr size_t kChecksumBytes = 4;
constexpr size_t kUuidBytes = 16;
constexpr size_t kUuidTextBytes = 36;

bool IsUuidDash(size_t i) { return i == 8 || i == 13 || i == 18 || i == 23; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // uppercase too: it would not come back as written
}

// The 16 bytes of a lowercase canonical UUID; false for any other text.
bool PackUuid(std::string_view text, unsigned char (&bytes)[kUuidBytes]) {
  if (text.size() != kUuidTextBytes) return false;
  size_t out = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsUuidDash(i)) {
      if (text[i] != '-') return false;
      continue;
    }
    const int high = HexValue(text[i]);
    const int low = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
    if (high < 0 || low < 0) return false;
    bytes[out++] = static_cast<unsigned char>(high << 4 | low);
    ++i;
  }
  return out == kUuidBytes;
}

// Into `out`'s own storage: a replay reuses one string for every event.
void UnpackUuid(std::string_view bytes, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  char text[kUuidTextBytes];
  size_t at = 0;
  for (size_t i = 0; i < kUuidBytes; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text[at++] = '-';
    const auto b = static_cast<unsigned char>(bytes[i]);
    text[at++] = kHex[b >> 4];
    text[at++] = kHex[b & 0xf];
  }
  out.assign(text, kUuidTextBytes);
}

void AppendBytes(std::string& out, std::string_view bytes) {
  base::AppendVarint(out, bytes.size());
  out.append(bytes);
}

uint32_t Checksum(std::string_view persistence_id, int64_t sequence_nr,
                  std::string_view body) {
  char number[8];
  for (int i = 0; i < 8; ++i) {
    number[i] =
        static_cast<char>(static_cast<uint64_t>(sequence_nr) >> (8 * (7 - i)));
  }
  uint32_t crc = base::Crc32c(persistence_id);
  crc = base::Crc32c(std::string_view(number, sizeof number), crc);
  return base::Crc32c(body, crc);
}

// Reads format 2's fields in order; each call false if the value ends
// inside the field.
class CompactReader {
 public:
  explicit CompactReader(std::string_view body) : body_(body) {}
  bool Varint(uint64_t& value) { return base::ReadVarint(body_, pos_, value); }
  bool Bytes(size_t n, std::string_view& bytes) {
    if (body_.size() - pos_ < n) return false;
    bytes = body_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool LengthPrefixed(std::string_view& bytes) {
    uint64_t n = 0;
    return Varint(n) && n <= body_.size() && Bytes(n, bytes);
  }
  std::string_view Rest() const { return body_.substr(pos_); }

 private:
  std::string_view body_;
  size_t pos_ = 0;
};

absl::StatusOr<EventView> DecodeFlatBufferEvent(std::string_view persistence_id,
                                                int64_t sequence_nr,
                                                std::string_view value) {
  AlignedBytes aligned(value);
  flatbuffers::Verifier verifier(aligned.data(), aligned.size());
  if (!fb::VerifyStoredEventBuffer(verifier)) {
    return Corrupt("event", "not a valid StoredEvent FlatBuffer");
  }
  const fb::StoredEvent* stored = fb::GetStoredEvent(aligned.data());
  absl::Status version = CheckFormatVersion("event", stored->format_version(),
                                            kFlatBufferEventVersion);
  if (!version.ok()) return version;
  if (stored->persistence_id() == nullptr || stored->payload() == nullptr) {
    return Corrupt("event", "the persistence id or the payload is missing");
  }
  const std::string_view stored_id = stored->persistence_id()->string_view();
  if (stored_id != persistence_id || stored->sequence_nr() != sequence_nr) {
    return Corrupt(
        "event",
        base::StrCat("the record is that of persistence id '", stored_id,
                     "', sequence nr ", stored->sequence_nr()));
  }
  EventView view;
  view.format = 1;
  view.writer = StringOrEmpty(stored->writer_uuid());
  view.timestamp = stored->timestamp();
  view.serializer_id = stored->serializer_id();
  view.manifest = StringOrEmpty(stored->manifest());
  view.adapter_manifest = StringOrEmpty(stored->adapter_manifest());
  view.payload =
      std::string_view(reinterpret_cast<const char*>(stored->payload()->data()),
                       stored->payload()->size());
  if (stored->tags() != nullptr) {
    view.tags.reserve(stored->tags()->size());
    for (const flatbuffers::String* tag : *stored->tags()) {
      view.tags.push_back(tag->string_view());
    }
  }
  // Last: the views above point into it, and its address survives a move.
  view.aligned = std::move(aligned);
  return view;
}

absl::StatusOr<EventView> DecodeCompactEvent(const Db::View& db,
                                             std::string_view persistence_id,
                                             int64_t sequence_nr,
                                             std::string_view value,
                                             ManifestMemo* memo) {
  if (value.size() < 1 + kChecksumBytes) {
    return Corrupt("event", "shorter than a format 2 record can be");
  }
  const std::string_view body = value.substr(0, value.size() - kChecksumBytes);
  uint32_t stored_checksum = 0;
  for (size_t i = 0; i < kChecksumBytes; ++i) {
    stored_checksum |= static_cast<uint32_t>(
                           static_cast<unsigned char>(value[body.size() + i]))
                       << (8 * i);
  }
  if (Checksum(persistence_id, sequence_nr, body) != stored_checksum) {
    return Corrupt("event",
                   "checksum mismatch (damaged, or another event's record)");
  }
  CompactReader in(body.substr(1));
  uint64_t flags = 0, timestamp = 0, serializer = 0, manifest = 0;
  if (!in.Varint(flags) || !in.Varint(timestamp) || !in.Varint(serializer) ||
      !in.Varint(manifest)) {
    return Corrupt("event", "it ends inside its header");
  }
  if ((flags & ~kKnownFlags) != 0 ||
      (flags & (kWriterIsUuid | kWriterIsText)) ==
          (kWriterIsUuid | kWriterIsText)) {
    return Corrupt("event", base::StrCat("unknown flags ", flags));
  }
  EventView view;
  view.format = 2;
  view.timestamp = base::UnZigZag(timestamp);
  const int64_t serializer_id = base::UnZigZag(serializer);
  if (serializer_id < INT32_MIN || serializer_id > INT32_MAX) {
    return Corrupt("event", "its serializer id is out of range");
  }
  view.serializer_id = static_cast<int32_t>(serializer_id);
  std::string_view field;
  if ((flags & kWriterIsUuid) != 0) {
    if (!in.Bytes(kUuidBytes, field)) {
      return Corrupt("event", "it ends inside its writer");
    }
    view.writer = field;
    view.writer_packed = true;
  } else if ((flags & kWriterIsText) != 0) {
    if (!in.LengthPrefixed(field)) {
      return Corrupt("event", "it ends inside its writer");
    }
    view.writer = field;
  }
  if ((flags & kHasAdapterManifest) != 0 &&
      !in.LengthPrefixed(view.adapter_manifest)) {
    return Corrupt("event", "it ends inside its adapter manifest");
  }
  if ((flags & kHasTags) != 0) {
    uint64_t count = 0;
    if (!in.Varint(count) || count > body.size()) {
      return Corrupt("event", "it ends inside its tags");
    }
    view.tags.resize(count);
    for (std::string_view& tag : view.tags) {
      if (!in.LengthPrefixed(tag)) {
        return Corrupt("event", "it ends inside its tags");
      }
    }
  }
  view.payload = in.Rest();
  if (memo != nullptr && memo->text != nullptr && memo->number == manifest) {
    view.manifest = *memo->text;
    return view;
  }
  absl::StatusOr<std::shared_ptr<const std::string>> text =
      db.manifests->Find(db.db, db.names, manifest);
  if (!text.ok()) return text.status();
  if (memo != nullptr) {
    memo->number = manifest;
    memo->text = *std::move(text);
    view.manifest = *memo->text;
    return view;
  }
  view.manifest_text = *std::move(text);
  view.manifest = *view.manifest_text;
  return view;
}

}  // namespace

std::string EncodeEvent(const PersistentRepr& event,
                        const serialization::SerializedPayload& payload,
                        uint64_t manifest_number) {
  std::string value;
  AppendEncodedEvent(event, payload, manifest_number, value);
  return value;
}

void AppendEncodedEvent(const PersistentRepr& event,
                        const serialization::SerializedPayload& payload,
                        uint64_t manifest_number, std::string& out) {
  unsigned char uuid[kUuidBytes];
  uint64_t flags = 0;
  if (!event.tags.empty()) flags |= kHasTags;
  if (!event.adapter_manifest.empty()) flags |= kHasAdapterManifest;
  const bool packed = PackUuid(event.writer_uuid, uuid);
  if (packed) {
    flags |= kWriterIsUuid;
  } else if (!event.writer_uuid.empty()) {
    flags |= kWriterIsText;
  }
  const size_t begin = out.size();
  out.reserve(begin + 40 + event.writer_uuid.size() +
              event.adapter_manifest.size() + payload.bytes.size());
  out.push_back(static_cast<char>(kCompactEventFormat));
  base::AppendVarint(out, flags);
  base::AppendVarint(out, base::ZigZag(event.timestamp));
  base::AppendVarint(out, base::ZigZag(payload.serializer_id));
  base::AppendVarint(out, manifest_number);
  if (packed) {
    out.append(reinterpret_cast<const char*>(uuid), kUuidBytes);
  } else if (!event.writer_uuid.empty()) {
    AppendBytes(out, event.writer_uuid);
  }
  if (!event.adapter_manifest.empty()) {
    AppendBytes(out, event.adapter_manifest);
  }
  if (!event.tags.empty()) {
    base::AppendVarint(out, event.tags.size());
    for (const std::string& tag : event.tags) AppendBytes(out, tag);
  }
  out.append(payload.bytes);
  const uint32_t checksum = Checksum(event.persistence_id, event.sequence_nr,
                                     std::string_view(out).substr(begin));
  for (size_t i = 0; i < kChecksumBytes; ++i) {
    out.push_back(static_cast<char>(checksum >> (8 * i)));
  }
}

void EventView::WriterUuid(std::string& out) const {
  if (writer_packed) {
    UnpackUuid(writer, out);
  } else {
    out.assign(writer);
  }
}

std::string EventView::WriterUuid() const {
  std::string out;
  WriterUuid(out);
  return out;
}

absl::StatusOr<EventView> DecodeEvent(const Db::View& view,
                                      std::string_view persistence_id,
                                      int64_t sequence_nr,
                                      std::string_view value,
                                      ManifestMemo* memo) {
  const unsigned first =
      value.empty() ? 0 : static_cast<unsigned char>(value[0]);
  absl::StatusOr<EventView> event;
  if (first == kCompactEventFormat) {
    event = DecodeCompactEvent(view, persistence_id, sequence_nr, value, memo);
  } else if (first % 4 == 0) {
    event = DecodeFlatBufferEvent(persistence_id, sequence_nr, value);
  } else if (first <= kHighestFutureFormat) {
    event = absl::FailedPreconditionError(base::StrCat(
        "an event in format ", first,
        ", which this build does not know (written by a newer cairn?)"));
  } else {
    event = Corrupt(
        "event", base::StrCat("its first byte, ", first, ", names no format"));
  }
  if (!event.ok()) {
    return RecordError(persistence_id, sequence_nr, event.status());
  }
  return event;
}

}  // namespace cairn::persistence::rocksdb_internal
