#include "persistence/internal/opening_plugins.h"

#include <future>
#include <memory>
#include <utility>

#include "base/status_copy.h"

namespace cairn::persistence::internal {

void OpeningJournal::AsyncWriteMessages(std::vector<AtomicWrite> writes,
                                        WriteCallback done) {
  Write(std::move(writes), std::move(done), /*now_or_later=*/false);
}

void OpeningJournal::WriteMessagesNowOrLater(std::vector<AtomicWrite> writes,
                                             WriteCallback done) {
  Write(std::move(writes), std::move(done), /*now_or_later=*/true);
}

void OpeningJournal::Write(std::vector<AtomicWrite> writes, WriteCallback done,
                           bool now_or_later) {
  store_.Submit([writes = std::move(writes), done = std::move(done),
                 now_or_later](Journal* journal,
                               const absl::Status& error) mutable {
    if (journal != nullptr) {
      if (now_or_later) {
        journal->WriteMessagesNowOrLater(std::move(writes), std::move(done));
      } else {
        journal->AsyncWriteMessages(std::move(writes), std::move(done));
      }
      return;
    }
    std::vector<absl::Status> per_write;
    per_write.reserve(writes.size());
    for (size_t i = 0; i < writes.size(); ++i) {
      per_write.push_back(base::OwnCopy(error));
    }
    std::move(done)(base::OwnCopy(error), std::move(per_write));
  });
}

void OpeningJournal::AsyncReplayMessages(std::string persistence_id,
                                         int64_t from_sequence_nr,
                                         int64_t to_sequence_nr, int64_t max,
                                         ReplayCallback on_event,
                                         DoneCallback done) {
  store_.Submit([persistence_id = std::move(persistence_id), from_sequence_nr,
                 to_sequence_nr, max, on_event = std::move(on_event),
                 done = std::move(done)](Journal* journal,
                                         const absl::Status& error) mutable {
    if (journal == nullptr) return std::move(done)(base::OwnCopy(error));
    journal->AsyncReplayMessages(std::move(persistence_id), from_sequence_nr,
                                 to_sequence_nr, max, std::move(on_event),
                                 std::move(done));
  });
}

void OpeningJournal::AsyncReplayPage(std::string persistence_id,
                                     int64_t from_sequence_nr,
                                     int64_t to_sequence_nr, int64_t max,
                                     ReplayPageCallback done) {
  store_.Submit([persistence_id = std::move(persistence_id), from_sequence_nr,
                 to_sequence_nr, max, done = std::move(done)](
                    Journal* journal, const absl::Status& error) mutable {
    if (journal == nullptr) {
      return std::move(done)(base::OwnCopy(error), ReplayPage());
    }
    journal->AsyncReplayPage(std::move(persistence_id), from_sequence_nr,
                             to_sequence_nr, max, std::move(done));
  });
}

void OpeningJournal::AsyncReadHighestSequenceNr(std::string persistence_id,
                                                int64_t from_sequence_nr,
                                                HighestCallback done) {
  store_.Submit([persistence_id = std::move(persistence_id), from_sequence_nr,
                 done = std::move(done)](Journal* journal,
                                         const absl::Status& error) mutable {
    if (journal == nullptr) return std::move(done)(base::OwnCopy(error));
    journal->AsyncReadHighestSequenceNr(std::move(persistence_id),
                                        from_sequence_nr, std::move(done));
  });
}

void OpeningJournal::AsyncStartRecovery(RecoveryStartRequest request,
                                        ReplayCallback on_event,
                                        RecoveryStartCallback done) {
  // `request.snapshots` is only good during the call, so it is not held
  // for a journal still opening.
  if (Journal* journal = store_.Ready()) {
    journal->AsyncStartRecovery(std::move(request), std::move(on_event),
                                std::move(done));
    return;
  }
  Journal::AsyncStartRecovery(std::move(request), std::move(on_event),
                              std::move(done));
}

void OpeningJournal::AsyncDeleteMessagesTo(std::string persistence_id,
                                           int64_t to_sequence_nr,
                                           std::optional<WriteFence> fence,
                                           DoneCallback done) {
  store_.Submit([persistence_id = std::move(persistence_id), to_sequence_nr,
                 fence = std::move(fence), done = std::move(done)](
                    Journal* journal, const absl::Status& error) mutable {
    if (journal == nullptr) return std::move(done)(base::OwnCopy(error));
    journal->AsyncDeleteMessagesTo(std::move(persistence_id), to_sequence_nr,
                                   std::move(fence), std::move(done));
  });
}

absl::StatusOr<std::unique_ptr<ReadJournal>> OpeningJournal::NewReadJournal() {
  using Result = absl::StatusOr<std::unique_ptr<ReadJournal>>;
  auto made = std::make_shared<std::promise<Result>>();
  std::future<Result> result = made->get_future();
  store_.Submit([made](Journal* journal, const absl::Status& error) {
    made->set_value(journal != nullptr ? journal->NewReadJournal()
                                       : Result(base::OwnCopy(error)));
  });
  return result.get();
}

void OpeningSnapshotStore::AsyncLoad(std::string persistence_id,
                                     SnapshotSelectionCriteria criteria,
                                     int64_t to_sequence_nr,
                                     LoadCallback done) {
  store_.Submit([persistence_id = std::move(persistence_id), criteria,
                 to_sequence_nr, done = std::move(done)](
                    SnapshotStore* store, const absl::Status& error) mutable {
    if (store == nullptr) return std::move(done)(base::OwnCopy(error));
    store->AsyncLoad(std::move(persistence_id), criteria, to_sequence_nr,
                     std::move(done));
  });
}

void OpeningSnapshotStore::AsyncSave(SnapshotMetadata metadata,
                                     serialization::Payload snapshot,
                                     std::optional<WriteFence> fence,
                                     DoneCallback done) {
  store_.Submit([metadata = std::move(metadata), snapshot = std::move(snapshot),
                 fence = std::move(fence), done = std::move(done)](
                    SnapshotStore* store, const absl::Status& error) mutable {
    if (store == nullptr) return std::move(done)(base::OwnCopy(error));
    store->AsyncSave(std::move(metadata), std::move(snapshot), std::move(fence),
                     std::move(done));
  });
}

void OpeningSnapshotStore::AsyncDelete(SnapshotMetadata metadata,
                                       std::optional<WriteFence> fence,
                                       DoneCallback done) {
  store_.Submit([metadata = std::move(metadata), fence = std::move(fence),
                 done = std::move(done)](SnapshotStore* store,
                                         const absl::Status& error) mutable {
    if (store == nullptr) return std::move(done)(base::OwnCopy(error));
    store->AsyncDelete(std::move(metadata), std::move(fence), std::move(done));
  });
}

void OpeningSnapshotStore::AsyncDeleteByCriteria(
    std::string persistence_id, SnapshotSelectionCriteria criteria,
    std::optional<WriteFence> fence, DoneCallback done) {
  store_.Submit([persistence_id = std::move(persistence_id), criteria,
                 fence = std::move(fence), done = std::move(done)](
                    SnapshotStore* store, const absl::Status& error) mutable {
    if (store == nullptr) return std::move(done)(base::OwnCopy(error));
    store->AsyncDeleteByCriteria(std::move(persistence_id), criteria,
                                 std::move(fence), std::move(done));
  });
}

const void* OpeningSnapshotStore::ColocationKey() const {
  const SnapshotStore* store = store_.Ready();
  return store != nullptr ? store->ColocationKey() : nullptr;
}

void OpeningDurableStateStore::AsyncGetObject(std::string persistence_id,
                                              GetCallback done) {
  store_.Submit(
      [persistence_id = std::move(persistence_id), done = std::move(done)](
          DurableStateStore* store, const absl::Status& error) mutable {
        if (store == nullptr) return std::move(done)(base::OwnCopy(error));
        store->AsyncGetObject(std::move(persistence_id), std::move(done));
      });
}

void OpeningDurableStateStore::AsyncUpsertObject(
    std::string persistence_id, int64_t revision, serialization::Payload value,
    std::string tag, std::optional<WriteFence> fence, DoneCallback done) {
  store_.Submit([persistence_id = std::move(persistence_id), revision,
                 value = std::move(value), tag = std::move(tag),
                 fence = std::move(fence),
                 done = std::move(done)](DurableStateStore* store,
                                         const absl::Status& error) mutable {
    if (store == nullptr) return std::move(done)(base::OwnCopy(error));
    store->AsyncUpsertObject(std::move(persistence_id), revision,
                             std::move(value), std::move(tag), std::move(fence),
                             std::move(done));
  });
}

void OpeningDurableStateStore::AsyncDeleteObject(
    std::string persistence_id, int64_t revision,
    std::optional<WriteFence> fence, DoneCallback done) {
  store_.Submit([persistence_id = std::move(persistence_id), revision,
                 fence = std::move(fence),
                 done = std::move(done)](DurableStateStore* store,
                                         const absl::Status& error) mutable {
    if (store == nullptr) return std::move(done)(base::OwnCopy(error));
    store->AsyncDeleteObject(std::move(persistence_id), revision,
                             std::move(fence), std::move(done));
  });
}

void OpeningDurableStateStore::AsyncCurrentChanges(std::string tag,
                                                   int64_t after_offset,
                                                   int64_t max,
                                                   ChangesCallback done) {
  store_.Submit(
      [tag = std::move(tag), after_offset, max, done = std::move(done)](
          DurableStateStore* store, const absl::Status& error) mutable {
        if (store == nullptr) return std::move(done)(base::OwnCopy(error));
        store->AsyncCurrentChanges(std::move(tag), after_offset, max,
                                   std::move(done));
      });
}

}  // namespace cairn::persistence::internal
