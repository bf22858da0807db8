#ifndef CAIRN_PERSISTENCE_INTERNAL_OPENING_PLUGINS_H_
#define CAIRN_PERSISTENCE_INTERNAL_OPENING_PLUGINS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "persistence/internal/opening_store.h"
#include "persistence/storage/durable_state_store.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"

namespace cairn::persistence::internal {

// A Journal whose plugin is made (RocksDB opened) on a thread of its own:
// calls made before are held and handed over in order; if the plugin
// cannot be made, every call completes with that error. See OpeningStore.
// Thread safety and callbacks: the Journal contract.
class OpeningJournal final : public Journal {
 public:
  explicit OpeningJournal(OpeningStore<Journal>::Open open)
      : store_(std::move(open)) {}

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override;
  // The plugin's own once it is made (so perhaps inline); before, held.
  void WriteMessagesNowOrLater(std::vector<AtomicWrite> writes,
                               WriteCallback done) override;
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event, DoneCallback done) override;
  // The plugin's own (which may leave the payloads serialized), held like
  // any other call until the plugin is made.
  void AsyncReplayPage(std::string persistence_id, int64_t from_sequence_nr,
                       int64_t to_sequence_nr, int64_t max,
                       ReplayPageCallback done) override;
  void AsyncReadHighestSequenceNr(std::string persistence_id,
                                  int64_t from_sequence_nr,
                                  HighestCallback done) override;
  // The plugin's own once it is made (a journal that reads its snapshots
  // itself keeps doing so behind this one); before, the default's calls,
  // held like any other.
  void AsyncStartRecovery(RecoveryStartRequest request, ReplayCallback on_event,
                          RecoveryStartCallback done) override;
  void AsyncDeleteMessagesTo(std::string persistence_id, int64_t to_sequence_nr,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override;
  // Waits for the plugin to be made (the one call that blocks), then asks
  // it; the open's error if it cannot be made.
  absl::StatusOr<std::unique_ptr<ReadJournal>> NewReadJournal() override;

 private:
  void Write(std::vector<AtomicWrite> writes, WriteCallback done,
             bool now_or_later);

  OpeningStore<Journal> store_;
};

// The same for a SnapshotStore.
class OpeningSnapshotStore final : public SnapshotStore {
 public:
  explicit OpeningSnapshotStore(OpeningStore<SnapshotStore>::Open open)
      : store_(std::move(open)) {}

  void AsyncLoad(std::string persistence_id, SnapshotSelectionCriteria criteria,
                 int64_t to_sequence_nr, LoadCallback done) override;
  void AsyncSave(SnapshotMetadata metadata, serialization::Payload snapshot,
                 std::optional<WriteFence> fence, DoneCallback done) override;
  void AsyncDelete(SnapshotMetadata metadata, std::optional<WriteFence> fence,
                   DoneCallback done) override;
  void AsyncDeleteByCriteria(std::string persistence_id,
                             SnapshotSelectionCriteria criteria,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override;
  // The store's own once it is made; none before.
  const void* ColocationKey() const override;

 private:
  OpeningStore<SnapshotStore> store_;
};

// The same for a DurableStateStore.
class OpeningDurableStateStore final : public DurableStateStore {
 public:
  explicit OpeningDurableStateStore(OpeningStore<DurableStateStore>::Open open)
      : store_(std::move(open)) {}

  void AsyncGetObject(std::string persistence_id, GetCallback done) override;
  void AsyncUpsertObject(std::string persistence_id, int64_t revision,
                         serialization::Payload value, std::string tag,
                         std::optional<WriteFence> fence,
                         DoneCallback done) override;
  void AsyncDeleteObject(std::string persistence_id, int64_t revision,
                         std::optional<WriteFence> fence,
                         DoneCallback done) override;
  void AsyncCurrentChanges(std::string tag, int64_t after_offset, int64_t max,
                           ChangesCallback done) override;

 private:
  OpeningStore<DurableStateStore> store_;
};

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_INTERNAL_OPENING_PLUGINS_H_
