#include "persistence/postgresql/internal/postgres_durable_state_rows.h"

#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/postgres_schema.h"
#include "persistence/storage/plugin_support/durable_state_check.h"

namespace cairn::persistence::postgres_internal {
namespace {

// Types cast explicitly: the binary parameters (bigint, integer, bytea)
// must be read as what they are, whatever overloads of the function exist.
constexpr PgStatement kStatements[] = {
    {kStateCheckLease, kCheckLeaseSql},
    {kStateGet,
     "SELECT revision, serializer_id, serializer_manifest, payload FROM "
     "durable_state WHERE persistence_id = $1"},
    {kStateUpsert,
     "SELECT cairn_write_state($1::text, $2::bigint, $3::text, $4::integer, "
     "$5::text, $6::bytea)"},
    {kStateDelete,
     "SELECT cairn_write_state($1::text, $2::bigint, NULL::text, "
     "NULL::integer, NULL::text, NULL::bytea)"},
    // A deleted value keeps its tag and has a NULL payload: its row is the
    // delete, reported as such (one of an id never written has no tag).
    {kStateChanges,
     "SELECT persistence_id, revision, state_offset, "
     "(extract(epoch FROM written_at) * 1000)::bigint, serializer_id, "
     "serializer_manifest, payload FROM durable_state WHERE tag = $1::text "
     "AND state_offset > $2::bigint ORDER BY state_offset LIMIT $3::bigint"},
};

absl::Status Unreadable(std::string_view persistence_id, int64_t revision,
                        const absl::Status& cause) {
  return absl::DataLossError(base::StrCat(
      "durable state of persistence id '", persistence_id, "' at revision ",
      revision, " cannot be read: ", cause.message()));
}

}  // namespace

absl::Span<const PgStatement> DurableStateStatements() { return kStatements; }

PgParams StateFenceParams(const WriteFence& fence) {
  PgParams params;
  params.Text(fence.lease).Text(fence.owner).Int64(fence.token);
  return params;
}

absl::Status StateWriteError(const absl::Status& error,
                             std::string_view persistence_id,
                             int64_t revision) {
  if (PgSqlState(error) == kStateRevisionSqlState) {
    // Its message is the stored revision.
    int64_t stored = 0;
    if (!absl::SimpleAtoi(PgPrimaryMessage(error), &stored)) stored = -1;
    return plugin_support::StateRevisionConflict(persistence_id, revision,
                                                 stored);
  }
  return absl::Status(
      error.code(),
      base::StrCat("durable state of persistence id '", persistence_id,
                   "', revision ", revision, ": ", error.message()));
}

absl::StatusOr<DurableStateObject> ObjectFromRows(
    const PgResult& result, std::string_view persistence_id,
    const serialization::SerializationRegistry& registry) {
  DurableStateObject object;
  if (result.rows() == 0) return object;  // never written
  object.revision = result.Int64(0, 0);
  if (result.IsNull(0, 3)) return object;  // deleted
  if (result.IsNull(0, 1) || result.IsNull(0, 2)) {
    return Unreadable(persistence_id, object.revision,
                      absl::DataLossError("a payload without its serializer"));
  }
  absl::StatusOr<serialization::Payload> value = registry.Deserialize(
      result.Int32(0, 1), result.Bytes(0, 2), result.Bytes(0, 3));
  if (!value.ok()) {
    return Unreadable(persistence_id, object.revision, value.status());
  }
  object.value = *std::move(value);
  return object;
}

absl::StatusOr<std::vector<DurableStateChange>> ChangesFromRows(
    const PgResult& result,
    const serialization::SerializationRegistry& registry) {
  std::vector<DurableStateChange> changes;
  changes.reserve(result.rows());
  for (int row = 0; row < result.rows(); ++row) {
    DurableStateChange change;
    change.persistence_id = std::string(result.Bytes(row, 0));
    change.revision = result.Int64(row, 1);
    change.offset = result.Int64(row, 2);
    change.timestamp_ms = result.Int64(row, 3);
    if (result.IsNull(row, 6)) {  // a delete: no value
      change.deleted = true;
      changes.push_back(std::move(change));
      continue;
    }
    if (result.IsNull(row, 4) || result.IsNull(row, 5)) {
      return Unreadable(
          change.persistence_id, change.revision,
          absl::DataLossError("a payload without its serializer"));
    }
    absl::StatusOr<serialization::Payload> value = registry.Deserialize(
        result.Int32(row, 4), result.Bytes(row, 5), result.Bytes(row, 6));
    if (!value.ok()) {
      return Unreadable(change.persistence_id, change.revision, value.status());
    }
    change.value = *std::move(value);
    changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace cairn::persistence::postgres_internal
