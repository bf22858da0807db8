#include "persistence/postgresql/internal/postgres_snapshot_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/pg_schema.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::internal {
namespace {

constexpr char kLoad[] = "load";
constexpr char kSave[] = "save";
constexpr char kDeleteOne[] = "delete_one";
constexpr char kDeleteMatching[] = "delete_matching";

// A load reads this many candidates at a time, newest first: usually the
// first one is readable and nothing more is read.
constexpr int kLoadPageRows = 4;

constexpr struct {
  const char* name;
  const char* sql;
} kStatements[] = {
    {kLoad,
     "SELECT sequence_number, write_timestamp, serializer_id, "
     "serializer_manifest, payload FROM snapshot WHERE persistence_id = $1 "
     "AND sequence_number <= $2 AND write_timestamp <= $3 AND "
     "sequence_number >= $4 AND write_timestamp >= $5 "
     "ORDER BY sequence_number DESC LIMIT $6"},
    {kSave,
     "INSERT INTO snapshot (persistence_id, sequence_number, write_timestamp, "
     "serializer_id, serializer_manifest, payload) VALUES ($1, $2, $3, $4, "
     "$5, $6) ON CONFLICT (persistence_id, sequence_number) DO UPDATE SET "
     "write_timestamp = EXCLUDED.write_timestamp, serializer_id = "
     "EXCLUDED.serializer_id, serializer_manifest = "
     "EXCLUDED.serializer_manifest, payload = EXCLUDED.payload"},
    {kDeleteOne,
     "DELETE FROM snapshot WHERE persistence_id = $1 AND sequence_number = "
     "$2"},
    {kDeleteMatching,
     "DELETE FROM snapshot WHERE persistence_id = $1 AND sequence_number <= "
     "$2 AND write_timestamp <= $3 AND sequence_number >= $4 AND "
     "write_timestamp >= $5"},
};

absl::Status PrepareStatements(PgConnection& connection) {
  for (const auto& statement : kStatements) {
    if (absl::Status s = connection.Prepare(statement.name, statement.sql);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status Copy(const absl::Status& status) {
  return absl::Status(status.code(), status.message());
}

PgParams CriteriaParams(const std::string& persistence_id,
                        const SnapshotSelectionCriteria& c) {
  PgParams params;
  params.Text(persistence_id)
      .Int64(c.max_sequence_nr)
      .Int64(c.max_timestamp)
      .Int64(c.min_sequence_nr)
      .Int64(c.min_timestamp);
  return params;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresSnapshotStore>>
PostgresSnapshotStore::Open(
    PgConnectionSettings connection, PgReconnectBackoff backoff,
    std::shared_ptr<const SerializationRegistry> registry) {
  absl::StatusOr<std::unique_ptr<PgConnection>> first =
      PgConnection::Connect(connection);
  if (!first.ok()) return first.status();
  if (absl::Status s = EnsurePgSchema(**first, connection.schema); !s.ok()) {
    return s;
  }
  return std::unique_ptr<PostgresSnapshotStore>(new PostgresSnapshotStore(
      std::move(connection), backoff, std::move(registry)));
}

PostgresSnapshotStore::PostgresSnapshotStore(
    PgConnectionSettings connection, PgReconnectBackoff backoff,
    std::shared_ptr<const SerializationRegistry> registry)
    : registry_(std::move(registry)),
      pool_(std::move(connection), PrepareStatements, backoff),
      runner_(1, "cairn-pg-snap") {}

PostgresSnapshotStore::~PostgresSnapshotStore() = default;

void PostgresSnapshotStore::AsyncLoad(std::string persistence_id,
                                      SnapshotSelectionCriteria criteria,
                                      int64_t to_sequence_nr,
                                      LoadCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id),
                criteria = criteria.Limit(to_sequence_nr), to_sequence_nr,
                done = std::move(done)]() mutable {
    // Repeated on a new connection if its connection was lost: a load
    // changes nothing.
    absl::StatusOr<LoadSnapshotResult> loaded;
    absl::Status status = pool_.Run(
        [&](PgConnection& connection) {
          loaded = Load(connection, persistence_id, criteria);
          return loaded.status();
        },
        [] { return true; });
    if (!status.ok()) loaded = Copy(status);
    if (loaded.ok()) loaded->to_sequence_nr = to_sequence_nr;
    std::move(done)(std::move(loaded));
  });
}

absl::StatusOr<LoadSnapshotResult> PostgresSnapshotStore::Load(
    PgConnection& connection, const std::string& persistence_id,
    const SnapshotSelectionCriteria& criteria) {
  LoadSnapshotResult result;
  SnapshotSelectionCriteria remaining = criteria;
  while (true) {
    PgParams params = CriteriaParams(persistence_id, remaining);
    params.Int64(kLoadPageRows);
    absl::StatusOr<PgResult> page = connection.ExecutePrepared(kLoad, params);
    if (!page.ok()) {
      return absl::Status(
          page.status().code(),
          base::StrCat("loading a snapshot of '", persistence_id,
                       "': ", page.status().message()));
    }
    for (int row = 0; row < page->rows(); ++row) {
      SnapshotMetadata metadata{persistence_id, page->Int64(row, 0),
                                page->Int64(row, 1)};
      absl::StatusOr<Payload> payload = registry_->Deserialize(
          page->Int32(row, 2), page->Bytes(row, 3), page->Bytes(row, 4));
      if (!payload.ok()) {
        // Passed over for the next older one, and reported (snapshot_store.h).
        result.unreadable.push_back(RecordError(
            persistence_id, metadata.sequence_nr, payload.status()));
        continue;
      }
      result.snapshot =
          SelectedSnapshot{std::move(metadata), *std::move(payload)};
      return result;
    }
    if (page->rows() < kLoadPageRows) return result;
    remaining.max_sequence_nr = page->Int64(page->rows() - 1, 0) - 1;
  }
}

absl::Status PostgresSnapshotStore::Run(const char* statement,
                                        const PgParams& params) {
  // Every statement here is idempotent (an upsert, deletes): repeated on a
  // new connection if its connection was lost.
  return Copy(pool_.Run(
      [&](PgConnection& connection) {
        return connection.ExecutePrepared(statement, params).status();
      },
      [] { return true; }));
}

void PostgresSnapshotStore::AsyncSave(SnapshotMetadata metadata,
                                      Payload snapshot, DoneCallback done) {
  absl::StatusOr<SerializedPayload> serialized = registry_->Serialize(snapshot);
  absl::Status refused = serialized.status();
  if (refused.ok() &&
      (metadata.persistence_id.empty() || metadata.sequence_nr < 0)) {
    refused = absl::InvalidArgumentError(
        "needs a persistence id and a sequence number of 0 or more");
  }
  if (refused.ok()) {
    refused = CheckPgText("the persistence id", metadata.persistence_id);
  }
  if (refused.ok()) {
    refused = CheckPgText("the serializer's manifest", serialized->manifest);
  }
  if (!refused.ok()) {
    absl::Status error =
        RecordError(metadata.persistence_id, metadata.sequence_nr,
                    absl::InvalidArgumentError(refused.message()));
    runner_.Post([error = std::move(error), done = std::move(done)]() mutable {
      std::move(done)(std::move(error));
    });
    return;
  }
  PgParams params;
  params.Text(metadata.persistence_id)
      .Int64(metadata.sequence_nr)
      .Int64(metadata.timestamp)
      .Int32(serialized->serializer_id)
      .Text(serialized->manifest)
      .Bytes(serialized->bytes);
  runner_.Post(
      [this, params = std::move(params), done = std::move(done)]() mutable {
        std::move(done)(Run(kSave, params));
      });
}

void PostgresSnapshotStore::AsyncDelete(SnapshotMetadata metadata,
                                        DoneCallback done) {
  PgParams params;
  params.Text(metadata.persistence_id).Int64(metadata.sequence_nr);
  runner_.Post(
      [this, params = std::move(params), done = std::move(done)]() mutable {
        std::move(done)(Run(kDeleteOne, params));
      });
}

void PostgresSnapshotStore::AsyncDeleteByCriteria(
    std::string persistence_id, SnapshotSelectionCriteria criteria,
    DoneCallback done) {
  runner_.Post([this, params = CriteriaParams(persistence_id, criteria),
                done = std::move(done)]() mutable {
    std::move(done)(Run(kDeleteMatching, params));
  });
}

}  // namespace cairn::persistence::internal
