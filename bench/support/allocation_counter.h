#ifndef CAIRN_BENCH_SUPPORT_ALLOCATION_COUNTER_H_
#define CAIRN_BENCH_SUPPORT_ALLOCATION_COUNTER_H_

// Counts heap allocations of every thread of the process: a benchmark that
// links this library gets its own malloc, calloc, realloc and aligned
// allocators, which count the call and hand it to glibc's (__libc_malloc
// and the like), so the count covers the code of every library (RocksDB,
// libpq, the C++ runtime's operator new). free is glibc's own. Counting
// costs a relaxed increment of a per-CPU counter, a few nanoseconds per
// allocation, on every side of a benchmark alike.
//
// Under AddressSanitizer or ThreadSanitizer, whose runtimes provide malloc
// themselves, nothing is replaced and nothing is counted.

#include <cstdint>

namespace cairn::bench {

// Whether this build counts allocations.
bool AllocationsCounted();

// Allocation calls made so far by every thread (0 when not counted).
// Thread safety: any thread; the sum is not a snapshot of one instant.
uint64_t AllocationsSoFar();

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_SUPPORT_ALLOCATION_COUNTER_H_
