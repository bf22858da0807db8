#include "persistence/storage/plugin_support/atomic_write_check.h"

#include <cstddef>

#include "base/string_view.h"

namespace cairn::persistence::plugin_support {

absl::Status CheckAtomicWrite(const AtomicWrite& write) {
  if (write.events.empty()) {
    return absl::InvalidArgumentError("an AtomicWrite must hold an event");
  }
  const PersistentRepr& first = write.events.front();
  if (first.persistence_id.empty()) {
    return absl::InvalidArgumentError("the persistence id is empty");
  }
  if (first.sequence_nr < 1) {
    return absl::InvalidArgumentError(
        base::StrCat("persistence id '", first.persistence_id,
                     "': sequence number ", first.sequence_nr, " is below 1"));
  }
  for (size_t i = 0; i < write.events.size(); ++i) {
    const PersistentRepr& event = write.events[i];
    for (const std::string& tag : event.tags) {
      if (tag.empty()) {
        return absl::InvalidArgumentError(base::StrCat(
            "persistence id '", first.persistence_id, "': sequence number ",
            event.sequence_nr, " has an empty tag"));
      }
    }
    if (i == 0) continue;
    if (event.persistence_id != first.persistence_id) {
      return absl::InvalidArgumentError(base::StrCat(
          "an AtomicWrite mixes persistence ids '", first.persistence_id,
          "' and '", event.persistence_id, "'"));
    }
    if (event.sequence_nr != write.events[i - 1].sequence_nr + 1) {
      return absl::InvalidArgumentError(
          base::StrCat("persistence id '", first.persistence_id,
                       "': sequence number ", event.sequence_nr,
                       " does not follow ", write.events[i - 1].sequence_nr));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckFollows(std::string_view persistence_id, int64_t highest,
                          int64_t first, int64_t last) {
  if (first == highest + 1) return absl::OkStatus();
  return absl::FailedPreconditionError(base::StrCat(
      "persistence id '", persistence_id, "': a write of sequence numbers ",
      first, " to ", last, " does not follow the stream's highest, ", highest,
      " (expected ", highest + 1,
      "); nothing of it was stored. Is another writer using this "
      "persistence id?"));
}

}  // namespace cairn::persistence::plugin_support
