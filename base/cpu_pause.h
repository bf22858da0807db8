#ifndef CAIRN_BASE_CPU_PAUSE_H_
#define CAIRN_BASE_CPU_PAUSE_H_

namespace cairn::base {

// Tells the CPU that the calling thread is busy-waiting (x86's `pause`,
// Arm's `yield`): the core spends less power, a hyper-threaded sibling gets
// more of it, and leaving the loop does not flush the pipeline. A few tens
// of nanoseconds; not a system call, so the thread keeps its core.
inline void CpuPause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace cairn::base

#endif  // CAIRN_BASE_CPU_PAUSE_H_
