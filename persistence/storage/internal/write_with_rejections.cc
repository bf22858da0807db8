#include "persistence/storage/internal/write_with_rejections.h"

#include <utility>

namespace cairn::persistence::storage_internal {
namespace {

// The event of a write rejected by a decorator: no serializer knows the
// type.
struct RejectedByDecorator {};

}  // namespace

void WriteWithRejections(Journal& target, std::vector<AtomicWrite> writes,
                         std::vector<absl::Status> rejections,
                         Journal::WriteCallback done) {
  for (size_t i = 0; i < writes.size(); ++i) {
    if (rejections[i].ok()) continue;
    for (PersistentRepr& event : writes[i].events) {
      event.payload = serialization::Payload::Of(RejectedByDecorator{});
    }
  }
  target.AsyncWriteMessages(
      std::move(writes),
      [done = std::move(done), rejections = std::move(rejections)](
          absl::Status batch, std::vector<absl::Status> outcomes) mutable {
        if (!batch.ok()) {
          // `outcomes` share `batch`'s representation: let go of them before
          // `batch` goes to a callback that may hand it to another thread
          // (absl::Status's reference count is invisible to
          // ThreadSanitizer; see base/status_copy.h).
          outcomes.clear();
          std::vector<absl::Status> failed(rejections.size(), batch);
          std::move(done)(std::move(batch), std::move(failed));
          return;
        }
        for (size_t i = 0; i < rejections.size(); ++i) {
          if (rejections[i].ok()) rejections[i] = std::move(outcomes[i]);
        }
        std::move(done)(absl::OkStatus(), std::move(rejections));
      });
}

}  // namespace cairn::persistence::storage_internal
