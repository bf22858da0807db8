#ifndef CAIRN_BENCH_SUPPORT_ALLOCATION_COUNTER_H_
#define CAIRN_BENCH_SUPPORT_ALLOCATION_COUNTER_H_

// Counts heap allocations of every thread of the process: linking this
// library registers a hook with tcmalloc (//third_party:tcmalloc, which it
// links), called for every allocation it makes (malloc, calloc, realloc,
// the aligned ones, operator new), so the count covers the code of every
// library (RocksDB, libpq, the C++ runtime). Counting costs a relaxed
// increment of a per-CPU counter, a few nanoseconds per allocation, on
// every side of a benchmark alike.
//
// Under AddressSanitizer or ThreadSanitizer, whose runtimes provide malloc
// instead of tcmalloc, nothing is counted.

#include <cstdint>

namespace cairn::bench {

// Whether this build counts allocations.
bool AllocationsCounted();

// Allocation calls made so far by every thread (0 when not counted).
// Thread safety: any thread; the sum is not a snapshot of one instant.
uint64_t AllocationsSoFar();

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_SUPPORT_ALLOCATION_COUNTER_H_
