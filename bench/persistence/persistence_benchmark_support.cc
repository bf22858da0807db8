#include "bench/persistence/persistence_benchmark_support.h"

#include "absl/strings/str_cat.h"

namespace cairn::bench {

std::string BenchPersistenceId(int64_t index) {
  return absl::StrCat("bench-", index);
}

std::string StreamPrefix(std::string_view persistence_id) {
  std::string prefix;
  const uint32_t length = static_cast<uint32_t>(persistence_id.size());
  for (int shift = 24; shift >= 0; shift -= 8) {
    prefix.push_back(static_cast<char>((length >> shift) & 0xff));
  }
  prefix.append(persistence_id);
  return prefix;
}

}  // namespace cairn::bench
