#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_DURABLE_STATE_STORE_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_DURABLE_STATE_STORE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "base/task_runner.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/postgresql/internal/postgres_connection_pool.h"
#include "persistence/storage/durable_state_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence::postgres_internal {

// The durable state store on PostgreSQL (table `durable_state`,
// docs/POSTGRESQL.md "Tables"; the contract is durable_state_store.h).
//
// One thread with one connection applies the calls in submission order, so
// the calls on one id are applied and completed in that order: what queued
// up while it was busy goes as one pipeline (one round trip), each call its
// own implicit transaction (a sync point after each), so a refused write
// fails alone. A write is one call of cairn_write_state, which checks the
// revision on the row and draws the change's offset under the schema's
// durable state ordering lock, so offsets rise in commit order across
// processes. A delete keeps the row's tag with a NULL payload, so that
// AsyncCurrentChanges reports it (`deleted`) as the id's last change. A
// fenced write checks its lease with cairn_check_lease first,
// in its transaction, exactly as the journal and the snapshot store do.
//
// Values are serialized on the calling thread, deserialized on the store's.
// A pipeline of reads only is sent again once on a new connection if its
// connection was lost; one with a write is not (the write may have
// committed: a second try would be refused as a stale revision), and its
// calls fail with the connection's error (Unavailable, DeadlineExceeded).
class PostgresDurableStateStore final : public DurableStateStore {
 public:
  // Connects once to make the schema's tables if missing (EnsurePgSchema).
  [[nodiscard]] static absl::StatusOr<
      std::unique_ptr<PostgresDurableStateStore>>
  Open(PgConnectionSettings connection, PgReconnectBackoff backoff,
       std::shared_ptr<const serialization::SerializationRegistry> registry);
  ~PostgresDurableStateStore() override;

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
  PostgresDurableStateStore(
      PgConnectionSettings connection, PgReconnectBackoff backoff,
      std::shared_ptr<const serialization::SerializationRegistry> registry);

  // One call in the queue: its prepared statement and parameters, and what
  // to call with the outcome.
  struct Operation {
    const char* statement = nullptr;
    PgParams params;
    std::string persistence_id;  // of a get or a write
    std::string tag;             // of kStateChanges
    int64_t revision = 0;        // of a write
    // A fenced write: the lease's check, sent before the statement in its
    // transaction, and what a refusal says was not done.
    std::optional<PgParams> fence;
    std::string fenced_what;
    // Set when it was refused before anything was sent: its outcome.
    absl::Status refused;
    // The outcome, set from the pipeline's results.
    absl::Status outcome;
    DurableStateObject object;
    std::vector<DurableStateChange> changes;
    // One of these, by statement.
    GetCallback get_done;
    DoneCallback done;
    ChangesCallback changes_done;
  };

  // At most this many calls go in one pipeline, so that a long queue does
  // not make one round trip outlast its deadline (twice call-timeout).
  static constexpr size_t kMaxPipeline = 256;

  // Makes `op` (a write) check `fence`, if any, before its statement;
  // refuses it if PostgreSQL's text cannot hold the fence's strings.
  static void SetFence(Operation& op, const std::optional<WriteFence>& fence);
  void Enqueue(Operation op);
  void Drain();  // on runner_
  // Queues `ops` on `connection`, flushes, and sets each one's outcome.
  absl::Status RunPipeline(PgConnection& connection,
                           std::vector<Operation>& ops);
  // Sets `op`'s outcome from its statement's result (and for a fenced
  // write, its check's).
  void TakeResult(Operation& op, const absl::StatusOr<PgResult>& result,
                  const absl::StatusOr<PgResult>* check);
  static void Complete(Operation& op, const absl::Status& pipeline);

  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  PgConnectionPool pool_;
  base::Mutex mu_;
  std::deque<Operation> queue_ ABSL_GUARDED_BY(mu_);
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  base::TaskRunner runner_;  // last: its destructor completes what was posted
};

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_DURABLE_STATE_STORE_H_
