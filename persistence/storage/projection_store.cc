#include "persistence/storage/projection_store.h"

namespace cairn::persistence {

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
