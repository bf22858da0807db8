#include "persistence/postgresql/internal/postgres_journal.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/mutex.h"
#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/postgres_commit_listener.h"
#include "persistence/postgresql/internal/postgres_read_journal.h"
#include "persistence/postgresql/internal/postgres_schema.h"
#include "persistence/postgresql/internal/replay_page_order.h"
#include "persistence/storage/plugin_support/atomic_write_check.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::postgres_internal {

using plugin_support::CheckAtomicWrite;
using plugin_support::CheckFollows;
using plugin_support::InFlightWrites;
using plugin_support::RecordError;

namespace {

// The statements every connection of the journal prepares.
constexpr char kCheckLease[] = "check_lease";
constexpr char kAdvance[] = "advance";
constexpr char kAdvanceAll[] = "advance_all";
constexpr char kInsertEvents[] = "insert_events";
constexpr char kOrderLock[] = "order_lock";
constexpr char kInsertEvent[] = "insert_event";
constexpr char kInsertTaggedEvent[] = "insert_tagged_event";
constexpr char kReplayMany[] = "replay_many";
constexpr char kHighestMany[] = "highest_many";
constexpr char kDelete[] = "delete";
constexpr char kNotify[] = "notify";

constexpr PgStatement kStatements[] = {
    {kCheckLease, kCheckLeaseSql},
    {kAdvance, "SELECT cairn_advance_stream($1, $2, $3)"},
    {kAdvanceAll,
     "SELECT cairn_advance_streams($1::text[], $2::bigint[], $3::bigint[])"},
    // Untagged events, many in one statement, in the order given (their
    // `ordering` numbers follow it).
    {kInsertEvents,
     "INSERT INTO event_journal (persistence_id, sequence_number, writer, "
     "write_timestamp, adapter_manifest, serializer_id, serializer_manifest, "
     "payload, tags) SELECT pid, seq, w, ts, am, sid, sm, p, '{}' FROM "
     "unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[], "
     "$6::integer[], $7::text[], $8::bytea[]) AS t(pid, seq, w, ts, am, sid, "
     "sm, p)"},
    // One lock per schema (advisory locks are per database).
    {kOrderLock,
     "SELECT pg_advisory_xact_lock(hashtext('cairn-ordering:' || "
     "current_schema()))"},
    {kInsertEvent,
     "INSERT INTO event_journal (persistence_id, sequence_number, writer, "
     "write_timestamp, adapter_manifest, serializer_id, serializer_manifest, "
     "payload, tags) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '{}')"},
    {kInsertTaggedEvent,
     "WITH e AS (INSERT INTO event_journal (persistence_id, sequence_number, "
     "writer, write_timestamp, adapter_manifest, serializer_id, "
     "serializer_manifest, payload, tags) VALUES ($1, $2, $3, $4, $5, $6, "
     "$7, $8, $9::text[]) RETURNING ordering, tags) "
     "INSERT INTO event_tag (tag, ordering) "
     "SELECT unnest(e.tags), e.ordering FROM e"},
    // The next page of many replays in one statement: each stream's rows
    // (at most its own limit), tagged with the replay's place in the
    // arrays (1-based). No ORDER BY: ReplayPageOrder puts the rows in
    // order (they come so already, unsorted by the server).
    {kReplayMany,
     "SELECT r.i, e.sequence_number, e.writer, e.write_timestamp, "
     "e.adapter_manifest, e.serializer_id, e.serializer_manifest, e.payload, "
     "e.tags FROM unnest($1::text[], $2::bigint[], $3::bigint[], "
     "$4::bigint[]) WITH ORDINALITY AS r(pid, from_nr, to_nr, lim, i) "
     "CROSS JOIN LATERAL (SELECT sequence_number, writer, write_timestamp, "
     "adapter_manifest, serializer_id, serializer_manifest, payload, tags "
     "FROM event_journal WHERE persistence_id = r.pid AND sequence_number "
     ">= r.from_nr AND sequence_number <= r.to_nr ORDER BY sequence_number "
     "LIMIT r.lim) e"},
    // The highest sequence numbers of many streams; a stream never written
    // has no row.
    {kHighestMany,
     "SELECT persistence_id, highest_sequence_number FROM journal_stream "
     "WHERE persistence_id = ANY($1::text[])"},
    {kDelete,
     "WITH d AS (DELETE FROM event_journal WHERE persistence_id = $1 AND "
     "sequence_number <= $2 RETURNING ordering) "
     "DELETE FROM event_tag t USING d WHERE t.ordering = d.ordering"},
    // In a write transaction: the live queries of every process listening
    // on the channel ($1) hear of it when it commits. PostgreSQL folds
    // equal notifications of one transaction; one is sent per transaction
    // anyway, whatever its events.
    {kNotify, "SELECT pg_notify($1, '')"},
};

// What the server's refusal of one write means for its caller, if the
// refusal is about that write alone: it does not follow its stream, its
// events are stored already, or a value of it is malformed. Other errors
// (a timeout, a lost connection) would fail any write: OK then.
absl::Status Refusal(const absl::Status& error, const std::string& id,
                     int64_t first, int64_t last) {
  const std::string state = PgSqlState(error);
  if (state == kNotFollowingSqlState) {
    int64_t highest = 0;
    for (char c : PgPrimaryMessage(error)) {
      if (c >= '0' && c <= '9') highest = highest * 10 + (c - '0');
    }
    return CheckFollows(id, highest, first, last);
  }
  if (state == kLeaseNotHeldSqlState) {
    return LeaseRefusal(
        error, base::StrCat("persistence id '", id, "': sequence numbers ",
                            first, " to ", last, " not stored"));
  }
  if (state == "23505") {  // unique_violation: the events' primary key
    return absl::FailedPreconditionError(base::StrCat(
        "persistence id '", id, "': sequence numbers ", first, " to ", last,
        " overlap stored events (another writer of the stream?): ",
        error.message()));
  }
  if (IsPgDataException(error)) {  // e.g. bad UTF-8
    return absl::InvalidArgumentError(
        base::StrCat("persistence id '", id, "': ", error.message()));
  }
  return absl::OkStatus();
}

// Whether the batched transaction's failure may be one write's refusal,
// which the one-by-one pass finds and fails alone: a refused lease or
// sequence, a key conflict, a value the server rejects; or a batch the
// journal itself would not send in one piece. Anything else (a timeout, a
// lost connection, a server error) fails every call.
bool IsRefusal(const absl::Status& error) {
  const std::string state = PgSqlState(error);
  if (state.empty()) return error.code() == absl::StatusCode::kAborted;
  return state == kNotFollowingSqlState || state == kLeaseNotHeldSqlState ||
         state == "CN003" || state == "23505" || IsPgDataException(error);
}

// InvalidArgument unless PostgreSQL's text can hold the strings of
// `fence`, which cairn_check_lease is given as text.
absl::Status CheckFence(const std::optional<WriteFence>& fence) {
  if (!fence.has_value()) return absl::OkStatus();
  absl::Status s = CheckPgText("the fence's lease", fence->lease);
  if (s.ok()) s = CheckPgText("the fence's owner", fence->owner);
  return s;
}

PgParams FenceParams(const WriteFence& fence) {
  PgParams params;
  params.Text(fence.lease).Text(fence.owner).Int64(fence.token);
  return params;
}

// InvalidArgument unless PostgreSQL's text can hold every string of
// `write` that is stored as text: this plugin's own rule, next to
// CheckAtomicWrite's, and like them it fails the whole call.
absl::Status CheckStorable(const AtomicWrite& write) {
  for (const PersistentRepr& event : write.events) {
    auto check = [&event](std::string_view what, std::string_view value) {
      absl::Status s = CheckPgText(what, value);
      return s.ok() ? s
                    : RecordError(event.persistence_id, event.sequence_nr, s);
    };
    absl::Status s = check("the persistence id", event.persistence_id);
    if (s.ok()) s = check("the writer uuid", event.writer_uuid);
    if (s.ok()) s = check("the adapter manifest", event.adapter_manifest);
    for (const std::string& tag : event.tags) {
      if (s.ok()) s = check("a tag", tag);
    }
    if (!s.ok()) return s;
  }
  return CheckFence(write.fence);
}

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresJournal>> PostgresJournal::Open(
    PgJournalSettings settings,
    std::shared_ptr<const serialization::SerializationRegistry> registry) {
  if (settings.reader_connections < 1) {
    return absl::InvalidArgumentError("reader-connections: must be at least 1");
  }
  absl::StatusOr<std::unique_ptr<PgConnection>> connection =
      PgConnection::Connect(settings.connection);
  if (!connection.ok()) return connection.status();
  if (absl::Status s = EnsurePgSchema(**connection, settings.connection.schema);
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<PostgresJournal>(
      new PostgresJournal(std::move(settings), std::move(registry)));
}

PostgresJournal::PostgresJournal(
    PgJournalSettings settings,
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : settings_(std::move(settings)),
      registry_(std::move(registry)),
      events_channel_(PgEventsChannel(settings_.connection.schema)),
      pool_(
          settings_.connection,
          [](PgConnection& c) { return PrepareAll(c, kStatements); },
          settings_.backoff),
      // A read's start only queues it for the readers (StartRead): it
      // runs where it is released, with no hand-off of its own.
      in_flight_([](InFlightWrites::Read read) { std::move(read)(); }),
      readers_(settings_.reader_connections, "cairn-pg-read"),
      writer_(1, "cairn-pg-write") {}

PostgresJournal::~PostgresJournal() = default;

void PostgresJournal::AsyncWriteMessages(std::vector<AtomicWrite> writes,
                                         WriteCallback done) {
  // Checked and serialized on the caller's thread; the sequence rule is the
  // server's to check (cairn_advance_stream), as only it sees every
  // process's writes.
  Call call;
  call.count = writes.size();
  call.write_done = std::move(done);
  call.writes.reserve(writes.size());
  call.per_write.reserve(writes.size());
  for (AtomicWrite& write : writes) {
    call.malformed = CheckAtomicWrite(write);
    if (call.malformed.ok()) call.malformed = CheckStorable(write);
    if (!call.malformed.ok()) break;
    Accepted& a = call.writes.emplace_back();
    a.persistence_id = write.events.front().persistence_id;
    a.first = write.events.front().sequence_nr;
    a.last = write.events.back().sequence_nr;
    a.fence = std::move(write.fence);
    absl::Status status;
    for (PersistentRepr& event : write.events) {
      absl::StatusOr<serialization::SerializedPayload> payload =
          registry_->Serialize(event.payload);
      if (payload.ok()) {
        absl::Status manifest =
            CheckPgText("the serializer's manifest", payload->manifest);
        if (!manifest.ok()) payload = manifest;
      }
      if (!payload.ok()) {
        status = RecordError(event.persistence_id, event.sequence_nr,
                             payload.status());
        a.events.clear();
        break;
      }
      a.events.push_back({event.sequence_nr, *std::move(payload),
                          std::move(event.adapter_manifest),
                          std::move(event.writer_uuid), event.timestamp,
                          std::move(event.tags)});
    }
    call.per_write.push_back(std::move(status));
  }
  if (!call.malformed.ok()) {
    call.writes.clear();
    call.per_write.clear();
  }
  for (const Accepted& a : call.writes) call.ids.push_back(a.persistence_id);
  Enqueue(std::move(call));
}

void PostgresJournal::AsyncDeleteMessagesTo(std::string persistence_id,
                                            int64_t to_sequence_nr,
                                            std::optional<WriteFence> fence,
                                            DoneCallback done) {
  Call call;
  call.is_delete = true;
  call.malformed = CheckFence(fence);
  call.to_sequence_nr = to_sequence_nr;
  call.delete_fence = std::move(fence);
  call.delete_done = std::move(done);
  call.ids.push_back(std::move(persistence_id));
  Enqueue(std::move(call));
}

void PostgresJournal::Enqueue(Call call) {
  // Begun here, on the caller's thread: a read submitted after this call
  // returned waits for it (journal.h, read after write).
  call.ticket = in_flight_.Begin(call.ids);
  bool post = false;
  {
    base::MutexLock lock(&mu_);
    queue_.push_back(std::move(call));
    post = !draining_;
    draining_ = true;
  }
  if (post) writer_.Post([this] { Drain(); });
}

void PostgresJournal::Drain() {
  std::deque<Call> calls;
  {
    base::MutexLock lock(&mu_);
    calls.swap(queue_);
    draining_ = false;
  }
  // Consecutive writes share a transaction; a delete runs on its own, in
  // its place, so writes and deletes apply in submission order.
  std::vector<Call*> writes;
  bool committed = false;
  for (Call& call : calls) {
    if (call.is_delete) {
      committed = CommitWrites(writes) || committed;
      writes.clear();
      committed = Delete(call) || committed;
    } else {
      writes.push_back(&call);
    }
  }
  committed = CommitWrites(writes) || committed;
  // Before the callbacks: a live query waiting wakes as soon as possible.
  if (committed) commits_->Notify();
  for (Call& call : calls) Complete(call);
}

bool PostgresJournal::CommitWrites(std::vector<Call*>& calls) {
  std::vector<Call*> live;
  for (Call* call : calls) {
    if (!call->malformed.ok()) {
      call->failed = call->malformed;
    } else if (!call->writes.empty()) {
      live.push_back(call);
    }
  }
  if (live.empty()) return false;
  absl::StatusOr<std::unique_ptr<PgConnection>> connection = pool_.Acquire();
  if (!connection.ok()) {
    for (Call* call : live) call->failed = base::OwnCopy(connection.status());
    return false;
  }
  // Usually every write is stored: then one statement advances every
  // stream and one inserts the events. If anything is refused, that
  // transaction is rolled back, and the writes are sent again one
  // statement each, which tells whose write it was.
  absl::Status batched = TryCommitBatched(**connection, live);
  if (batched.ok()) {
    pool_.Release(*std::move(connection));
    return true;
  }
  if ((*connection)->broken() || !IsRefusal(batched)) {
    for (Call* call : live) call->failed = base::OwnCopy(batched);
    pool_.Release(*std::move(connection));
    return false;
  }
  bool done = false;
  while (!live.empty()) {
    int refused = -1;
    absl::Status refusal;
    absl::Status committed = TryCommit(**connection, live, refused, refusal);
    if (committed.ok()) {
      done = true;
      break;
    }
    if (refused < 0) {
      for (Call* call : live) call->failed = base::OwnCopy(committed);
      break;
    }
    live[refused]->failed = std::move(refusal);
    live.erase(live.begin() + refused);
  }
  pool_.Release(*std::move(connection));
  return done;
}

absl::Status PostgresJournal::TryCommitBatched(
    PgConnection& connection, const std::vector<Call*>& calls) {
  // The streams' moves, each stream once: the writes of one stream in a
  // batch are consecutive (else one of them is refused: the one-by-one path
  // finds it), so they merge into one move.
  std::vector<std::string_view> ids;
  std::vector<int64_t> expected;
  std::vector<int64_t> lasts;
  absl::flat_hash_map<std::string_view, size_t> index;
  std::vector<const WriteFence*> fences;
  size_t events = 0;
  for (const Call* call : calls) {
    for (const Accepted& a : call->writes) {
      events += a.events.size();
      if (a.fence.has_value()) fences.push_back(&*a.fence);
      auto [it, inserted] = index.try_emplace(a.persistence_id, ids.size());
      if (inserted) {
        ids.push_back(a.persistence_id);
        expected.push_back(a.first - 1);
        lasts.push_back(a.last);
      } else if (lasts[it->second] + 1 == a.first) {
        lasts[it->second] = a.last;
      } else {
        return absl::AbortedError("a write does not follow the one before");
      }
    }
  }
  absl::Status queued;
  auto keep = [&queued](absl::Status s) {
    if (queued.ok()) queued = std::move(s);
  };
  keep(connection.QueueStatement("BEGIN"));
  keep(connection.QueuePrepared(kOrderLock, PgParams()));
  for (const WriteFence* fence : fences) {
    keep(connection.QueuePrepared(kCheckLease, FenceParams(*fence)));
  }
  keep(connection.QueuePrepared(
      kAdvanceAll,
      PgParams().TextArrayOf(ids).Int64Array(expected).Int64Array(lasts)));
  // Untagged events go in runs, one statement per run; a tagged one on its
  // own (with its tag rows), in its place.
  struct Columns {
    std::vector<std::string_view> ids, writers, adapter_manifests, manifests,
        payloads;
    std::vector<int64_t> sequence_nrs, timestamps;
    std::vector<int32_t> serializer_ids;
  } run;
  auto flush = [&] {
    if (run.ids.empty()) return;
    keep(connection.QueuePrepared(kInsertEvents,
                                  PgParams()
                                      .TextArrayOf(run.ids)
                                      .Int64Array(run.sequence_nrs)
                                      .TextArrayOf(run.writers)
                                      .Int64Array(run.timestamps)
                                      .TextArrayOf(run.adapter_manifests)
                                      .Int32Array(run.serializer_ids)
                                      .TextArrayOf(run.manifests)
                                      .BytesArray(run.payloads)));
    run = Columns();
  };
  for (const Call* call : calls) {
    for (const Accepted& a : call->writes) {
      for (const Event& e : a.events) {
        if (!e.tags.empty()) {
          flush();
          keep(connection.QueuePrepared(kInsertTaggedEvent,
                                        PgParams()
                                            .Text(a.persistence_id)
                                            .Int64(e.sequence_nr)
                                            .Text(e.writer_uuid)
                                            .Int64(e.timestamp)
                                            .Text(e.adapter_manifest)
                                            .Int32(e.payload.serializer_id)
                                            .Text(e.payload.manifest)
                                            .Bytes(e.payload.bytes)
                                            .TextArray(e.tags)));
          continue;
        }
        if (run.ids.empty()) {
          const size_t left = events;
          run.ids.reserve(left);
          run.sequence_nrs.reserve(left);
          run.writers.reserve(left);
          run.timestamps.reserve(left);
          run.adapter_manifests.reserve(left);
          run.serializer_ids.reserve(left);
          run.manifests.reserve(left);
          run.payloads.reserve(left);
        }
        run.ids.push_back(a.persistence_id);
        run.sequence_nrs.push_back(e.sequence_nr);
        run.writers.push_back(e.writer_uuid);
        run.timestamps.push_back(e.timestamp);
        run.adapter_manifests.push_back(e.adapter_manifest);
        run.serializer_ids.push_back(e.payload.serializer_id);
        run.manifests.push_back(e.payload.manifest);
        run.payloads.push_back(e.payload.bytes);
      }
    }
  }
  flush();
  if (settings_.live_notify) {
    keep(connection.QueuePrepared(kNotify, PgParams().Text(events_channel_)));
  }
  keep(connection.QueueStatement("COMMIT"));
  absl::StatusOr<std::vector<absl::StatusOr<PgResult>>> results =
      connection.FlushTransaction(queued);
  if (!results.ok()) return results.status();
  for (absl::StatusOr<PgResult>& result : *results) {
    if (!result.ok()) return result.status();
  }
  return absl::OkStatus();
}

absl::Status PostgresJournal::TryCommit(PgConnection& connection,
                                        const std::vector<Call*>& calls,
                                        int& refused, absl::Status& refusal) {
  // Which call each queued statement belongs to (-1: the transaction's),
  // and for a call's, which write.
  struct Owner {
    int call = -1;
    const Accepted* write = nullptr;
  };
  std::vector<Owner> owners;
  // Parameters were checked when the writes were accepted
  // (CheckStorable), so queueing cannot fail; if it did, nothing is sent.
  absl::Status queued;
  auto keep = [&queued](absl::Status s) {
    if (queued.ok()) queued = std::move(s);
  };
  keep(connection.QueueStatement("BEGIN"));
  owners.push_back({});
  // First, before any number is drawn: a new stream's `created` (in
  // cairn_advance_stream) and an event's `ordering` are drawn under this
  // lock, held to the commit, so both rise in commit order. Every writer
  // takes it before any row lock, so two writers cannot deadlock.
  keep(connection.QueuePrepared(kOrderLock, PgParams()));
  owners.push_back({});
  for (size_t i = 0; i < calls.size(); ++i) {
    for (const Accepted& a : calls[i]->writes) {
      if (a.fence.has_value()) {
        keep(connection.QueuePrepared(kCheckLease, FenceParams(*a.fence)));
        owners.push_back({static_cast<int>(i), &a});
      }
      keep(connection.QueuePrepared(
          kAdvance,
          PgParams().Text(a.persistence_id).Int64(a.first - 1).Int64(a.last)));
      owners.push_back({static_cast<int>(i), &a});
    }
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    for (const Accepted& a : calls[i]->writes) {
      for (const Event& e : a.events) {
        PgParams params;
        params.Text(a.persistence_id)
            .Int64(e.sequence_nr)
            .Text(e.writer_uuid)
            .Int64(e.timestamp)
            .Text(e.adapter_manifest)
            .Int32(e.payload.serializer_id)
            .Text(e.payload.manifest)
            .Bytes(e.payload.bytes);
        if (e.tags.empty()) {
          keep(connection.QueuePrepared(kInsertEvent, params));
        } else {
          params.TextArray(e.tags);
          keep(connection.QueuePrepared(kInsertTaggedEvent, params));
        }
        owners.push_back({static_cast<int>(i), &a});
      }
    }
  }
  if (settings_.live_notify) {
    keep(connection.QueuePrepared(kNotify, PgParams().Text(events_channel_)));
    owners.push_back({});
  }
  keep(connection.QueueStatement("COMMIT"));
  owners.push_back({});
  absl::StatusOr<std::vector<absl::StatusOr<PgResult>>> results =
      connection.FlushTransaction(queued);
  if (!results.ok()) return results.status();
  for (size_t k = 0; k < results->size(); ++k) {
    if ((*results)[k].ok()) continue;
    // The first error is the cause; the statements after it were skipped
    // (and the transaction rolled back).
    const absl::Status error = (*results)[k].status();
    if (owners[k].call < 0) return error;
    absl::Status own = Refusal(error, owners[k].write->persistence_id,
                               owners[k].write->first, owners[k].write->last);
    if (own.ok()) return error;
    refused = owners[k].call;
    refusal = std::move(own);
    return absl::AbortedError("a write was refused");
  }
  return absl::OkStatus();
}

bool PostgresJournal::Delete(Call& call) {
  if (!call.malformed.ok()) {
    call.failed = call.malformed;
    return false;
  }
  const std::string& id = call.ids.front();
  // Idempotent (the lease's check is a read): repeated on a new connection
  // if its connection was lost.
  call.failed = base::OwnCopy(pool_.Run(
      [&call, &id](PgConnection& connection) -> absl::Status {
        const PgParams deleted = PgParams().Text(id).Int64(call.to_sequence_nr);
        if (!call.delete_fence.has_value()) {
          return connection.ExecutePrepared(kDelete, deleted).status();
        }
        // The lease's check and the delete before one sync point: one
        // implicit transaction, in which the check's row lock holds the
        // lease until the delete commits (or nothing is deleted).
        absl::Status queued = connection.QueuePrepared(
            kCheckLease, FenceParams(*call.delete_fence));
        if (queued.ok()) queued = connection.QueuePrepared(kDelete, deleted);
        absl::StatusOr<std::vector<absl::StatusOr<PgResult>>> results =
            connection.Flush();
        if (!queued.ok()) return queued;
        if (!results.ok()) return results.status();
        for (const absl::StatusOr<PgResult>& result : *results) {
          // The first error is the cause; the delete after a refused check
          // was skipped.
          if (!result.ok()) {
            return LeaseRefusal(
                result.status(),
                base::StrCat("persistence id '", id, "': events up to ",
                             call.to_sequence_nr, " not deleted"));
          }
        }
        return absl::OkStatus();
      },
      [] { return true; }));
  return call.failed.ok();
}

absl::StatusOr<std::unique_ptr<ReadJournal>> PostgresJournal::NewReadJournal() {
  PgReadJournalSettings settings;
  settings.connection = settings_.connection;
  settings.backoff = settings_.backoff;
  settings.threads = settings_.reader_connections;
  settings.page_rows = settings_.query_page_rows;
  settings.refresh_interval = settings_.refresh_interval;
  settings.live_notify = settings_.live_notify;
  return std::unique_ptr<ReadJournal>(std::make_unique<PostgresReadJournal>(
      std::move(settings), registry_, commits_));
}

void PostgresJournal::Complete(Call& call) {
  // Ended before the callback: a read submitted after it sees the outcome.
  in_flight_.End(call.ids, call.ticket);
  if (call.is_delete) {
    std::move(call.delete_done)(base::OwnCopy(call.failed));
    return;
  }
  std::vector<absl::Status> per_write;
  per_write.reserve(call.count);
  if (!call.failed.ok()) {
    for (size_t i = 0; i < call.count; ++i) {
      per_write.push_back(base::OwnCopy(call.failed));
    }
    std::move(call.write_done)(base::OwnCopy(call.failed),
                               std::move(per_write));
    return;
  }
  for (const absl::Status& s : call.per_write)
    per_write.push_back(base::OwnCopy(s));
  std::move(call.write_done)(absl::OkStatus(), std::move(per_write));
}

void PostgresJournal::AsyncReplayMessages(std::string persistence_id,
                                          int64_t from_sequence_nr,
                                          int64_t to_sequence_nr, int64_t max,
                                          ReplayCallback on_event,
                                          DoneCallback done) {
  Read read;
  read.persistence_id = std::move(persistence_id);
  read.from = from_sequence_nr;
  read.to = to_sequence_nr;
  read.max = max;
  read.on_event = std::move(on_event);
  read.replay_done = std::move(done);
  StartRead(std::move(read));
}

void PostgresJournal::AsyncReadHighestSequenceNr(std::string persistence_id,
                                                 int64_t /*from_sequence_nr*/,
                                                 HighestCallback done) {
  Read read;
  read.highest = true;
  read.persistence_id = std::move(persistence_id);
  read.highest_done = std::move(done);
  StartRead(std::move(read));
}

void PostgresJournal::StartRead(Read read) {
  const std::string id = read.persistence_id;
  // Queued once no write of its id submitted before it is in flight
  // (InFlightWrites); a reader thread then takes it with the others queued.
  in_flight_.StartRead(id, [this, read = std::move(read)]() mutable {
    bool post = false;
    bool primary = false;
    {
      base::MutexLock lock(&reads_mu_);
      reads_.push_back(std::move(read));
      // One reader, the primary, takes what comes at its next round:
      // fewer, fuller rounds. A helper joins only while more reads wait
      // than the primary has room for at its next round (a storm, or long
      // replays filling its rounds), up to reader_connections readers.
      if (!primary_reader_) {
        primary_reader_ = true;
        primary = true;
      }
      post = primary || (primary_active_ >= kActiveReads &&
                         readers_busy_ < settings_.reader_connections);
      if (post) ++readers_busy_;
    }
    if (post) readers_.Post([this, primary] { DrainReads(primary); });
  });
}

void PostgresJournal::DrainReads(bool primary) {
  // The reads a reader has taken go on in rounds, each round one round
  // trip: the highest sequence numbers asked for in one statement, the
  // next page of every replay in another. Between rounds the reader
  // completes what finished and takes what was queued meanwhile (up to
  // kActiveReads at once). So a storm of recoveries reads in a few
  // statements, not in one per read: on the server, the work per statement
  // and per round trip, not the rows, bounds many small recoveries. And a
  // long replay reads a page per round beside the others, holding no read
  // that came after it behind its end.
  std::vector<ActiveRead> active;
  bool post_helper = false;
  while (true) {
    {
      base::MutexLock lock(&reads_mu_);
      // The primary takes from the front of the queue, up to its room. A
      // helper takes only while the primary is full, from the back, so
      // that the primary's rounds stay full, and leaves once its own are
      // done and the primary has room again.
      auto primary_full = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(reads_mu_) {
        return primary_active_ >= kActiveReads;
      };
      if (active.empty() && (reads_.empty() || !(primary || primary_full()))) {
        // Decided with the queue in view: StartRead posts a new primary
        // for what comes after.
        --readers_busy_;
        if (primary) {
          primary_reader_ = false;
          primary_active_ = 0;
        }
        return;
      }
      while (!reads_.empty() && active.size() < kActiveReads &&
             (primary || primary_full())) {
        ActiveRead a;
        if (primary) {
          a.read = std::move(reads_.front());
          reads_.pop_front();
        } else {
          a.read = std::move(reads_.back());
          reads_.pop_back();
        }
        a.next_from = a.read.from;
        // An id with a NUL, which PostgreSQL's text cannot hold, fails
        // its own read before anything is sent; a replay of nothing
        // completes after this round.
        a.outcome = CheckPgText("the persistence id", a.read.persistence_id);
        a.finished =
            !a.outcome.ok() ||
            (!a.read.highest && (a.read.max <= 0 || a.read.from > a.read.to));
        active.push_back(std::move(a));
      }
      if (primary) {
        primary_active_ = active.size();
        // Full, with reads left: a helper for them.
        if (primary_full() && !reads_.empty() &&
            readers_busy_ < settings_.reader_connections) {
          ++readers_busy_;
          post_helper = true;
        }
      }
    }
    if (post_helper) {
      post_helper = false;
      readers_.Post([this] { DrainReads(/*primary=*/false); });
    }
    ReadRound(active);
    std::vector<ActiveRead> going_on;
    for (ActiveRead& a : active) {
      if (a.finished) {
        CompleteRead(a);
      } else {
        going_on.push_back(std::move(a));
      }
    }
    active = std::move(going_on);
  }
}

void PostgresJournal::ReadRound(std::vector<ActiveRead>& active) {
  if (std::all_of(active.begin(), active.end(),
                  [](const ActiveRead& a) { return a.finished; })) {
    return;
  }
  // A round delivers a read's page only once its statement is answered,
  // and reads each replay from its cursor: on a new connection, what is
  // not finished yet runs again from where it got.
  absl::Status status = pool_.Run(
      [&](PgConnection& connection) -> absl::Status {
        std::vector<ActiveRead*> highest_reads;
        std::vector<ActiveRead*> replays;
        for (ActiveRead& a : active) {
          if (a.finished) continue;
          (a.read.highest ? highest_reads : replays).push_back(&a);
        }
        return RunRound(connection, highest_reads, replays);
      },
      [] { return true; });
  if (status.ok()) return;
  for (ActiveRead& a : active) {
    if (a.finished) continue;
    a.outcome = status;
    a.finished = true;
  }
}

absl::Status PostgresJournal::RunRound(
    PgConnection& connection, const std::vector<ActiveRead*>& highest_reads,
    const std::vector<ActiveRead*>& replays) {
  absl::Status highest_queued;
  if (!highest_reads.empty()) {
    std::vector<std::string_view> ids;
    for (const ActiveRead* a : highest_reads) {
      ids.push_back(a->read.persistence_id);
    }
    highest_queued =
        connection.QueuePrepared(kHighestMany, PgParams().TextArrayOf(ids));
    connection.QueueSync();
  }
  absl::Status replays_queued;
  if (!replays.empty()) {
    std::vector<std::string_view> ids;
    std::vector<int64_t> from, to, limit;
    for (const ActiveRead* a : replays) {
      ids.push_back(a->read.persistence_id);
      from.push_back(a->next_from);
      to.push_back(a->read.to);
      limit.push_back(PageLimit(*a));
    }
    replays_queued = connection.QueuePrepared(
        kReplayMany,
        PgParams().TextArrayOf(ids).Int64Array(from).Int64Array(to).Int64Array(
            limit));
    connection.QueueSync();
  }
  absl::StatusOr<std::vector<absl::StatusOr<PgResult>>> results =
      connection.Flush();
  if (!results.ok()) return results.status();
  size_t next = 0;
  // The answer of one statement to its reads (highest sequence numbers or
  // replays): a statement the server refused for a value runs again per
  // read, so that only the read of the bad value fails.
  auto answer = [&](const std::vector<ActiveRead*>& reads,
                    const absl::Status& queued, bool highest) -> absl::Status {
    if (reads.empty()) return absl::OkStatus();
    const absl::StatusOr<PgResult> result =
        queued.ok() ? std::move((*results)[next++])
                    : absl::StatusOr<PgResult>(queued);
    if (reads.size() > 1 && !result.ok() &&
        IsPgDataException(result.status())) {
      for (ActiveRead* a : reads) {
        absl::Status alone = highest ? RunRound(connection, {a}, {})
                                     : RunRound(connection, {}, {a});
        if (!alone.ok()) return alone;
      }
    } else if (highest) {
      ReadHighest(result, reads);
    } else {
      DeliverReplays(result, reads);
    }
    return absl::OkStatus();
  };
  if (absl::Status s = answer(highest_reads, highest_queued, true); !s.ok()) {
    return s;
  }
  return answer(replays, replays_queued, false);
}

int64_t PostgresJournal::PageLimit(const ActiveRead& replay) const {
  return std::min<int64_t>(settings_.replay_page_rows,
                           replay.read.max - replay.delivered);
}

void PostgresJournal::ReadHighest(const absl::StatusOr<PgResult>& result,
                                  const std::vector<ActiveRead*>& reads) {
  for (ActiveRead* a : reads) a->finished = true;
  if (!result.ok()) {
    for (ActiveRead* a : reads) {
      a->outcome = absl::Status(
          result.status().code(),
          base::StrCat("reading the highest sequence number of persistence "
                       "id '",
                       a->read.persistence_id,
                       "': ", result.status().message()));
    }
    return;
  }
  absl::flat_hash_map<std::string_view, int64_t> found;
  for (int row = 0; row < result->rows(); ++row) {
    found[result->Bytes(row, 0)] = result->Int64(row, 1);
  }
  for (ActiveRead* a : reads) {
    auto it = found.find(a->read.persistence_id);
    a->highest = it == found.end() ? 0 : it->second;
  }
}

void PostgresJournal::DeliverReplays(const absl::StatusOr<PgResult>& result,
                                     const std::vector<ActiveRead*>& replays) {
  if (!result.ok()) {
    for (ActiveRead* a : replays) {
      a->outcome = absl::Status(
          result.status().code(),
          base::StrCat("replaying persistence id '", a->read.persistence_id,
                       "': ", result.status().message()));
      a->finished = true;
    }
    return;
  }
  const std::vector<int> order = ReplayPageOrder(*result);
  size_t next = 0;
  for (size_t k = 0; k < replays.size(); ++k) {
    // This replay's rows: those tagged k + 1, next in the order.
    const size_t begin = next;
    while (next < order.size() &&
           result->Int64(order[next], 0) == static_cast<int64_t>(k) + 1) {
      ++next;
    }
    ActiveRead& a = *replays[k];
    const int64_t limit = PageLimit(a);
    int64_t last = 0;
    a.outcome = DeliverRows(
        *result, absl::MakeConstSpan(order).subspan(begin, next - begin),
        a.read.persistence_id, a.read.on_event, a.delivered, last);
    // A full page short of the bounds: there may be more.
    const bool more = a.outcome.ok() &&
                      static_cast<int64_t>(next - begin) == limit &&
                      a.delivered < a.read.max && last < a.read.to;
    if (more) {
      a.next_from = last + 1;
    } else {
      a.finished = true;
    }
  }
}

absl::Status PostgresJournal::DeliverRows(const PgResult& page,
                                          absl::Span<const int> rows,
                                          const std::string& persistence_id,
                                          ReplayCallback& on_event,
                                          int64_t& delivered, int64_t& last) {
  // Column 0 is the replay's place in the statement's arrays.
  PersistentRepr repr;
  repr.persistence_id = persistence_id;
  for (int row : rows) {
    repr.sequence_nr = page.Int64(row, 1);
    repr.writer_uuid = page.Bytes(row, 2);
    repr.timestamp = page.Int64(row, 3);
    repr.adapter_manifest = page.Bytes(row, 4);
    const int32_t serializer_id = page.Int32(row, 5);
    repr.manifest = page.Bytes(row, 6);
    absl::StatusOr<serialization::Payload> payload = registry_->Deserialize(
        serializer_id, repr.manifest, page.Bytes(row, 7));
    if (!payload.ok()) {
      return RecordError(persistence_id, repr.sequence_nr, payload.status());
    }
    repr.payload = *std::move(payload);
    absl::StatusOr<std::vector<std::string>> tags = page.TextArray(row, 8);
    if (!tags.ok()) {
      return RecordError(persistence_id, repr.sequence_nr, tags.status());
    }
    repr.tags = *std::move(tags);
    on_event(repr);
    ++delivered;
    last = repr.sequence_nr;
  }
  return absl::OkStatus();
}

void PostgresJournal::CompleteRead(ActiveRead& done) {
  if (done.read.highest) {
    if (done.outcome.ok()) {
      std::move(done.read.highest_done)(done.highest);
    } else {
      std::move(done.read.highest_done)(base::OwnCopy(done.outcome));
    }
  } else {
    std::move(done.read.replay_done)(base::OwnCopy(done.outcome));
  }
}

}  // namespace cairn::persistence::postgres_internal
