#ifndef CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_ATOMIC_WRITE_CHECK_H_
#define CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_ATOMIC_WRITE_CHECK_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "persistence/storage/persistent_repr.h"

namespace cairn::persistence::plugin_support {

// InvalidArgument unless `write` is non-empty, has one non-empty
// persistence id, sequence numbers that start at 1 or above and rise by
// one, and no empty tag. A journal fails the whole call that holds such a
// write (journal.h).
[[nodiscard]] absl::Status CheckAtomicWrite(const AtomicWrite& write);

// FailedPrecondition unless `first`, the first sequence number of a write
// to `persistence_id`, is `highest` + 1, where `highest` is the stream's
// highest sequence number so far (stored, deleted or rejected). Anything
// else means two writers of one stream, or a writer whose view of it is
// out of date: storing it would overwrite events or leave a gap.
[[nodiscard]] absl::Status CheckFollows(std::string_view persistence_id,
                                        int64_t highest, int64_t first,
                                        int64_t last);

}  // namespace cairn::persistence::plugin_support

#endif  // CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_ATOMIC_WRITE_CHECK_H_
