#ifndef CAIRN_BASE_PINNED_TO_ONE_CPU_H_
#define CAIRN_BASE_PINNED_TO_ONE_CPU_H_

#include <sched.h>

namespace cairn::base {

// For tests: while it lives, the calling thread may run on one CPU only,
// the first of its affinity mask, as under `taskset -c N` (threads it
// starts meanwhile inherit that); the mask is put back when it ends.
// ok() is false if the mask could not be read or set (nothing changed).
class PinnedToOneCpu {
 public:
  PinnedToOneCpu() {
    CPU_ZERO(&before_);
    if (sched_getaffinity(0, sizeof before_, &before_) != 0) return;
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &before_)) ++first;
    if (first == CPU_SETSIZE) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ok_ = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~PinnedToOneCpu() {
    if (ok_) sched_setaffinity(0, sizeof before_, &before_);
  }
  PinnedToOneCpu(const PinnedToOneCpu&) = delete;
  PinnedToOneCpu& operator=(const PinnedToOneCpu&) = delete;

  bool ok() const { return ok_; }

 private:
  cpu_set_t before_;
  bool ok_ = false;
};

}  // namespace cairn::base

#endif  // CAIRN_BASE_PINNED_TO_ONE_CPU_H_
