#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SNAPSHOT_STORE_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SNAPSHOT_STORE_H_

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "base/task_runner.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/postgresql/internal/postgres_connection_pool.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence::postgres_internal {

// The snapshot store on PostgreSQL (table `snapshot`, docs/POSTGRESQL.md).
// One thread with one connection applies the operations in submission
// order (snapshot_store.h): what queued up while it was busy goes as one
// pipeline, one round trip for many operations, each save or delete its
// own transaction, and loads next to each other one statement (a storm of
// recoveries loads many snapshots at once).
// A fenced save or delete checks its lease with cairn_check_lease first,
// in its transaction (snapshot_store.h, "Fences").
// Every operation is a read or idempotent, so a pipeline whose connection
// was lost is sent again once on a new connection.
class PostgresSnapshotStore final : public SnapshotStore {
 public:
  // Connects once to make the schema's tables if missing (EnsurePgSchema).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<PostgresSnapshotStore>>
  Open(PgConnectionSettings connection, PgReconnectBackoff backoff,
       std::shared_ptr<const serialization::SerializationRegistry> registry);
  ~PostgresSnapshotStore() override;

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

 private:
  PostgresSnapshotStore(
      PgConnectionSettings connection, PgReconnectBackoff backoff,
      std::shared_ptr<const serialization::SerializationRegistry> registry);

  // One operation in the queue: a prepared statement and its parameters,
  // and what to call with the outcome.
  struct Operation {
    const char* statement = nullptr;
    PgParams params;
    // A fenced save or delete: the lease's check, sent before the
    // statement in its transaction, and what a refusal says it was.
    std::optional<PgParams> fence;
    std::string fenced_what;
    // Set when it was refused before anything was sent: its outcome.
    absl::Status refused;
    // A load:
    std::string persistence_id;
    SnapshotSelectionCriteria criteria;
    int64_t to_sequence_nr = 0;
    LoadCallback load_done;
    absl::StatusOr<LoadSnapshotResult> loaded;
    // The others:
    DoneCallback done;
    absl::Status outcome;
  };

  // Makes `op` check `fence` (if any) before its statement; refuses it if
  // PostgreSQL's text cannot hold the fence's strings. `what`: the
  // operation, for a refusal's message.
  static void SetFence(Operation& op, const std::optional<WriteFence>& fence,
                       std::string what);
  void Enqueue(Operation op);
  void Drain();  // on runner_
  // The parameters of the statement loading each of `loads`.
  static PgParams LoadManyParams(const std::vector<Operation*>& loads);
  // Sets the outcome (and `loaded`) of each of `loads` from the result of
  // their kLoadMany statement; if the server refused a value of it, runs
  // each load by itself on `connection`, so that only its own fails.
  void LoadsFromResult(PgConnection& connection,
                       const std::vector<Operation*>& loads,
                       const absl::StatusOr<PgResult>& result);
  // A load's result from rows [begin, end) of `page`, its newest
  // candidates, reading older pages on `connection` if every one was
  // unreadable.
  absl::StatusOr<LoadSnapshotResult> FromCandidates(PgConnection& connection,
                                                    const Operation& op,
                                                    const PgResult& page,
                                                    int begin, int end);
  absl::StatusOr<LoadSnapshotResult> Load(PgConnection& connection,
                                          const std::string& persistence_id,
                                          const SnapshotSelectionCriteria& c);

  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  PgConnectionPool pool_;
  base::Mutex mu_;
  std::deque<Operation> queue_ ABSL_GUARDED_BY(mu_);
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  base::TaskRunner runner_;  // last: its destructor completes what was posted
};

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SNAPSHOT_STORE_H_
