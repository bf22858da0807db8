#include "persistence/rocksdb/internal/store_inspection.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "base/string_view.h"
#include "persistence/rocksdb/internal/event_codec.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/metadata_codec.h"
#include "persistence/rocksdb/internal/snapshot_codec.h"
#include "persistence/storage/plugin_support/record_check.h"
#include "rocksdb/iterator.h"
#include "serialization/serializer.h"

namespace cairn::persistence::rocksdb_internal {

using plugin_support::Corrupt;
using plugin_support::RecordError;

namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendEscapedByte(std::string& out, unsigned char byte) {
  out += "\\u00";
  out.push_back(kHex[byte >> 4]);
  out.push_back(kHex[byte & 0xf]);
}

// The length of the valid UTF-8 sequence starting at text[i], or 0.
size_t Utf8Length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) {
    return static_cast<unsigned char>(text[k]);
  };
  const unsigned char lead = byte(i);
  size_t length;
  uint32_t min;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    min = 0x80;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    min = 0x800;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  uint32_t code = lead & (0x7f >> length);
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
    return 0;
  }
  return length;
}

std::string StringList(const std::vector<std::string_view>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ",";
    out += JsonString(items[i]);
  }
  return out + "]";
}

void PrintEvent(std::ostream& out, std::string_view persistence_id,
                int64_t sequence_nr, const EventView& event) {
  out << "{\"id\":" << JsonString(persistence_id) << ",\"seq\":" << sequence_nr
      << ",\"manifest\":" << JsonString(event.manifest)
      << ",\"serializer_id\":" << event.serializer_id
      << ",\"writer\":" << JsonString(event.WriterUuid())
      << ",\"timestamp\":" << event.timestamp
      << ",\"tags\":" << StringList(event.tags)
      << ",\"payload_size\":" << event.payload.size();
  if (!event.adapter_manifest.empty()) {
    out << ",\"adapter_manifest\":" << JsonString(event.adapter_manifest);
  }
  if (event.serializer_id == serialization::kStringSerializerId) {
    out << ",\"text\":" << JsonString(event.payload);
  }
  out << "}\n";
}

// The stream id of the iterator's key in the events column family, skipping
// (and reporting) keys that are not record keys.
std::optional<std::string> NextEventStream(rocksdb::Iterator& it,
                                           ProblemSink problems,
                                           int64_t& count) {
  for (; it.Valid(); it.Next()) {
    absl::StatusOr<DecodedKey> key = DecodeRecordKey(it.key().ToStringView());
    if (key.ok()) return std::string(key->persistence_id);
    problems("events", key.status());
    ++count;
  }
  return std::nullopt;
}

std::optional<std::string> NextMetadataStream(rocksdb::Iterator& it,
                                              ProblemSink problems,
                                              int64_t& count) {
  for (; it.Valid(); it.Next()) {
    absl::StatusOr<std::string_view> id =
        DecodeStreamPrefix(it.key().ToStringView());
    if (id.ok()) return std::string(*id);
    problems("metadata", id.status());
    ++count;
  }
  return std::nullopt;
}

int64_t ReportIteratorError(const rocksdb::Iterator& it, std::string_view where,
                            ProblemSink problems) {
  if (it.status().ok()) return 0;
  problems(where, FromRocksDb(it.status(), base::StrCat("scanning the ", where,
                                                        " column family")));
  return 1;
}

}  // namespace

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  for (size_t i = 0; i < text.size();) {
    const unsigned char byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80) {
      const size_t length = Utf8Length(text, i);
      if (length == 0) {
        AppendEscapedByte(out, byte);
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (byte) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          AppendEscapedByte(out, byte);
        } else {
          out.push_back(static_cast<char>(byte));
        }
    }
    ++i;
  }
  out += "\"";
  return out;
}

