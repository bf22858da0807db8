#include "base/crc32c.h"

#include <array>
#include <cstring>

namespace cairn::base {
namespace {

// The reflected Castagnoli polynomial.
constexpr uint32_t kPolynomial = 0x82f63b78u;

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1) != 0 ? (crc >> 1) ^ kPolynomial : crc >> 1;
    }
    table[i] = crc;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = MakeTable();

// Both take and return the register (the CRC inverted).
uint32_t ExtendByTable(uint32_t reg, const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) reg = kTable[(reg ^ p[i]) & 0xff] ^ (reg >> 8);
  return reg;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("sse4.2"))) uint32_t ExtendByInstruction(
    uint32_t reg, const unsigned char* p, size_t n) {
  uint64_t wide = reg;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof word);
    wide = __builtin_ia32_crc32di(wide, word);
  }
  reg = static_cast<uint32_t>(wide);
  for (; n > 0; --n, ++p) reg = __builtin_ia32_crc32qi(reg, *p);
  return reg;
}

bool HasCrcInstruction() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace

uint32_t Crc32c(std::string_view data, uint32_t crc) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  uint32_t reg = ~crc;
#if defined(__x86_64__) && defined(__GNUC__)
  if (HasCrcInstruction()) return ~ExtendByInstruction(reg, p, data.size());
#endif
  return ~ExtendByTable(reg, p, data.size());
}

}  // namespace cairn::base
