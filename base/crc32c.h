#ifndef CAIRN_BASE_CRC32C_H_
#define CAIRN_BASE_CRC32C_H_

// CRC-32C (Castagnoli), the checksum RocksDB, LevelDB and iSCSI use:
// Crc32c("123456789") == 0xe3069283. On x86-64 processors with SSE4.2 it
// runs on the CRC32 instruction (chosen at run time), elsewhere on a table.
//
// Thread safety: pure functions.

#include <cstdint>
#include <string_view>

namespace cairn::base {

// The CRC-32C of `data` following `crc`, the CRC-32C of what came before
// it (0 for nothing): Crc32c(b, Crc32c(a)) == Crc32c(a + b).
uint32_t Crc32c(std::string_view data, uint32_t crc = 0);

}  // namespace cairn::base

#endif  // CAIRN_BASE_CRC32C_H_
