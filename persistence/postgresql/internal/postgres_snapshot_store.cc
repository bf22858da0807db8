#include "persistence/postgresql/internal/postgres_snapshot_store.h"

#include <deque>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/mutex.h"
#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/postgres_schema.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::postgres_internal {

using plugin_support::RecordError;

namespace {

constexpr char kCheckLease[] = "check_lease";
constexpr char kLoad[] = "load";
constexpr char kLoadMany[] = "load_many";
constexpr char kSave[] = "save";
constexpr char kDeleteOne[] = "delete_one";
constexpr char kDeleteMatching[] = "delete_matching";

// A load reads this many candidates at a time, newest first: usually the
// first one is readable and nothing more is read.
constexpr int kLoadPageRows = 4;

constexpr PgStatement kStatements[] = {
    {kCheckLease, kCheckLeaseSql},
    {kLoad,
     "SELECT sequence_number, write_timestamp, serializer_id, "
     "serializer_manifest, payload FROM snapshot WHERE persistence_id = $1 "
     "AND sequence_number <= $2 AND write_timestamp <= $3 AND "
     "sequence_number >= $4 AND write_timestamp >= $5 "
     "ORDER BY sequence_number DESC LIMIT $6"},
    // The newest candidates of many loads in one statement, tagged with
    // the load's place in the arrays (1-based) and in that order.
    {kLoadMany,
     "SELECT r.i, s.sequence_number, s.write_timestamp, s.serializer_id, "
     "s.serializer_manifest, s.payload FROM unnest($1::text[], $2::bigint[], "
     "$3::bigint[], $4::bigint[], $5::bigint[]) WITH ORDINALITY AS r(pid, "
     "max_seq, max_ts, min_seq, min_ts, i) CROSS JOIN LATERAL (SELECT "
     "sequence_number, write_timestamp, serializer_id, serializer_manifest, "
     "payload FROM snapshot WHERE persistence_id = r.pid AND sequence_number "
     "<= r.max_seq AND write_timestamp <= r.max_ts AND sequence_number >= "
     "r.min_seq AND write_timestamp >= r.min_ts ORDER BY sequence_number "
     "DESC LIMIT $6) s ORDER BY r.i, s.sequence_number DESC"},
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

void PostgresSnapshotStore::SetFence(Operation& op,
                                     const std::optional<WriteFence>& fence,
                                     std::string what) {
  if (!fence.has_value()) return;
  op.refused = CheckPgText("the fence's lease", fence->lease);
  if (op.refused.ok()) {
    op.refused = CheckPgText("the fence's owner", fence->owner);
  }
  op.fence.emplace();
  op.fence->Text(fence->lease).Text(fence->owner).Int64(fence->token);
  op.fenced_what = std::move(what);
}

absl::StatusOr<std::unique_ptr<PostgresSnapshotStore>>
PostgresSnapshotStore::Open(
    PgConnectionSettings connection, PgReconnectBackoff backoff,
    std::shared_ptr<const serialization::SerializationRegistry> registry) {
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
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : registry_(std::move(registry)),
      pool_(
          std::move(connection),
          [](PgConnection& c) { return PrepareAll(c, kStatements); }, backoff),
      runner_(1, "cairn-pg-snap") {}

PostgresSnapshotStore::~PostgresSnapshotStore() = default;

void PostgresSnapshotStore::AsyncLoad(std::string persistence_id,
                                      SnapshotSelectionCriteria criteria,
                                      int64_t to_sequence_nr,
                                      LoadCallback done) {
  Operation op;
  op.statement = kLoad;
  op.criteria = criteria.Limit(to_sequence_nr);
  // Checked here, so that it fails this load alone, not the statement it
  // shares with others.
  op.refused = CheckPgText("the persistence id", persistence_id);
  op.persistence_id = std::move(persistence_id);
  op.to_sequence_nr = to_sequence_nr;
  op.load_done = std::move(done);
  Enqueue(std::move(op));
}

void PostgresSnapshotStore::Enqueue(Operation op) {
  bool post = false;
  {
    base::MutexLock lock(&mu_);
    queue_.push_back(std::move(op));
    post = !draining_;
    draining_ = true;
  }
  if (post) runner_.Post([this] { Drain(); });
}

void PostgresSnapshotStore::Drain() {
  std::deque<Operation> ops;
  {
    base::MutexLock lock(&mu_);
    ops.swap(queue_);
    draining_ = false;
  }
  // Everything queued in one pipeline (one round trip), in submission
  // order: each save or delete its own transaction (a sync point after
  // each), and each run of loads next to each other one statement (a storm
  // of recoveries loads many snapshots at once: one statement, not one per
  // load, is what the server's work per statement allows). Every statement
  // is a read or idempotent (an upsert, deletes), so the whole is sent
  // again on a new connection if its connection was lost.
  absl::Status status = pool_.Run(
      [&](PgConnection& connection) -> absl::Status {
        // What was sent, with the index of its statement's result (a
        // fenced operation's check is the one before).
        struct Sent {
          std::vector<Operation*> loads;  // a run of loads, or
          Operation* op = nullptr;        // a save or delete
          size_t result = 0;
        };
        std::vector<Sent> sent;
        size_t queued = 0;
        for (size_t k = 0; k < ops.size();) {
          if (ops[k].statement == kLoad) {
            std::vector<Operation*> loads;
            for (; k < ops.size() && ops[k].statement == kLoad; ++k) {
              if (ops[k].refused.ok()) loads.push_back(&ops[k]);
            }
            if (loads.empty()) continue;
            absl::Status s =
                connection.QueuePrepared(kLoadMany, LoadManyParams(loads));
            connection.QueueSync();
            if (!s.ok()) {
              for (Operation* op : loads) op->outcome = s;
              continue;
            }
            sent.push_back({std::move(loads), nullptr, queued++});
            continue;
          }
          Operation& op = ops[k++];
          if (!op.refused.ok()) continue;
          absl::Status s;
          if (op.fence.has_value()) {
            s = connection.QueuePrepared(kCheckLease, *op.fence);
            if (s.ok()) ++queued;
          }
          if (s.ok()) s = connection.QueuePrepared(op.statement, op.params);
          // A sync point also after a check without its statement, so that
          // it is not in the next operation's transaction.
          connection.QueueSync();
          if (!s.ok()) {
            op.outcome = s;
            continue;
          }
          sent.push_back({{}, &op, queued++});
        }
        absl::StatusOr<std::vector<absl::StatusOr<PgResult>>> results =
            connection.Flush();
        if (!results.ok()) return results.status();
        for (const Sent& each : sent) {
          absl::StatusOr<PgResult>& result = (*results)[each.result];
          if (!each.loads.empty()) {
            LoadsFromResult(connection, each.loads, result);
            continue;
          }
          Operation& op = *each.op;
          if (op.fence.has_value() && !(*results)[each.result - 1].ok()) {
            // The check refused (its statement was skipped) or failed.
            op.outcome = LeaseRefusal((*results)[each.result - 1].status(),
                                      op.fenced_what);
            continue;
          }
          op.outcome = result.status();
        }
        return absl::OkStatus();
      },
      [] { return true; });
  for (Operation& op : ops) {
    absl::Status outcome =
        !op.refused.ok() ? op.refused : (status.ok() ? op.outcome : status);
    if (op.statement == kLoad) {
      if (!outcome.ok()) {
        std::move(op.load_done)(base::OwnCopy(outcome));
        continue;
      }
      op.loaded->to_sequence_nr = op.to_sequence_nr;
      std::move(op.load_done)(std::move(op.loaded));
    } else {
      std::move(op.done)(base::OwnCopy(outcome));
    }
  }
}

PgParams PostgresSnapshotStore::LoadManyParams(
    const std::vector<Operation*>& loads) {
  std::vector<std::string_view> ids;
  std::vector<int64_t> max_seq, max_ts, min_seq, min_ts;
  for (const Operation* op : loads) {
    ids.push_back(op->persistence_id);
    max_seq.push_back(op->criteria.max_sequence_nr);
    max_ts.push_back(op->criteria.max_timestamp);
    min_seq.push_back(op->criteria.min_sequence_nr);
    min_ts.push_back(op->criteria.min_timestamp);
  }
  PgParams params;
  params.TextArrayOf(ids)
      .Int64Array(max_seq)
      .Int64Array(max_ts)
      .Int64Array(min_seq)
      .Int64Array(min_ts)
      .Int64(kLoadPageRows);
  return params;
}

void PostgresSnapshotStore::LoadsFromResult(
    PgConnection& connection, const std::vector<Operation*>& loads,
    const absl::StatusOr<PgResult>& result) {
  if (loads.size() > 1 && !result.ok() && IsPgDataException(result.status())) {
    // The server refused a value of one of them (a data exception, e.g. an
    // id not valid in its encoding): each by itself, so that only that
    // load fails.
    for (Operation* op : loads) {
      LoadsFromResult(
          connection, {op},
          connection.ExecutePrepared(kLoadMany, LoadManyParams({op})));
    }
    return;
  }
  if (!result.ok()) {
    for (Operation* op : loads) {
      op->outcome = absl::Status(
          result.status().code(),
          base::StrCat("loading a snapshot of '", op->persistence_id,
                       "': ", result.status().message()));
    }
    return;
  }
  int row = 0;
  for (size_t k = 0; k < loads.size(); ++k) {
    // This load's candidates: the rows tagged k + 1, next in the result.
    const int begin = row;
    while (row < result->rows() &&
           result->Int64(row, 0) == static_cast<int64_t>(k) + 1) {
      ++row;
    }
    Operation& op = *loads[k];
    op.loaded = FromCandidates(connection, op, *result, begin, row);
    op.outcome = op.loaded.status();
  }
}

absl::StatusOr<LoadSnapshotResult> PostgresSnapshotStore::FromCandidates(
    PgConnection& connection, const Operation& op, const PgResult& page,
    int begin, int end) {
  // Column 0 is the load's place in the statement's arrays.
  LoadSnapshotResult result;
  for (int row = begin; row < end; ++row) {
    SnapshotMetadata metadata{op.persistence_id, page.Int64(row, 1),
                              page.Int64(row, 2)};
    absl::StatusOr<serialization::Payload> payload = registry_->Deserialize(
        page.Int32(row, 3), page.Bytes(row, 4), page.Bytes(row, 5));
    if (!payload.ok()) {
      // Passed over for the next older one, and reported (snapshot_store.h).
      result.unreadable.push_back(RecordError(
          op.persistence_id, metadata.sequence_nr, payload.status()));
      continue;
    }
    result.snapshot =
        SelectedSnapshot{std::move(metadata), *std::move(payload)};
    return result;
  }
  if (end - begin < kLoadPageRows) return result;
  // Every candidate of the page was unreadable: the older ones, page by
  // page (rare: no pipeline for them).
  SnapshotSelectionCriteria older = op.criteria;
  older.max_sequence_nr = page.Int64(end - 1, 1) - 1;
  absl::StatusOr<LoadSnapshotResult> rest =
      Load(connection, op.persistence_id, older);
  if (!rest.ok()) return rest.status();
  for (absl::Status& error : rest->unreadable) {
    result.unreadable.push_back(std::move(error));
  }
  result.snapshot = std::move(rest->snapshot);
  return result;
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
      absl::StatusOr<serialization::Payload> payload = registry_->Deserialize(
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

void PostgresSnapshotStore::AsyncSave(SnapshotMetadata metadata,
                                      serialization::Payload snapshot,
                                      std::optional<WriteFence> fence,
                                      DoneCallback done) {
  absl::StatusOr<serialization::SerializedPayload> serialized =
      registry_->Serialize(snapshot);
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
    Operation op;
    op.statement = kSave;
    op.refused = RecordError(metadata.persistence_id, metadata.sequence_nr,
                             absl::InvalidArgumentError(refused.message()));
    op.done = std::move(done);
    Enqueue(std::move(op));
    return;
  }
  Operation op;
  op.statement = kSave;
  op.params.Text(metadata.persistence_id)
      .Int64(metadata.sequence_nr)
      .Int64(metadata.timestamp)
      .Int32(serialized->serializer_id)
      .Text(serialized->manifest)
      .Bytes(serialized->bytes);
  SetFence(
      op, fence,
      base::StrCat("snapshot of persistence id '", metadata.persistence_id,
                   "', sequence nr ", metadata.sequence_nr, ": not saved"));
  op.done = std::move(done);
  Enqueue(std::move(op));
}

void PostgresSnapshotStore::AsyncDelete(SnapshotMetadata metadata,
                                        std::optional<WriteFence> fence,
                                        DoneCallback done) {
  Operation op;
  op.statement = kDeleteOne;
  op.params.Text(metadata.persistence_id).Int64(metadata.sequence_nr);
  SetFence(
      op, fence,
      base::StrCat("snapshot of persistence id '", metadata.persistence_id,
                   "', sequence nr ", metadata.sequence_nr, ": not deleted"));
  op.done = std::move(done);
  Enqueue(std::move(op));
}

void PostgresSnapshotStore::AsyncDeleteByCriteria(
    std::string persistence_id, SnapshotSelectionCriteria criteria,
    std::optional<WriteFence> fence, DoneCallback done) {
  Operation op;
  op.statement = kDeleteMatching;
  op.params = CriteriaParams(persistence_id, criteria);
  SetFence(op, fence,
           base::StrCat("snapshots of persistence id '", persistence_id,
                        "': not deleted"));
  op.done = std::move(done);
  Enqueue(std::move(op));
}

}  // namespace cairn::persistence::postgres_internal