int64_t ListStreams(const Db::View& view, std::ostream& out,
                    ProblemSink problems) {
  int64_t count = 0;
  std::unique_ptr<rocksdb::Iterator> events(
      view.db->NewIterator(rocksdb::ReadOptions(), view.events));
  std::unique_ptr<rocksdb::Iterator> metadata(
      view.db->NewIterator(rocksdb::ReadOptions(), view.metadata));
  events->SeekToFirst();
  metadata->SeekToFirst();
  while (true) {
    std::optional<std::string> event_id =
        NextEventStream(*events, problems, count);
    std::optional<std::string> metadata_id =
        NextMetadataStream(*metadata, problems, count);
    if (!event_id.has_value() && !metadata_id.has_value()) break;
    // The stream that comes first in key order.
    std::string id;
    if (!event_id.has_value()) {
      id = *metadata_id;
    } else if (!metadata_id.has_value()) {
      id = *event_id;
    } else {
      id = StreamPrefix(*event_id) <= StreamPrefix(*metadata_id) ? *event_id
                                                                 : *metadata_id;
    }
    int64_t highest = 0;
    int64_t stored = 0;
    if (metadata_id == id) {
      absl::StatusOr<int64_t> recorded =
          DecodeStreamMetadata(id, metadata->value().ToStringView());
      if (recorded.ok()) {
        highest = *recorded;
      } else {
        problems("metadata", recorded.status());
        ++count;
      }
      metadata->Next();
    }
    // The stream's events, and keys that are not record keys among them.
    for (; events->Valid(); events->Next()) {
      absl::StatusOr<DecodedKey> key =
          DecodeRecordKey(events->key().ToStringView());
      if (!key.ok()) {
        problems("events", key.status());
        ++count;
        continue;
      }
      if (key->persistence_id != id) break;
      ++stored;
      highest = std::max(highest, key->sequence_nr);
    }
    out << "{\"id\":" << JsonString(id)
        << ",\"highest_sequence_nr\":" << highest << ",\"events\":" << stored
        << "}\n";
  }
  count += ReportIteratorError(*events, "events", problems);
  count += ReportIteratorError(*metadata, "metadata", problems);
  return count;
}

bool HasStream(const Db::View& view, std::string_view persistence_id) {
  std::string metadata;
  if (view.db
          ->Get(rocksdb::ReadOptions(), view.metadata,
                StreamPrefix(persistence_id), &metadata)
          .ok()) {
    return true;
  }
  const std::string upper = StreamEnd(persistence_id);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions options;
  options.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      view.db->NewIterator(options, view.events));
  it->Seek(StreamPrefix(persistence_id));
  return it->Valid();
}

int64_t DumpStream(const Db::View& view, std::string_view persistence_id,
                   std::ostream& out, ProblemSink problems) {
  int64_t count = 0;
  const std::string lower = StreamPrefix(persistence_id);
  const std::string upper = StreamEnd(persistence_id);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions options;
  options.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      view.db->NewIterator(options, view.events));
  for (it->Seek(lower); it->Valid(); it->Next()) {
    absl::StatusOr<DecodedKey> key = DecodeRecordKey(it->key().ToStringView());
    if (!key.ok() || key->persistence_id != persistence_id) {
      problems("events", absl::DataLossError(base::StrCat(
                             "persistence id '", persistence_id, "': ",
                             key.ok() ? "a key of another stream in its range"
                                      : key.status().message())));
      ++count;
      continue;
    }
    absl::StatusOr<EventView> event = DecodeEvent(
        view, persistence_id, key->sequence_nr, it->value().ToStringView());
    if (!event.ok()) {
      problems("events", event.status());
      ++count;
      continue;
    }
    PrintEvent(out, persistence_id, key->sequence_nr, *event);
  }
  return count + ReportIteratorError(*it, "events", problems);
}

int64_t ReportWalProblems(const WalReport& logs, ProblemSink problems) {
  for (const absl::Status& problem : logs.problems) problems("wal", problem);
  return static_cast<int64_t>(logs.problems.size());
}

