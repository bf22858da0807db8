#include "persistence/rocksdb/internal/wal_file.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "base/crc32c.h"
#include "base/string_view.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

constexpr size_t kHeaderSize = 7;
constexpr size_t kRecyclableHeaderSize = 11;
constexpr size_t kBatchHeaderSize = 12;  // sequence nr (8) and count (4)

enum RecordType : uint8_t {
  kZeroType = 0,
  kFullType = 1,
  kFirstType = 2,
  kMiddleType = 3,
  kLastType = 4,
  kRecyclableFullType = 5,
  kRecyclableFirstType = 6,
  kRecyclableMiddleType = 7,
  kRecyclableLastType = 8,
  kSetCompressionType = 9,
};

// RocksDB stores checksums masked, so that the checksum of data that
// itself holds checksums does not degenerate.
constexpr uint32_t kMaskDelta = 0xa282ead8u;
uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

uint32_t Fixed32(const char* p) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(p[i]);
  }
  return value;
}

uint64_t Fixed64(const char* p) {
  return static_cast<uint64_t>(Fixed32(p)) |
         (static_cast<uint64_t>(Fixed32(p + 4)) << 32);
}

void AppendFixed32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

bool IsRecyclable(uint8_t type) {
  return type >= kRecyclableFullType && type <= kRecyclableLastType;
}

bool StartsRecord(uint8_t type) {
  return type == kFullType || type == kFirstType ||
         type == kRecyclableFullType || type == kRecyclableFirstType;
}

// Walks one file's bytes; see ScanWalFile.
class Scanner {
 public:
  Scanner(std::string_view file, uint64_t log_number,
          absl::FunctionRef<void(const WalRecord&)> on_record)
      : file_(file), log_number_(log_number), on_record_(on_record) {
    scan_.size = file.size();
  }

  absl::StatusOr<WalFileScan> Run() {
    size_t pos = 0;
    size_t stop = file_.size();
    while (pos < file_.size()) {
      const size_t block_end = BlockEnd(pos);
      const size_t left = block_end - pos;
      const bool file_ends_in_block = block_end % kWalBlockSize != 0;
      if (left < kHeaderSize) {
        if (!file_ends_in_block) {  // the zero padding at a block's end
          pos = block_end;
          continue;
        }
        if (!AllZero(pos)) {
          DropPending("a record cut short at the end of the file");
          MarkDamage(pos, "a header cut short at the end of the file");
        }
        break;
      }
      const char* header = file_.data() + pos;
      const uint8_t type = static_cast<uint8_t>(header[6]);
      const size_t length =
          static_cast<unsigned char>(header[4]) |
          (static_cast<size_t>(static_cast<unsigned char>(header[5])) << 8);
      if (type == kZeroType && length == 0) {
        // Zeros: space the file system allocated but nothing wrote. At the
        // end of the file that is where the log ends.
        if (AllZero(pos)) {
          stop = pos;
          break;
        }
        DropPending("a record interrupted by zeroed bytes");
        MarkDamage(pos, "zeroed bytes");
        pos = Resync(pos + 1);
        continue;
      }
      const size_t header_size =
          IsRecyclable(type) ? kRecyclableHeaderSize : kHeaderSize;
      if (header_size + length > left) {
        DropPending("a record cut short");
        if (file_ends_in_block) {
          MarkDamage(pos, "a record cut short at the end of the file");
          break;
        }
        MarkDamage(pos, "bad record length");
        pos = Resync(pos + 1);
        continue;
      }
      const uint32_t expected = Fixed32(header);
      const uint32_t actual =
          Mask(base::Crc32c(file_.substr(pos + 6, header_size - 6 + length)));
      if (expected != actual) {
        DropPending("a record with a damaged fragment");
        MarkDamage(pos, "checksum mismatch");
        pos = Resync(pos + 1);
        continue;
      }
      if (IsRecyclable(type) &&
          Fixed32(header + 7) != static_cast<uint32_t>(log_number_)) {
        // A record of the log this file was before RocksDB reused it:
        // this log ends here.
        stop = pos;
        break;
      }
      const std::string_view payload = file_.substr(pos + header_size, length);
      const size_t end = pos + header_size + length;
      switch (type) {
        case kFullType:
        case kRecyclableFullType:
          DropPending("a record without its last fragment");
          CloseDamage(pos);
          Emit(pos, end, payload);
          break;
        case kFirstType:
        case kRecyclableFirstType:
          DropPending("a record without its last fragment");
          CloseDamage(pos);
          pending_start_ = pos;
          pending_.assign(payload.data(), payload.size());
          break;
        case kMiddleType:
        case kRecyclableMiddleType:
          if (pending_start_.has_value()) {
            pending_.append(payload.data(), payload.size());
          } else {
            MarkDamage(pos, "a fragment without the start of its record");
          }
          break;
        case kLastType:
        case kRecyclableLastType:
          if (pending_start_.has_value()) {
            pending_.append(payload.data(), payload.size());
            const uint64_t start = *pending_start_;
            pending_start_.reset();
            Emit(start, end, pending_);
          } else {
            MarkDamage(pos, "a fragment without the start of its record");
          }
          break;
        case kSetCompressionType:
          return absl::UnimplementedError(
              "a compressed write-ahead log (cairn never writes one)");
        default:
          DropPending("a record with a damaged fragment");
          MarkDamage(pos, base::StrCat("unknown record type ", type));
          pos = Resync(pos + 1);
          continue;
      }
      pos = end;
    }
    DropPending("a record cut short at the end of the file");
    CloseDamage(stop);
    for (WalDamage& damage : scan_.damage) {
      damage.at_end = damage.offset >= last_record_end_;
    }
    return std::move(scan_);
  }

