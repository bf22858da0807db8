#ifndef CAIRN_BASE_ALIGNED_BYTES_H_
#define CAIRN_BASE_ALIGNED_BYTES_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

namespace cairn::base {

// FlatBuffers reads its scalars in place, which needs the buffer to start
// at an address aligned for its largest scalar (8 bytes). RocksDB hands out
// values at any address, and a payload sits anywhere inside its envelope:
// a misaligned read is undefined behaviour (UBSan reports it; some CPUs
// fault). AlignedBytes is `bytes` itself when it is aligned, else an
// aligned copy of it, owned here; its address survives a move.
//
// Thread safety: a value; immutable after construction.
class AlignedBytes {
 public:
  static constexpr size_t kAlignment = 8;

  AlignedBytes() = default;
  explicit AlignedBytes(std::string_view bytes) : view_(bytes) {
    if (reinterpret_cast<uintptr_t>(bytes.data()) % kAlignment == 0) return;
    copy_ = std::make_unique<uint64_t[]>((bytes.size() + 7) / 8);
    std::memcpy(copy_.get(), bytes.data(), bytes.size());
    view_ = std::string_view(reinterpret_cast<const char*>(copy_.get()),
                             bytes.size());
  }

  std::string_view view() const { return view_; }
  const uint8_t* data() const {
    return reinterpret_cast<const uint8_t*>(view_.data());
  }
  size_t size() const { return view_.size(); }

 private:
  std::unique_ptr<uint64_t[]> copy_;  // null when `bytes` was aligned
  std::string_view view_;
};

}  // namespace cairn::base

#endif  // CAIRN_BASE_ALIGNED_BYTES_H_
