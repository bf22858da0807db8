#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SNAPSHOT_STORE_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SNAPSHOT_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "persistence/postgresql/internal/pg_connection.h"
#include "persistence/postgresql/internal/pg_connection_pool.h"
#include "persistence/storage/plugin_support/task_runner.h"
#include "persistence/storage/serialization.h"
#include "persistence/storage/snapshot_store.h"

namespace cairn::persistence::internal {

// The snapshot store on PostgreSQL (table `snapshot`, docs/POSTGRESQL.md).
// One thread with one connection applies the operations in submission
// order (snapshot_store.h); a lost connection fails the operation in flight
// and the next one connects again (PgConnectionPool's backoff).
class PostgresSnapshotStore final : public SnapshotStore {
 public:
  // Connects once to make the schema's tables if missing (EnsurePgSchema).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<PostgresSnapshotStore>>
  Open(PgConnectionSettings connection, PgReconnectBackoff backoff,
       std::shared_ptr<const SerializationRegistry> registry);
  ~PostgresSnapshotStore() override;

  void AsyncLoad(std::string persistence_id, SnapshotSelectionCriteria criteria,
                 int64_t to_sequence_nr, LoadCallback done) override;
  void AsyncSave(SnapshotMetadata metadata, Payload snapshot,
                 DoneCallback done) override;
  void AsyncDelete(SnapshotMetadata metadata, DoneCallback done) override;
  void AsyncDeleteByCriteria(std::string persistence_id,
                             SnapshotSelectionCriteria criteria,
                             DoneCallback done) override;

 private:
  PostgresSnapshotStore(PgConnectionSettings connection,
                        PgReconnectBackoff backoff,
                        std::shared_ptr<const SerializationRegistry> registry);

  absl::StatusOr<LoadSnapshotResult> Load(PgConnection& connection,
                                          const std::string& persistence_id,
                                          const SnapshotSelectionCriteria& c);
  // Runs `statement` with `params` on a pooled connection.
  absl::Status Run(const char* statement, const PgParams& params);

  const std::shared_ptr<const SerializationRegistry> registry_;
  PgConnectionPool pool_;
  TaskRunner runner_;  // last: its destructor completes what was posted
};

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SNAPSHOT_STORE_H_
