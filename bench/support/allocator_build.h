#ifndef CAIRN_BENCH_SUPPORT_ALLOCATOR_BUILD_H_
#define CAIRN_BENCH_SUPPORT_ALLOCATOR_BUILD_H_

// CAIRN_SANITIZER_ALLOCATOR: defined when ASan or TSan provide malloc, so
// that //third_party:tcmalloc links nothing and its interfaces are absent.

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CAIRN_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CAIRN_SANITIZER_ALLOCATOR 1
#endif
#endif

#endif  // CAIRN_BENCH_SUPPORT_ALLOCATOR_BUILD_H_