 private:
  size_t BlockEnd(size_t pos) const {
    return std::min<size_t>((pos / kWalBlockSize + 1) * kWalBlockSize,
                            file_.size());
  }

  bool AllZero(size_t from) const {
    return std::all_of(file_.begin() + from, file_.end(),
                       [](char c) { return c == 0; });
  }

  // The offset of the next fragment after `from` that starts a record and
  // passes its checksum (a chance match is 1 in 2^32), or the file's size.
  size_t Resync(size_t from) const {
    for (size_t q = from; q < file_.size(); ++q) {
      const size_t block_end = BlockEnd(q);
      const size_t left = block_end - q;
      if (left < kHeaderSize) {
        q = block_end - 1;
        continue;
      }
      const char* header = file_.data() + q;
      const uint8_t type = static_cast<uint8_t>(header[6]);
      if (!StartsRecord(type)) continue;
      const size_t length =
          static_cast<unsigned char>(header[4]) |
          (static_cast<size_t>(static_cast<unsigned char>(header[5])) << 8);
      const size_t header_size =
          IsRecyclable(type) ? kRecyclableHeaderSize : kHeaderSize;
      if (header_size + length > left) continue;
      if (Fixed32(header) ==
          Mask(base::Crc32c(file_.substr(q + 6, header_size - 6 + length)))) {
        return q;
      }
    }
    return file_.size();
  }

  void MarkDamage(uint64_t at, std::string reason) {
    if (damage_start_.has_value()) return;
    if (!scan_.damage.empty() &&
        scan_.damage.back().offset + scan_.damage.back().length == at) {
      // Joins the stretch just closed.
      damage_start_ = scan_.damage.back().offset;
      damage_reason_ = std::move(scan_.damage.back().reason);
      scan_.damage.pop_back();
      return;
    }
    damage_start_ = at;
    damage_reason_ = std::move(reason);
  }

  void CloseDamage(uint64_t at) {
    if (!damage_start_.has_value()) return;
    scan_.damage.push_back(
        {*damage_start_, at - *damage_start_, std::move(damage_reason_)});
    damage_start_.reset();
  }

  void DropPending(const char* reason) {
    if (!pending_start_.has_value()) return;
    MarkDamage(*pending_start_, reason);
    pending_start_.reset();
    pending_.clear();
  }

  void Emit(uint64_t start, uint64_t end, std::string_view batch) {
    if (batch.size() < kBatchHeaderSize) {
      MarkDamage(start, "a record too short for a write batch");
      CloseDamage(end);
      return;
    }
    WalRecord record;
    record.offset = start;
    record.end = end;
    record.batch = batch;
    record.sequence = Fixed64(batch.data());
    record.count = Fixed32(batch.data() + 8);
    ++scan_.records;
    if (!scan_.first_sequence.has_value()) {
      scan_.first_sequence = record.sequence;
    }
    scan_.end_sequence = record.sequence + record.count;
    last_record_end_ = end;
    on_record_(record);
  }

  const std::string_view file_;
  const uint64_t log_number_;
  const absl::FunctionRef<void(const WalRecord&)> on_record_;
  WalFileScan scan_;
  std::optional<uint64_t> pending_start_;
  std::string pending_;
  std::optional<uint64_t> damage_start_;
  std::string damage_reason_;
  uint64_t last_record_end_ = 0;
};

}  // namespace

std::optional<uint64_t> WalFileNumber(std::string_view file_name) {
  constexpr std::string_view kSuffix = ".log";
  if (file_name.size() <= kSuffix.size() ||
      file_name.substr(file_name.size() - kSuffix.size()) != kSuffix) {
    return std::nullopt;
  }
  const std::string_view digits =
      file_name.substr(0, file_name.size() - kSuffix.size());
  if (digits.size() > 19) return std::nullopt;
  uint64_t number = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    number = number * 10 + static_cast<uint64_t>(c - '0');
  }
  return number;
}

