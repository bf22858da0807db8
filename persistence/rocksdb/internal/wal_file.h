#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_WAL_FILE_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_WAL_FILE_H_

// Reads one RocksDB write-ahead log file on its own, without RocksDB:
// every readable record with its offset, and every stretch of bytes that
// is not part of one. RocksDB's own recovery says neither where a bad
// record is nor whether readable records follow it, and after a bad
// record it drops the rest of the 32 KiB block; this reader resumes at the
// next readable record, so that a check can tell damage in the middle of a
// log from a write cut short at its end, and salvage can keep every record
// that can be read.
//
// The format (RocksDB's db/log_format.h, LevelDB's with the "recyclable"
// record types 5..8 added): the file is a sequence of 32 KiB blocks. Each
// block holds fragments
//   [masked CRC32C: 4][length: 2, little-endian][type: 1][payload]
// (recyclable types put a 4-byte log number after the type), and ends in
// fewer than 7 bytes of zero padding when the next header does not fit.
// A record is one Full fragment, or a First, any Middles and a Last. The
// checksum covers the type (and log number) and the payload. A record's
// payload is a rocksdb::WriteBatch: [sequence nr: 8][count: 4][entries].
//
// Thread safety: the functions share no state.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "rocksdb/env.h"

namespace cairn::persistence::rocksdb_internal {

inline constexpr uint64_t kWalBlockSize = 32768;

// One readable record. `batch` (a WriteBatch's bytes) is valid only
// during the callback that receives it.
struct WalRecord {
  uint64_t offset = 0;  // of its first fragment's header
  uint64_t end = 0;     // just past its last fragment
  std::string_view batch;
  uint64_t sequence = 0;  // of the batch's first entry
  uint32_t count = 0;     // entries; each takes one sequence number
};

// Bytes [offset, offset + length) that hold no readable record.
struct WalDamage {
  uint64_t offset = 0;
  uint64_t length = 0;
  std::string reason;  // e.g. "checksum mismatch"
  // No readable record follows it in the file: what a write cut short by
  // a crash leaves (or a file cut short).
  bool at_end = false;
};

struct WalFileScan {
  uint64_t size = 0;
  int64_t records = 0;
  // Of the first readable record, and just past the last one's entries
  // (its sequence nr + count); unset without readable records.
  std::optional<uint64_t> first_sequence;
  std::optional<uint64_t> end_sequence;
  std::vector<WalDamage> damage;  // in file order, disjoint
};

// "000004.log" is log 4; nullopt for any other name.
std::optional<uint64_t> WalFileNumber(std::string_view file_name);

// The whole file `path`, read through `env`. Unavailable if it cannot be
// read.
[[nodiscard]] absl::StatusOr<std::string> ReadWholeFile(
    rocksdb::Env* env, const std::string& path);

// The write batches the fragments in [offset, offset + length) of a log
// file's bytes `file` appear to hold, taking their headers on trust and
// ignoring their checksums: for naming what damaged records held, never
// for keeping it. Best effort; may be empty.
std::vector<std::string> UncheckedBatches(std::string_view file,
                                          uint64_t offset, uint64_t length);

// Reads the log file `path` (log number `log_number`) through `env`,
// calling `on_record` for each readable record in file order. Unavailable
// if the file cannot be read; Unimplemented for a compressed log (cairn
// never writes one).
[[nodiscard]] absl::StatusOr<WalFileScan> ScanWalFile(
    rocksdb::Env* env, const std::string& path, uint64_t log_number,
    absl::FunctionRef<void(const WalRecord&)> on_record);

// Writes `batches` (WriteBatch representations, in order) as a new log
// file at `path` in RocksDB's format with the non-recyclable record types,
// and syncs it. Unavailable if it cannot be written.
[[nodiscard]] absl::Status WriteWalFile(
    rocksdb::Env* env, const std::string& path,
    const std::vector<std::string>& batches);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_WAL_FILE_H_
