#ifndef CAIRN_BASE_VARINT_H_
#define CAIRN_BASE_VARINT_H_

// Variable-length integers as LevelDB and Protocol Buffers write them
// (LEB128: 7 bits a byte, the lowest first, the high bit set on every byte
// but the last), and ZigZag for signed ones, so small magnitudes take few
// bytes whatever their sign.
//
// Thread safety: pure functions.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cairn::base {

inline constexpr size_t kMaxVarintBytes = 10;

inline void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Reads the varint at `pos` in `in` into `value` and moves `pos` past it.
// False, with `pos` and `value` unspecified, if `in` ends inside it or it
// does not fit 64 bits.
inline bool ReadVarint(std::string_view in, size_t& pos, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= in.size()) return false;
    const auto byte = static_cast<unsigned char>(in[pos++]);
    if (shift == 63 && byte > 1) return false;  // past 64 bits
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

inline uint64_t ZigZag(int64_t value) {
  return (static_cast<uint64_t>(value) << 1) ^
         static_cast<uint64_t>(value >> 63);
}

inline int64_t UnZigZag(uint64_t value) {
  return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}

}  // namespace cairn::base

#endif  // CAIRN_BASE_VARINT_H_
