#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_DURABLE_STATE_ROWS_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_DURABLE_STATE_ROWS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/storage/durable_state_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence::postgres_internal {

// The durable state store's statements on table `durable_state`
// (postgres_schema.cc, version 5), prepared on each of its connections.
//
// kStateGet ($1 id): no row, or one: revision, serializer_id,
// serializer_manifest, payload (NULL after a delete).
inline constexpr char kStateGet[] = "state_get";
// kStateUpsert ($1 id, $2 revision, $3 tag, $4 serializer id, $5 manifest,
// $6 payload) and kStateDelete ($1 id, $2 revision): cairn_write_state,
// which raises kStateRevisionSqlState unless the stored revision is the
// one before.
inline constexpr char kStateUpsert[] = "state_upsert";
inline constexpr char kStateDelete[] = "state_delete";
// kStateChanges ($1 tag, $2 after offset, $3 max): persistence_id,
// revision, state_offset, the write's time (ms since the epoch),
// serializer_id, serializer_manifest, payload (NULL: a delete, which keeps
// the tag of the value it deleted); in offset order.
inline constexpr char kStateChanges[] = "state_changes";
// kStateCheckLease: cairn_check_lease ($1 lease, $2 owner, $3 token), as
// the journal and snapshot store check a fence.
inline constexpr char kStateCheckLease[] = "state_check_lease";

absl::Span<const PgStatement> DurableStateStatements();

// The parameters of kStateCheckLease for `fence`.
PgParams StateFenceParams(const WriteFence& fence);

// The outcome of a write of `revision` of `persistence_id` whose
// cairn_write_state failed with `error`: FailedPrecondition naming the id,
// the revision written and the one stored if it was not the next revision;
// otherwise `error`'s code with the id in its message.
absl::Status StateWriteError(const absl::Status& error,
                             std::string_view persistence_id, int64_t revision);

// The object in kStateGet's `result` for `persistence_id`: DataLoss naming
// the id and revision if its value cannot be deserialized.
absl::StatusOr<DurableStateObject> ObjectFromRows(
    const PgResult& result, std::string_view persistence_id,
    const serialization::SerializationRegistry& registry);

// The changes in kStateChanges's `result`, a NULL payload as a change with
// `deleted` set (and no value): DataLoss naming the id and revision of the
// first value that cannot be deserialized.
absl::StatusOr<std::vector<DurableStateChange>> ChangesFromRows(
    const PgResult& result,
    const serialization::SerializationRegistry& registry);

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_DURABLE_STATE_ROWS_H_