std::vector<MissingEvents> FindMissingEvents(const Db::View& view,
                                             ProblemSink problems) {
  std::map<std::string, int64_t> recorded_highest;
  std::unique_ptr<rocksdb::Iterator> it(
      view.db->NewIterator(rocksdb::ReadOptions(), view.metadata));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    absl::StatusOr<std::string_view> id =
        DecodeStreamPrefix(it->key().ToStringView());
    if (!id.ok()) {
      problems("metadata", id.status());
      continue;
    }
    absl::StatusOr<int64_t> highest =
        DecodeStreamMetadata(*id, it->value().ToStringView());
    if (!highest.ok()) {
      problems("metadata", highest.status());
      continue;
    }
    recorded_highest[std::string(*id)] = *highest;
  }
  ReportIteratorError(*it, "metadata", problems);

  std::vector<MissingEvents> missing;
  std::optional<std::string> stream;
  int64_t last = 0;
  auto end_stream = [&] {
    if (!stream.has_value()) return;
    auto recorded = recorded_highest.find(*stream);
    if (recorded != recorded_highest.end() && recorded->second > last) {
      missing.push_back({*stream, last + 1, recorded->second});
    }
  };
  it.reset(view.db->NewIterator(rocksdb::ReadOptions(), view.events));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    absl::StatusOr<DecodedKey> key = DecodeRecordKey(it->key().ToStringView());
    if (!key.ok()) {
      problems("events", key.status());
      continue;
    }
    if (stream != key->persistence_id) {
      end_stream();
      stream = std::string(key->persistence_id);
    } else if (key->sequence_nr > last + 1) {
      missing.push_back({*stream, last + 1, key->sequence_nr - 1});
    }
    last = key->sequence_nr;
  }
  end_stream();
  ReportIteratorError(*it, "events", problems);
  return missing;
}

CheckCounts CheckStore(const Db::View& view, ProblemSink problems) {
  CheckCounts counts;
  auto report = [&](std::string_view where, const absl::Status& problem) {
    problems(where, problem);
    ++counts.problems;
  };

  std::unique_ptr<rocksdb::Iterator> it(
      view.db->NewIterator(rocksdb::ReadOptions(), view.events));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++counts.events;
    absl::StatusOr<DecodedKey> key = DecodeRecordKey(it->key().ToStringView());
    if (!key.ok()) {
      report("events", key.status());
      continue;
    }
    if (key->sequence_nr < 1) {
      report(
          "events",
          RecordError(key->persistence_id, key->sequence_nr,
                      Corrupt("event", "event sequence numbers start at 1")));
      continue;
    }
    absl::StatusOr<EventView> event =
        DecodeEvent(view, key->persistence_id, key->sequence_nr,
                    it->value().ToStringView());
    if (!event.ok()) report("events", event.status());
  }
  counts.problems += ReportIteratorError(*it, "events", problems);

  it.reset(view.db->NewIterator(rocksdb::ReadOptions(), view.snapshots));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++counts.snapshots;
    absl::StatusOr<DecodedKey> key = DecodeRecordKey(it->key().ToStringView());
    if (!key.ok()) {
      report("snapshots", key.status());
      continue;
    }
    absl::StatusOr<SnapshotView> snapshot = DecodeSnapshot(
        key->persistence_id, key->sequence_nr, it->value().ToStringView());
    if (!snapshot.ok()) report("snapshots", snapshot.status());
  }
  counts.problems += ReportIteratorError(*it, "snapshots", problems);

  it.reset(view.db->NewIterator(rocksdb::ReadOptions(), view.metadata));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++counts.metadata;
    absl::StatusOr<std::string_view> id =
        DecodeStreamPrefix(it->key().ToStringView());
    if (!id.ok()) {
      report("metadata", id.status());
      continue;
    }
    absl::StatusOr<int64_t> highest =
        DecodeStreamMetadata(*id, it->value().ToStringView());
    if (!highest.ok()) report("metadata", highest.status());
  }
  counts.problems += ReportIteratorError(*it, "metadata", problems);
  it.reset();

  // Blocks the scans did not need (index and filter blocks, records
  // shadowed by newer ones) are damage too.
  rocksdb::Status checksums = view.db->VerifyChecksum();
  if (!checksums.ok()) {
    report("store", FromRocksDb(checksums, "verifying the table files"));
  }
  return counts;
}

}  // namespace cairn::persistence::rocksdb_internal
