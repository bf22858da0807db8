#include "persistence/storage/projection_store.h"

#include "absl/strings/str_cat.h"

namespace cairn::persistence {

absl::Status ProjectionOffsetConflict(const ProjectionId& id,
                                      ProjectionOffset found,
                                      ProjectionOffset expected) {
  return absl::AbortedError(absl::StrCat(
      "projection '", id.name, "' (key '", id.key, "') is at offset ",
      found.offset, " (", found.envelopes, " envelopes), not at ",
      expected.offset, " (", expected.envelopes,
      " envelopes) where this step began: another run of it committed "
      "meanwhile; nothing of this step is stored"));
}

absl::StatusOr<std::optional<std::string>> ProjectionTransaction::Get(
    std::string_view key) const {
  if (auto it = writes_.find(key); it != writes_.end()) return it->second;
  return store_->Get(key);
}

void ProjectionTransaction::Put(std::string_view key, std::string_view value) {
  writes_.insert_or_assign(std::string(key), std::string(value));
}

void ProjectionTransaction::Delete(std::string_view key) {
  writes_.insert_or_assign(std::string(key), std::nullopt);
}

}  // namespace cairn::persistence
