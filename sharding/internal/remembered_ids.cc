#include "sharding/internal/remembered_ids.h"

#include <charconv>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "persistence/messages.h"

namespace cairn::sharding::internal {
namespace {

constexpr std::string_view kHeader = "cairn.sharding.ids 1\n";

absl::Status Bad(std::string_view what, std::size_t at) {
  return absl::InvalidArgumentError(
      absl::StrCat("remembered ids: ", std::string(what), " at byte ", at));
}

}  // namespace

std::string EncodeIdChanges(const IdChanges& changes) {
  std::string out(kHeader);
  for (const auto& [id, added] : changes) {
    out.push_back(added ? '+' : '-');
    absl::StrAppend(&out, id.size(), ":");
    out.append(id);
  }
  return out;
}

absl::StatusOr<IdChanges> DecodeIdChanges(std::string_view bytes) {
  if (bytes.substr(0, kHeader.size()) != kHeader) {
    return Bad("not a 'cairn.sharding.ids 1' record", 0);
  }
  IdChanges changes;
  std::size_t at = kHeader.size();
  while (at < bytes.size()) {
    const char sign = bytes[at];
    if (sign != '+' && sign != '-') return Bad("expected '+' or '-'", at);
    ++at;
    const std::size_t colon = bytes.find(':', at);
    if (colon == std::string_view::npos) return Bad("expected a length", at);
    std::size_t length = 0;
    const char* first = bytes.data() + at;
    const char* last = bytes.data() + colon;
    auto [end, error] = std::from_chars(first, last, length);
    if (error != std::errc() || end != last || first == last) {
      return Bad("expected a length", at);
    }
    at = colon + 1;
    if (length > bytes.size() - at) return Bad("id runs past the end", at);
    changes.emplace_back(std::string(bytes.substr(at, length)), sign == '+');
    at += length;
  }
  return changes;
}

RememberedIds::RememberedIds(std::string persistence_id,
                             RememberedIdsSettings settings)
    : persistence_id_(std::move(persistence_id)),
      settings_(std::move(settings)) {
  Recover<persistence::SnapshotOffer>(
      [this](const persistence::SnapshotOffer& offer) {
        const std::string* bytes = offer.snapshot.As<std::string>();
        if (bytes == nullptr) {
          throw std::runtime_error(
              absl::StrCat("the snapshot of ", persistence_id_, " is a ",
                           offer.snapshot.TypeName(), ", not remembered ids"));
        }
        ids_.clear();
        Apply(*bytes, "snapshot");
      });
  Recover<std::string>(
      [this](const std::string& bytes) { Apply(bytes, "event"); });
  Recover<persistence::RecoveryCompleted>(
      [this](const persistence::RecoveryCompleted&) {
        Context().Parent().Tell(IdsLoaded{ids_}, Self());
      });
  Command<StoreIds>([this](const StoreIds& store) {
    Persist(EncodeIdChanges(store.changes),
            [this, changes = store.changes](const std::string&) {
              ApplyChanges(changes);
              Sender().Tell(IdsStored{changes}, Self());
            });
  });
}

void RememberedIds::Apply(std::string_view bytes, const char* what) {
  absl::StatusOr<IdChanges> changes = DecodeIdChanges(bytes);
  if (!changes.ok()) {
    throw std::runtime_error(absl::StrCat(
        "the ", what, " at sequence number ", LastSequenceNr(), " of ",
        persistence_id_, ": ", changes.status().message()));
  }
  ApplyChanges(*changes);
}

void RememberedIds::ApplyChanges(const IdChanges& changes) {
  for (const auto& [id, added] : changes) {
    if (added) {
      ids_.insert(id);
    } else {
      ids_.erase(id);
    }
  }
}

void RememberedIds::OnPersistRejected(const absl::Status& cause,
                                      const serialization::Payload& event,
                                      int64_t sequence_nr) {
  // The parent waits for this write: a rejection is a failure here.
  PersistentActor::OnPersistRejected(cause, event, sequence_nr);
  Context().Stop(Self());
}

std::optional<persistence::RetentionCriteria> RememberedIds::GetRetention()
    const {
  return persistence::RetentionCriteria::SnapshotEvery(
             settings_.snapshot_after, settings_.keep_nr_of_batches)
      .WithDeleteEventsOnSnapshot();
}

std::optional<serialization::Payload> RememberedIds::RetentionSnapshot() const {
  IdChanges all;
  all.reserve(ids_.size());
  for (const std::string& id : ids_) all.emplace_back(id, true);
  return serialization::Payload::Of(EncodeIdChanges(all));
}

}  // namespace cairn::sharding::internal
