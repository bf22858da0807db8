#include "persistence/storage/plugin_support/record_check.h"

#include "base/string_view.h"

namespace cairn::persistence::plugin_support {

absl::Status RecordError(std::string_view persistence_id, int64_t sequence_nr,
                         const absl::Status& cause) {
  return absl::Status(
      cause.code(),
      base::StrCat("persistence id '", persistence_id, "', sequence nr ",
                   sequence_nr, ": ", cause.message()));
}

absl::Status Corrupt(std::string_view kind, std::string_view why) {
  return absl::DataLossError(base::StrCat("corrupt ", kind, ": ", why));
}

absl::Status CheckFormatVersion(std::string_view kind, uint16_t version,
                                uint16_t current) {
  if (version == 0) return Corrupt(kind, "no format version");
  if (version > current) {
    return absl::FailedPreconditionError(
        base::StrCat("unreadable ", kind, ": format version ", version,
                     " is newer than this reader's (", current, ")"));
  }
  return absl::OkStatus();
}

}  // namespace cairn::persistence::plugin_support
