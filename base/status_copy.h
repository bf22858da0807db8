#ifndef CAIRN_BASE_STATUS_COPY_H_
#define CAIRN_BASE_STATUS_COPY_H_

#include "absl/status/status.h"

namespace cairn::base {

// A status equal to `status` (code and message; payloads are dropped) that
// shares no representation with it, for handing to another thread. Debian's
// Abseil is not built with ThreadSanitizer, so the reference count of a
// Status shared between threads shows up as a race.
inline absl::Status OwnCopy(const absl::Status& status) {
  return absl::Status(status.code(), status.message());
}

}  // namespace cairn::base

#endif  // CAIRN_BASE_STATUS_COPY_H_
