#ifndef CAIRN_PERSISTENCE_STORAGE_DURABLE_STATE_STORE_H_
#define CAIRN_PERSISTENCE_STORAGE_DURABLE_STATE_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/storage/write_fence.h"
#include "serialization/payload.h"

namespace cairn::persistence {

// What a durable state store holds for one persistence id (Akka's
// GetObjectResult): the value and its revision. Revision 0 and no value:
// nothing was ever stored. A deleted value has none, and keeps the
// revision of its delete.
struct DurableStateObject {
  std::optional<serialization::Payload> value;
  int64_t revision = 0;
};

// One change of a value, for queries by tag: a new value (Akka's
// UpdatedDurableState), or its delete (DeletedDurableState: `deleted`,
// no value). `offset` orders the changes of a store (each write gets a
// higher one than every change before it).
struct DurableStateChange {
  std::string persistence_id;
  int64_t revision = 0;
  serialization::Payload value;  // empty when deleted
  int64_t offset = 0;
  int64_t timestamp_ms = 0;  // when it was stored, ms since the epoch
  bool deleted = false;
};

// The durable state store plugin interface (Akka's DurableStateUpdateStore
// with DurableStateStoreQuery's currentChanges): the whole state of an
// entity stored under its persistence id, each write replacing the last
// and guarded by a revision number, so that there is one writer.
//
// Revisions: a write of revision r (an upsert or a delete) succeeds only
// if the stored revision is r - 1 (0 for an id never written): otherwise
// FailedPrecondition naming the id, the revision written and the one
// stored, and nothing changes. A delete removes the value and keeps the
// revision, so that the id's next writer goes on from it.
//
// Threading contract: as Journal's (journal.h): any thread may call, calls
// return at once, each callback runs exactly once on a plugin thread,
// never on the calling thread inside the call and never under a plugin
// lock; callbacks must be cheap; the destructor completes what was
// submitted. The calls on one persistence id are applied and completed in
// submission order.
//
// Fences: as snapshot_store.h's: a write with a `fence` is applied by a
// store that keeps leases (PostgreSQL) only while the lease is held with
// that token; stores of one process's own storage ignore fences.
class DurableStateStore {
 public:
  using GetCallback =
      absl::AnyInvocable<void(absl::StatusOr<DurableStateObject> result) &&>;
  using DoneCallback = absl::AnyInvocable<void(absl::Status status) &&>;
  using ChangesCallback = absl::AnyInvocable<
      void(absl::StatusOr<std::vector<DurableStateChange>> changes) &&>;

  virtual ~DurableStateStore() = default;

  // The value of `persistence_id` and its revision. DataLoss naming the id
  // if what is stored cannot be read (a damaged record, a manifest no
  // serializer knows); other codes if the store failed.
  virtual void AsyncGetObject(std::string persistence_id, GetCallback done) = 0;

  // Stores `value` as revision `revision` of `persistence_id` (the rule
  // above), found by CurrentChanges under `tag` (the empty tag too: the
  // untagged values). The serializer's error (InvalidArgument for a type
  // nobody registered) if the value cannot be serialized; InvalidArgument
  // if the revision is below 1; other codes if the store failed.
  virtual void AsyncUpsertObject(std::string persistence_id, int64_t revision,
                                 serialization::Payload value, std::string tag,
                                 std::optional<WriteFence> fence,
                                 DoneCallback done) = 0;

  // Removes the value of `persistence_id` as revision `revision` (the rule
  // above). The delete is a change under the tag the value had (none for
  // an id that never had a value), which CurrentChanges reports.
  virtual void AsyncDeleteObject(std::string persistence_id, int64_t revision,
                                 std::optional<WriteFence> fence,
                                 DoneCallback done) = 0;

  // The values stored under `tag` whose last change has an offset above
  // `after_offset`, at most `max` of them, in offset order, one per
  // persistence id (its latest: Akka's currentChanges, which does not
  // promise every intermediate revision). A projection reads on from the
  // last offset it got. A delete is reported (`deleted`), so a read model
  // drops the entity; a value moved to another tag is not reported under
  // the old one (its latest change is under the new tag).
  virtual void AsyncCurrentChanges(std::string tag, int64_t after_offset,
                                   int64_t max, ChangesCallback done) = 0;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_DURABLE_STATE_STORE_H_
