#ifndef CAIRN_REMOTE_INTERNAL_TSAN_HANDOFF_H_
#define CAIRN_REMOTE_INTERNAL_TSAN_HANDOFF_H_

// Tells ThreadSanitizer about the ordering gRPC guarantees between
// starting an operation on a reactor and the reaction to it: Debian's gRPC
// is not built with TSan, so the completion queue that hands the operation
// to another thread is invisible to it, and the reactor's state written
// before the start looks unordered with its reads in the reaction. A
// reactor calls HandOff(this) before each gRPC call that starts something
// (a read, a write, a finish, a hold's release, a cancel) and TakeOver(this)
// first in each reaction. Without TSan both are nothing.

#if defined(__SANITIZE_THREAD__)
#define CAIRN_REMOTE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CAIRN_REMOTE_TSAN 1
#endif
#endif

#ifdef CAIRN_REMOTE_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace cairn::remote::internal {

inline void HandOff([[maybe_unused]] const void* reactor) {
#ifdef CAIRN_REMOTE_TSAN
  __tsan_release(const_cast<void*>(reactor));
#endif
}

inline void TakeOver([[maybe_unused]] const void* reactor) {
#ifdef CAIRN_REMOTE_TSAN
  __tsan_acquire(const_cast<void*>(reactor));
#endif
}

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_TSAN_HANDOFF_H_
