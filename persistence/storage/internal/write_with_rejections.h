#ifndef CAIRN_PERSISTENCE_STORAGE_INTERNAL_WRITE_WITH_REJECTIONS_H_
#define CAIRN_PERSISTENCE_STORAGE_INTERNAL_WRITE_WITH_REJECTIONS_H_

#include <vector>

#include "absl/status/status.h"
#include "persistence/storage/journal.h"

namespace cairn::persistence::storage_internal {

// Writes `writes` to `target`, except that every writes[i] with a non-OK
// `rejections[i]` is rejected with that status, as a decorator decides
// (an injected rejection, an event adapter that failed). A rejected write
// still reaches `target`, with events no serializer knows, so that the
// journal rejects it itself and counts its sequence numbers as used
// (journal.h): the writer goes on after them, as after a real rejection.
// `done` gets `target`'s outcome with the rejections put in; a failed batch
// fails every write, the rejected ones too. rejections.size() must equal
// writes.size().
void WriteWithRejections(Journal& target, std::vector<AtomicWrite> writes,
                         std::vector<absl::Status> rejections,
                         Journal::WriteCallback done);

}  // namespace cairn::persistence::storage_internal

#endif  // CAIRN_PERSISTENCE_STORAGE_INTERNAL_WRITE_WITH_REJECTIONS_H_
