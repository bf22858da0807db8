#ifndef CAIRN_ACTOR_INTERNAL_COMPACT_NAME_H_
#define CAIRN_ACTOR_INTERNAL_COMPACT_NAME_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace cairn::actor::internal {

// An actor's name in one word. Names of up to 7 bytes (every generated
// name up to `$` and six base-64 digits, and most short given names) are
// stored inline; longer ones in one heap block. A std::string would cost
// 32 bytes in every actor.
//
// The inline form sets the lowest bit of the first byte (its length times
// two, plus one); a heap pointer is aligned, so that bit is clear there.
//
// Thread safety: immutable after construction; any thread may read it.
class CompactName {
 public:
  explicit CompactName(std::string_view name) {
    if (name.size() <= kInlineCapacity) {
      bytes_[0] = static_cast<char>(name.size() * 2 + 1);
      std::memcpy(bytes_ + 1, name.data(), name.size());
    } else {
      // operator new[] aligns to 16: the tag bit of the pointer is clear.
      char* block = new char[sizeof(uint32_t) + name.size()];
      const auto size = static_cast<uint32_t>(name.size());
      std::memcpy(block, &size, sizeof(size));
      std::memcpy(block + sizeof(size), name.data(), name.size());
      std::memcpy(bytes_, &block, sizeof(block));
    }
  }
  CompactName(const CompactName&) = delete;
  CompactName& operator=(const CompactName&) = delete;
  ~CompactName() {
    if (!is_inline()) delete[] block();
  }

  std::string_view view() const {
    if (is_inline()) {
      return std::string_view(bytes_ + 1,
                              static_cast<unsigned char>(bytes_[0]) / 2);
    }
    const char* b = block();
    uint32_t size;
    std::memcpy(&size, b, sizeof(size));
    return std::string_view(b + sizeof(size), size);
  }

 private:
  static constexpr size_t kInlineCapacity = 7;
  bool is_inline() const { return (bytes_[0] & 1) != 0; }
  // The heap form: the length (4 bytes), then the bytes.
  char* block() const {
    char* b;
    std::memcpy(&b, bytes_, sizeof(b));
    return b;
  }

  alignas(8) char bytes_[8] = {};
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_COMPACT_NAME_H_
