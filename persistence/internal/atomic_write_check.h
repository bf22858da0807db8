#ifndef CAIRN_PERSISTENCE_INTERNAL_ATOMIC_WRITE_CHECK_H_
#define CAIRN_PERSISTENCE_INTERNAL_ATOMIC_WRITE_CHECK_H_

#include "absl/status/status.h"
#include "persistence/persistent_repr.h"

namespace cairn::persistence::internal {

// InvalidArgument (a rejection) unless `write` is non-empty, has one
// non-empty persistence id and sequence numbers that start at 1 or above
// and rise by one.
[[nodiscard]] absl::Status CheckAtomicWrite(const AtomicWrite& write);

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_INTERNAL_ATOMIC_WRITE_CHECK_H_
