#ifndef CAIRN_BENCH_SUPPORT_HEAP_IN_USE_H_
#define CAIRN_BENCH_SUPPORT_HEAP_IN_USE_H_

namespace cairn::bench {

// Bytes allocated with malloc/new and not yet freed, by every thread, as
// the allocator the benchmark links counts them (tcmalloc's
// generic.current_allocated_bytes; glibc's mallinfo2, large mmapped blocks
// included, under a sanitizer): exactly what objects hold, unlike RSS,
// which keeps freed pages. Thread safety: any thread.
long HeapInUse();

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_SUPPORT_HEAP_IN_USE_H_
