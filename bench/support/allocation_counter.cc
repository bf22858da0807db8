#include "bench/support/allocation_counter.h"

#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CAIRN_ALLOCATOR_TAKEN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define CAIRN_ALLOCATOR_TAKEN 1
#endif
#endif

namespace cairn::bench {

#ifdef CAIRN_ALLOCATOR_TAKEN

bool AllocationsCounted() { return false; }
uint64_t AllocationsSoFar() { return 0; }

#else

namespace {

// One counter per CPU (modulo kSlots), each on a cache line of its own: a
// single shared counter would bounce between the cores of the threads
// that allocate, and slow them as much as what it measures.
struct alignas(64) Slot {
  std::atomic<uint64_t> count{0};
};
constexpr unsigned kSlots = 64;
Slot slots[kSlots];

}  // namespace

bool AllocationsCounted() { return true; }

uint64_t AllocationsSoFar() {
  uint64_t sum = 0;
  for (const Slot& slot : slots) {
    sum += slot.count.load(std::memory_order_relaxed);
  }
  return sum;
}

namespace {
inline void CountOne() {
  // glibc 2.35 and later read the CPU from the thread's rseq area: no
  // system call.
  const unsigned cpu = static_cast<unsigned>(sched_getcpu());
  slots[cpu % kSlots].count.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#endif

}  // namespace cairn::bench

#ifndef CAIRN_ALLOCATOR_TAKEN

// glibc's allocator under the names it exports for replacements to call
// (glibc manual, "Replacing malloc"). The definitions below take the
// standard names for the whole process.
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);

void* malloc(size_t size) {
  cairn::bench::CountOne();
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  cairn::bench::CountOne();
  return __libc_calloc(count, size);
}

void* realloc(void* pointer, size_t size) {
  cairn::bench::CountOne();
  return __libc_realloc(pointer, size);
}

void* memalign(size_t alignment, size_t size) {
  cairn::bench::CountOne();
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  cairn::bench::CountOne();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) {
    return EINVAL;
  }
  cairn::bench::CountOne();
  void* pointer = __libc_memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *out = pointer;
  return 0;
}

void* valloc(size_t size) {
  cairn::bench::CountOne();
  return __libc_memalign(static_cast<size_t>(getpagesize()), size);
}
}  // extern "C"

#endif
