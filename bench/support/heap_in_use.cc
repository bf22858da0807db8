#include "bench/support/heap_in_use.h"

#include <cstddef>

#include "bench/support/allocator_build.h"

#ifdef CAIRN_SANITIZER_ALLOCATOR
#include <malloc.h>
#else
#include <gperftools/malloc_extension_c.h>
#endif

namespace cairn::bench {

long HeapInUse() {
#ifdef CAIRN_SANITIZER_ALLOCATOR
  const struct mallinfo2 info = mallinfo2();
  return static_cast<long>(info.uordblks + info.hblkhd);
#else
  size_t bytes = 0;
  MallocExtension_GetNumericProperty("generic.current_allocated_bytes", &bytes);
  return static_cast<long>(bytes);
#endif
}

}  // namespace cairn::bench