absl::StatusOr<std::string> ReadWholeFile(rocksdb::Env* env,
                                          const std::string& path) {
  std::unique_ptr<rocksdb::SequentialFile> file;
  rocksdb::Status status =
      env->NewSequentialFile(path, &file, rocksdb::EnvOptions());
  std::string contents;
  constexpr size_t kChunk = 1 << 20;
  auto scratch = std::make_unique<char[]>(kChunk);
  while (status.ok()) {
    rocksdb::Slice chunk;
    status = file->Read(kChunk, &chunk, scratch.get());
    if (!status.ok() || chunk.empty()) break;
    contents.append(chunk.data(), chunk.size());
  }
  if (!status.ok()) {
    return absl::UnavailableError(
        base::StrCat("reading ", path, ": ", status.ToString()));
  }
  return contents;
}

std::vector<std::string> UncheckedBatches(std::string_view file,
                                          uint64_t offset, uint64_t length) {
  std::vector<std::string> batches;
  std::optional<std::string> current;
  const size_t end = std::min<size_t>(offset + length, file.size());
  size_t pos = offset;
  while (pos < end) {
    const size_t block_end =
        std::min<size_t>((pos / kWalBlockSize + 1) * kWalBlockSize, end);
    if (block_end - pos < kHeaderSize) {
      pos = block_end;
      continue;
    }
    const char* header = file.data() + pos;
    const uint8_t type = static_cast<uint8_t>(header[6]);
    const size_t header_size =
        IsRecyclable(type) ? kRecyclableHeaderSize : kHeaderSize;
    const size_t length_field =
        static_cast<unsigned char>(header[4]) |
        (static_cast<size_t>(static_cast<unsigned char>(header[5])) << 8);
    if (type < kFullType || type > kRecyclableLastType ||
        header_size + length_field > block_end - pos) {
      pos = block_end;  // nothing to trust before the next block
      continue;
    }
    const std::string_view payload =
        file.substr(pos + header_size, length_field);
    if (StartsRecord(type)) {
      if (current.has_value()) batches.push_back(*std::move(current));
      current = std::string(payload);
    } else if (current.has_value()) {
      current->append(payload);
    }
    if (type != kFirstType && type != kRecyclableFirstType &&
        type != kMiddleType && type != kRecyclableMiddleType &&
        current.has_value()) {
      batches.push_back(*std::move(current));
      current.reset();
    }
    pos += header_size + length_field;
  }
  if (current.has_value()) batches.push_back(*std::move(current));
  return batches;
}

absl::StatusOr<WalFileScan> ScanWalFile(
    rocksdb::Env* env, const std::string& path, uint64_t log_number,
    absl::FunctionRef<void(const WalRecord&)> on_record) {
  absl::StatusOr<std::string> contents = ReadWholeFile(env, path);
  if (!contents.ok()) return contents.status();
  return Scanner(*contents, log_number, on_record).Run();
}

absl::Status WriteWalFile(rocksdb::Env* env, const std::string& path,
                          const std::vector<std::string>& batches) {
  std::string out;
  for (const std::string& batch : batches) {
    std::string_view left = batch;
    bool first = true;
    do {
      size_t room = kWalBlockSize - out.size() % kWalBlockSize;
      if (room < kHeaderSize) {
        out.append(room, '\0');
        room = kWalBlockSize;
      }
      const size_t length = std::min(left.size(), room - kHeaderSize);
      const bool last = length == left.size();
      const uint8_t type = first && last ? kFullType
                           : first       ? kFirstType
                           : last        ? kLastType
                                         : kMiddleType;
      std::string checked(1, static_cast<char>(type));
      checked.append(left.substr(0, length));
      AppendFixed32(out, Mask(base::Crc32c(checked)));
      out.push_back(static_cast<char>(length & 0xff));
      out.push_back(static_cast<char>(length >> 8));
      out.append(checked);
      left.remove_prefix(length);
      first = false;
    } while (!left.empty());
  }
  std::unique_ptr<rocksdb::WritableFile> file;
  rocksdb::Status status =
      env->NewWritableFile(path, &file, rocksdb::EnvOptions());
  if (status.ok()) status = file->Append(out);
  if (status.ok()) status = file->Sync();
  if (status.ok()) status = file->Close();
  if (status.ok()) return absl::OkStatus();
  return absl::UnavailableError(base::StrCat("writing the write-ahead log ",
                                             path, ": ", status.ToString()));
}

}  // namespace cairn::persistence::rocksdb_internal
