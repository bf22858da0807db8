#include "bench/support/allocation_counter.h"

#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "bench/support/allocator_build.h"

#ifndef CAIRN_SANITIZER_ALLOCATOR
#include <gperftools/malloc_hook_c.h>
#endif

namespace cairn::bench {

#ifdef CAIRN_SANITIZER_ALLOCATOR

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

void CountOne(const void* /*pointer*/, size_t /*size*/) {
  // glibc 2.35 and later read the CPU from the thread's rseq area: no
  // system call.
  const unsigned cpu = static_cast<unsigned>(sched_getcpu());
  slots[cpu % kSlots].count.fetch_add(1, std::memory_order_relaxed);
}

// Registered before main, so that every allocation of the benchmark counts.
const bool hooked = MallocHook_AddNewHook(&CountOne) != 0;

}  // namespace

bool AllocationsCounted() { return hooked; }

uint64_t AllocationsSoFar() {
  uint64_t sum = 0;
  for (const Slot& slot : slots) {
    sum += slot.count.load(std::memory_order_relaxed);
  }
  return sum;
}

#endif

}  // namespace cairn::bench
