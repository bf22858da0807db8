#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_JOURNAL_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_JOURNAL_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "base/mutex.h"
#include "base/task_runner.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/postgresql/internal/postgres_connection_pool.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_support/commit_notifier.h"
#include "persistence/storage/plugin_support/in_flight_writes.h"
#include "serialization/serialization.h"

namespace cairn::persistence::postgres_internal {

struct PgJournalSettings {
  PgConnectionSettings connection;
  PgReconnectBackoff backoff;
  // Threads, each with a connection of its own, for replays and highest
  // sequence number reads, at most (at least 1): one serves the waiting
  // reads in rounds, others join while more wait than it has room for.
  int reader_connections = 4;
  // Rows a replay reads per page: what it holds in memory at most (a round
  // of 64 replays: 64 pages). Up to 64 replays waiting together read their
  // pages in one statement. 1000, a recovering actor's batch
  // (replay-batch-size's default), is one round trip per batch.
  int replay_page_rows = 1000;
  // Rows a read journal's query reads per Pull, at most.
  int query_page_rows = 500;
  // The read journals' (NewReadJournal): how long a live query that has
  // delivered everything waits for this journal's next commit before it
  // reads again, to see other processes' commits; zero: it waits for this
  // journal's commits only. Each read journal has reader_connections
  // threads and connections of its own.
  absl::Duration refresh_interval = absl::Seconds(1);
  // Whether each write transaction announces its commit to the live
  // queries of every process (pg_notify on PgEventsChannel, in the
  // transaction), and the read journals listen (PgReadJournalSettings::
  // live_notify). False: neither; other processes' commits come by
  // refresh_interval only.
  bool live_notify = true;
};

// The journal on PostgreSQL (docs/POSTGRESQL.md).
//
// Writes and deletes go to one writer thread with a connection of its own,
// in submission order. What queued up while it was busy becomes one
// transaction, sent as one pipeline (one round trip): an advisory lock of
// the schema, then each fenced write's lease checked by cairn_check_lease,
// each write's sequence rule checked by cairn_advance_stream on the
// stream's row (which makes the row of a new stream), then the events, then
// (with live_notify) one pg_notify on the schema's events channel, which
// PostgreSQL sends at the commit, and only then. If
// one call's write is refused (its lease is not held, it does not follow
// its stream, a key conflict), the transaction is rolled back and made
// again without that call, which fails alone. A delete is a transaction of
// its own, in its place in the order; a fenced one checks its lease with
// cairn_check_lease first, in that transaction.
//
// The advisory lock, held from before the first number is drawn to the
// commit, makes the `ordering` numbers of events and the `created` numbers
// of new streams rise in commit order across every process writing to the
// schema, so a query reading by either never passes over a row that
// commits later with a lower number (docs/POSTGRESQL.md, "Queries").
//
// Reads (replays, highest sequence numbers) run on reader threads beside
// the writer, held back only behind writes of their own id still in flight
// in this process (InFlightWrites). Reads waiting together are answered
// together: one statement for their highest sequence numbers, one per page
// round of their replays.
//
// A lost connection fails the calls in flight on it (Unavailable: whether
// a write in flight committed is unknown, journal.h), and the next call
// connects again, after a backoff if that fails (PgConnectionPool).
class PostgresJournal final : public Journal {
 public:
  // Connects once to make the schema's tables if missing (EnsurePgSchema).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<PostgresJournal>> Open(
      PgJournalSettings settings,
      std::shared_ptr<const serialization::SerializationRegistry> registry);
  ~PostgresJournal() override;

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override;
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event, DoneCallback done) override;
  void AsyncReadHighestSequenceNr(std::string persistence_id,
                                  int64_t from_sequence_nr,
                                  HighestCallback done) override;
  void AsyncDeleteMessagesTo(std::string persistence_id, int64_t to_sequence_nr,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override;
  // A PostgresReadJournal on this journal's schema, told of this journal's
  // commits; it has connections of its own and may outlive the journal.
  absl::StatusOr<std::unique_ptr<ReadJournal>> NewReadJournal() override;

 private:
  struct Event {
    int64_t sequence_nr = 0;
    serialization::SerializedPayload payload;
    std::string adapter_manifest;
    std::string writer_uuid;
    int64_t timestamp = 0;
    std::vector<std::string> tags;
  };
  // An AtomicWrite, checked and serialized; no events if it was rejected.
  struct Accepted {
    std::string persistence_id;
    int64_t first = 0;
    int64_t last = 0;
    std::vector<Event> events;
    std::optional<WriteFence> fence;
  };
  // One call to AsyncWriteMessages or AsyncDeleteMessagesTo, in the
  // writer's queue.
  struct Call {
    bool is_delete = false;
    // A write:
    absl::Status malformed;
    std::vector<Accepted> writes;
    std::vector<absl::Status> per_write;
    size_t count = 0;
    WriteCallback write_done;
    // A delete (`malformed` if its fence cannot be sent):
    int64_t to_sequence_nr = 0;
    std::optional<WriteFence> delete_fence;
    DoneCallback delete_done;
    // Both: the ids in flight, for InFlightWrites.
    std::vector<std::string> ids;
    plugin_support::InFlightWrites::Ticket ticket = 0;
    // The outcome, set by the writer.
    absl::Status failed;
  };

  PostgresJournal(
      PgJournalSettings settings,
      std::shared_ptr<const serialization::SerializationRegistry> registry);

  void Enqueue(Call call);
  void Drain();  // on the writer thread
  // Commits the writes of `calls` in one transaction, setting `failed` of
  // the calls that fail; true if a transaction committed.
  bool CommitWrites(std::vector<Call*>& calls);
  // Every write of `calls` in one transaction, the streams advanced in one
  // statement and the untagged events inserted in one per run: OK if
  // committed; a refusal (IsRefusal) if some write was refused, after
  // which nothing was stored and TryCommit must find whose it was;
  // otherwise the error that fails them all.
  absl::Status TryCommitBatched(PgConnection& connection,
                                const std::vector<Call*>& calls);
  // One attempt, a statement per write: OK if committed; otherwise
  // `refused` is the index (into `calls`) of the call whose write the
  // server refused with `refusal`, or -1 when the whole attempt failed
  // with the returned status.
  absl::Status TryCommit(PgConnection& connection,
                         const std::vector<Call*>& calls, int& refused,
                         absl::Status& refusal);
  // True if the delete committed.
  bool Delete(Call& call);
  void Complete(Call& call);

  // A replay or a highest sequence number read, queued for the readers.
  struct Read {
    bool highest = false;
    std::string persistence_id;
    int64_t from = 0;
    int64_t to = 0;
    int64_t max = 0;
    ReplayCallback on_event;
    DoneCallback replay_done;
    HighestCallback highest_done;
  };
  // A read a reader has taken, and how far it got.
  struct ActiveRead {
    Read read;
    int64_t next_from = 0;  // a replay: where its next page starts
    int64_t delivered = 0;  // a replay: events delivered so far
    int64_t highest = 0;    // a highest sequence number read: the answer
    bool finished = false;
    absl::Status outcome;
  };
  void StartRead(Read read);
  // On a reader thread: goes on with reads in rounds until none is left
  // for it (a helper: until its own are done and no backlog is left).
  void DrainReads(bool primary);
  // One round over `active`: the highest sequence numbers asked for in one
  // statement, the next page of every replay in another, in one pipeline.
  // Marks what it finished.
  void ReadRound(std::vector<ActiveRead>& active);
  // A round of those reads on `connection`. A statement the server refuses
  // for one of its values (a data exception, e.g. an id not valid in the
  // server's encoding) runs again per read, so that only that read fails.
  // Not OK (the connection's error) if no answer can be trusted.
  absl::Status RunRound(PgConnection& connection,
                        const std::vector<ActiveRead*>& highest_reads,
                        const std::vector<ActiveRead*>& replays);
  // Sets the answer (or, if the statement failed, the outcome) of the
  // highest sequence number reads `reads` from their statement's result.
  static void ReadHighest(const absl::StatusOr<PgResult>& result,
                          const std::vector<ActiveRead*>& reads);
  // Delivers each replay's page from `result` (or fails them all if the
  // statement failed), finishing those that have no more to read.
  void DeliverReplays(const absl::StatusOr<PgResult>& result,
                      const std::vector<ActiveRead*>& replays);
  // Rows the next page of `replay` asks for.
  int64_t PageLimit(const ActiveRead& replay) const;
  // Delivers the events of `rows` of a replay's page, in that order,
  // counting them in `delivered`; `last` is the last one's sequence number.
  absl::Status DeliverRows(const PgResult& page, absl::Span<const int> rows,
                           const std::string& persistence_id,
                           ReplayCallback& on_event, int64_t& delivered,
                           int64_t& last);
  // Runs a finished read's callback.
  static void CompleteRead(ActiveRead& done);

  const PgJournalSettings settings_;
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  // Where each write transaction announces itself (with live_notify).
  const std::string events_channel_;
  PgConnectionPool pool_;
  plugin_support::InFlightWrites in_flight_;
  // Told of every commit, for the live queries of the read journals.
  const std::shared_ptr<plugin_support::CommitNotifier> commits_ =
      std::make_shared<plugin_support::CommitNotifier>();

  // Reads a reader goes on with at once.
  static constexpr size_t kActiveReads = 64;
  base::Mutex reads_mu_;
  std::deque<Read> reads_ ABSL_GUARDED_BY(reads_mu_);
  // Readers posted or in DrainReads, at most reader_connections; whether
  // one of them is the primary (which takes every read queued).
  int readers_busy_ ABSL_GUARDED_BY(reads_mu_) = 0;
  bool primary_reader_ ABSL_GUARDED_BY(reads_mu_) = false;
  // The reads the primary has: what it has room for at its next round
  // (a helper joins for more).
  size_t primary_active_ ABSL_GUARDED_BY(reads_mu_) = 0;

  base::Mutex mu_;
  std::deque<Call> queue_ ABSL_GUARDED_BY(mu_);
  bool draining_ ABSL_GUARDED_BY(mu_) = false;

  // Last: the runners' destructors complete what was posted, which uses
  // everything above.
  base::TaskRunner readers_;
  base::TaskRunner writer_;
};

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_JOURNAL_H_
