#ifndef CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_RECORD_CHECK_H_
#define CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_RECORD_CHECK_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "flatbuffers/flatbuffers.h"

namespace cairn::persistence::plugin_support {

// What every reader says about a record it cannot use, so that messages
// name the record the same way everywhere: `cause`'s code, and the message
// "persistence id '<id>', sequence nr <n>: <cause's message>".
absl::Status RecordError(std::string_view persistence_id, int64_t sequence_nr,
                         const absl::Status& cause);

// DataLoss "corrupt <kind>: <why>", for RecordError.
absl::Status Corrupt(std::string_view kind, std::string_view why);

// Not OK for a format version this code cannot read: 0 (DataLoss: never
// written by cairn) or above `current` (FailedPrecondition: written by a
// newer cairn).
absl::Status CheckFormatVersion(std::string_view kind, uint16_t version,
                                uint16_t current);

inline std::string_view StringOrEmpty(const flatbuffers::String* text) {
  return text == nullptr ? std::string_view() : text->string_view();
}

}  // namespace cairn::persistence::plugin_support

#endif  // CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_RECORD_CHECK_H_
