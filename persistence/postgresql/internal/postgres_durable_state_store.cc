#include "persistence/postgresql/internal/postgres_durable_state_store.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "base/mutex.h"
#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/postgres_durable_state_rows.h"
#include "persistence/postgresql/internal/postgres_schema.h"
#include "persistence/storage/plugin_support/durable_state_check.h"

namespace cairn::persistence::postgres_internal {
namespace {

bool IsWrite(const char* statement) {
  return statement == kStateUpsert || statement == kStateDelete;
}

// `error` (of a read) with what was being read, keeping its code.
absl::Status ReadError(const absl::Status& error, std::string_view what) {
  return absl::Status(error.code(),
                      base::StrCat("reading ", what, ": ", error.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresDurableStateStore>>
PostgresDurableStateStore::Open(
    PgConnectionSettings connection, PgReconnectBackoff backoff,
    std::shared_ptr<const serialization::SerializationRegistry> registry) {
  absl::StatusOr<std::unique_ptr<PgConnection>> first =
      PgConnection::Connect(connection);
  if (!first.ok()) return first.status();
  if (absl::Status s = EnsurePgSchema(**first, connection.schema); !s.ok()) {
    return s;
  }
  return std::unique_ptr<PostgresDurableStateStore>(
      new PostgresDurableStateStore(std::move(connection), backoff,
                                    std::move(registry)));
}

PostgresDurableStateStore::PostgresDurableStateStore(
    PgConnectionSettings connection, PgReconnectBackoff backoff,
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : registry_(std::move(registry)),
      pool_(
          std::move(connection),
          [](PgConnection& c) {
            return PrepareAll(c, DurableStateStatements());
          },
          backoff),
      runner_(1, "cairn-pg-state") {}

PostgresDurableStateStore::~PostgresDurableStateStore() = default;

void PostgresDurableStateStore::AsyncGetObject(std::string persistence_id,
                                               GetCallback done) {
  Operation op;
  op.statement = kStateGet;
  op.refused = CheckPgText("the persistence id", persistence_id);
  op.params.Text(persistence_id);
  op.persistence_id = std::move(persistence_id);
  op.get_done = std::move(done);
  Enqueue(std::move(op));
}

void PostgresDurableStateStore::AsyncUpsertObject(
    std::string persistence_id, int64_t revision, serialization::Payload value,
    std::string tag, std::optional<WriteFence> fence, DoneCallback done) {
  // On the calling thread, as every plugin serializes (the store's thread
  // stays free for the database).
  absl::StatusOr<serialization::SerializedPayload> serialized =
      registry_->Serialize(value);
  Operation op;
  op.statement = kStateUpsert;
  op.revision = revision;
  op.done = std::move(done);
  // Every store's checks (the revision, then the value), then what
  // PostgreSQL's text cannot hold (the id first, so that the messages after
  // it may name it).
  op.refused =
      plugin_support::CheckStateUpsert(persistence_id, revision, serialized);
  if (op.refused.ok()) {
    op.refused = CheckPgText("the persistence id", persistence_id);
    absl::Status text = CheckPgText("the tag", tag);
    if (text.ok()) {
      text = CheckPgText("the serializer's manifest", serialized->manifest);
    }
    if (op.refused.ok() && !text.ok()) {
      op.refused = absl::InvalidArgumentError(
          base::StrCat("durable state of persistence id '", persistence_id,
                       "': ", text.message()));
    }
  }
  if (op.refused.ok()) {
    op.params.Text(persistence_id)
        .Int64(revision)
        .Text(tag)
        .Int32(serialized->serializer_id)
        .Text(serialized->manifest)
        .Bytes(serialized->bytes);
    op.fenced_what =
        base::StrCat("durable state of persistence id '", persistence_id,
                     "', revision ", revision, ": not stored");
    SetFence(op, fence);
  }
  op.persistence_id = std::move(persistence_id);
  Enqueue(std::move(op));
}

void PostgresDurableStateStore::AsyncDeleteObject(
    std::string persistence_id, int64_t revision,
    std::optional<WriteFence> fence, DoneCallback done) {
  Operation op;
  op.statement = kStateDelete;
  op.revision = revision;
  op.done = std::move(done);
  op.refused = CheckPgText("the persistence id", persistence_id);
  if (op.refused.ok()) {
    op.params.Text(persistence_id).Int64(revision);
    op.fenced_what =
        base::StrCat("durable state of persistence id '", persistence_id,
                     "', revision ", revision, ": not deleted");
    SetFence(op, fence);
  }
  op.persistence_id = std::move(persistence_id);
  Enqueue(std::move(op));
}

void PostgresDurableStateStore::AsyncCurrentChanges(std::string tag,
                                                    int64_t after_offset,
                                                    int64_t max,
                                                    ChangesCallback done) {
  Operation op;
  op.statement = kStateChanges;
  op.refused = CheckPgText("the tag", tag);
  // LIMIT refuses a negative count; none asked is none given.
  op.params.Text(tag).Int64(after_offset).Int64(std::max<int64_t>(max, 0));
  op.tag = std::move(tag);
  op.changes_done = std::move(done);
  Enqueue(std::move(op));
}

void PostgresDurableStateStore::SetFence(
    Operation& op, const std::optional<WriteFence>& fence) {
  if (!fence.has_value()) return;
  op.refused = CheckPgText("the fence's lease", fence->lease);
  if (op.refused.ok()) {
    op.refused = CheckPgText("the fence's owner", fence->owner);
  }
  op.fence = StateFenceParams(*fence);
}

void PostgresDurableStateStore::Enqueue(Operation op) {
  bool post = false;
  {
    base::MutexLock lock(&mu_);
    queue_.push_back(std::move(op));
    post = !draining_;
    draining_ = true;
  }
  if (post) runner_.Post([this] { Drain(); });
}

void PostgresDurableStateStore::Drain() {
  std::vector<Operation> ops;
  bool more = false;
  {
    base::MutexLock lock(&mu_);
    const size_t n = std::min(queue_.size(), kMaxPipeline);
    ops.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      ops.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    more = !queue_.empty();
    draining_ = more;
  }
  // The rest after this pipeline: one thread, so in submission order.
  if (more) runner_.Post([this] { Drain(); });
  bool any = false;
  bool writes = false;
  for (const Operation& op : ops) {
    if (!op.refused.ok()) continue;
    any = true;
    writes = writes || IsWrite(op.statement);
  }
  absl::Status status;
  if (any) {
    status = pool_.Run(
        [&](PgConnection& connection) { return RunPipeline(connection, ops); },
        [writes] { return !writes; });
  }
  // Callbacks on this thread, under no lock, in submission order.
  for (Operation& op : ops) Complete(op, status);
}

absl::Status PostgresDurableStateStore::RunPipeline(
    PgConnection& connection, std::vector<Operation>& ops) {
  // What was sent, with the index of its statement's result (a fenced
  // write's check is the one before).
  struct Sent {
    Operation* op;
    size_t result;
    bool checked;
  };
  std::vector<Sent> sent;
  size_t queued = 0;
  for (Operation& op : ops) {
    if (!op.refused.ok()) continue;
    absl::Status s;
    bool checked = false;
    if (op.fence.has_value()) {
      // Before the write, in its implicit transaction: the check's row
      // lock keeps the lease from being taken over until the write
      // commits (or nothing is written).
      s = connection.QueuePrepared(kStateCheckLease, *op.fence);
      if (s.ok()) {
        ++queued;
        checked = true;
      }
    }
    if (s.ok()) s = connection.QueuePrepared(op.statement, op.params);
    // A sync point after each call, also after a check without its
    // statement: each call is its own transaction, and a refused one
    // skips nothing of the next.
    connection.QueueSync();
    if (!s.ok()) {
      op.outcome = s;
      continue;
    }
    sent.push_back({&op, queued++, checked});
  }
  absl::StatusOr<std::vector<absl::StatusOr<PgResult>>> results =
      connection.Flush();
  if (!results.ok()) return results.status();
  for (const Sent& each : sent) {
    TakeResult(*each.op, (*results)[each.result],
               each.checked ? &(*results)[each.result - 1] : nullptr);
  }
  return absl::OkStatus();
}

void PostgresDurableStateStore::TakeResult(
    Operation& op, const absl::StatusOr<PgResult>& result,
    const absl::StatusOr<PgResult>* check) {
  if (check != nullptr && !check->ok()) {
    // The check refused (the write was skipped) or failed.
    op.outcome = LeaseRefusal(check->status(), op.fenced_what);
    return;
  }
  if (op.statement == kStateGet) {
    if (!result.ok()) {
      op.outcome = ReadError(
          result.status(), base::StrCat("the durable state of persistence id '",
                                        op.persistence_id, "'"));
      return;
    }
    absl::StatusOr<DurableStateObject> object =
        ObjectFromRows(*result, op.persistence_id, *registry_);
    op.outcome = object.status();
    if (object.ok()) op.object = *std::move(object);
    return;
  }
  if (op.statement == kStateChanges) {
    if (!result.ok()) {
      op.outcome = ReadError(
          result.status(),
          base::StrCat("the durable state changes of tag '", op.tag, "'"));
      return;
    }
    absl::StatusOr<std::vector<DurableStateChange>> changes =
        ChangesFromRows(*result, *registry_);
    op.outcome = changes.status();
    if (changes.ok()) op.changes = *std::move(changes);
    return;
  }
  op.outcome = result.ok() ? absl::OkStatus()
                           : StateWriteError(result.status(), op.persistence_id,
                                             op.revision);
}

void PostgresDurableStateStore::Complete(Operation& op,
                                         const absl::Status& pipeline) {
  // Own copies: a status shared with this thread must not reach another
  // (base/status_copy.h).
  absl::Status outcome = base::OwnCopy(
      !op.refused.ok() ? op.refused : (pipeline.ok() ? op.outcome : pipeline));
  if (op.statement == kStateGet) {
    if (!outcome.ok()) {
      std::move(op.get_done)(std::move(outcome));
    } else {
      std::move(op.get_done)(std::move(op.object));
    }
  } else if (op.statement == kStateChanges) {
    if (!outcome.ok()) {
      std::move(op.changes_done)(std::move(outcome));
    } else {
      std::move(op.changes_done)(std::move(op.changes));
    }
  } else {
    std::move(op.done)(std::move(outcome));
  }
}

}  // namespace cairn::persistence::postgres_internal
