// cairn's PostgreSQL journal next to raw libpq sending the same statements
// in the same transactions, in the same run. One row per case: cairn's
// events per second, raw libpq's, and the ratio cairn/raw (higher is
// better for cairn).
//
//   bazel run -c opt //bench/postgres:postgres_benchmark -- [--quick] [--filter
//   S]
//       [--url URL]
//
// Without --url it starts a durable server of its own
// (tools/postgres_test_server.sh start --durable: fsync and
// synchronous_commit on, PostgreSQL's defaults) and stops it at the end;
// without PostgreSQL installed it says so and exits 0 with no rows.
//
// Persist rows: N persistent actors on a real ActorSystem whose journal is
// the PostgreSQL plugin, chosen by config, persist K events each (Persist,
// PersistAsync, PersistAll of 10), each run in a schema of its own; raw
// libpq then writes the very rows cairn stored, in the transactions
// cairn's writer made (read back by the rows' xmin), as that writer sends
// them. Recovery rows: cairn's actors replay what they stored; raw libpq
// reads the same rows with the journal's keyset-paged replay SELECT.
// Rows that have a published Akka.NET figure are followed by it and
// cairn's ratio to its top. docs/BENCHMARKS.md has the details.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/persistence/persistence_benchmark_cairn.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/postgres/postgres_benchmark_raw.h"
#include "bench/postgres/postgres_benchmark_server.h"
#include "bench/postgres/postgres_cpu_meter.h"
#include "bench/support/bench_main.h"
#include "bench/support/ratio_table.h"

ABSL_FLAG(std::string, filter, "",
          "run only the rows whose name contains this text");
ABSL_FLAG(std::string, url, "",
          "a PostgreSQL server to use (a libpq URL) instead of starting one");

namespace cairn::bench {
namespace {

constexpr int kPersistAllBatch = 10;
constexpr int64_t kRecoveryActors = 1000;
constexpr int64_t kRecoveryEventsEach = 10;
// The long stream is written with PersistAll commands of this many events
// (not timed; only its recovery is).
constexpr int kStreamFillBatch = 1000;
// The journal's defaults (persistence/reference.conf, PgJournalSettings):
// the raw reads use as many connections, and pages of as many rows.
constexpr int kReaderConnections = 4;
constexpr int kReplayPageRows = 1000;

// Akka.NET's published figures for Akka.Persistence.Sql on PostgreSQL, in
// events per second: the top of each range is what cairn is held to.
constexpr char kAkkaName[] =
    "Akka.NET Akka.Persistence.Sql (PostgreSQL), published";
constexpr double kAkkaPersistAsyncTop = 12'700;
constexpr double kAkkaRecoveryTop = 115'000;
constexpr double kAkkaGoal = 10;

struct Plan {
  int64_t write_events;      // per persist row, at most
  int64_t events_per_actor;  // and at most this many per actor
  int64_t stream_events;     // the long stream's length
  // Each side of a row runs this many times, taking turns with the other,
  // and the best rate of each is reported.
  int runs;
};

// Full: every commit waits for the server's fsync, so one actor's Persist
// makes one commit per event: at most 200 of them per actor.
constexpr Plan kFullPlan = {20'000, 200, 1'000'000, 3};
// Quick: a smoke run, seconds even under ThreadSanitizer.
constexpr Plan kQuickPlan = {1'000, 20, 2'000, 1};

struct Flags {
  bool quick = false;
  std::string filter;  // run only the rows whose name contains it
  std::string url;     // a server to use instead of starting one
};

enum class Anchor { kNone, kPersistAsync, kRecovery };

// CPU microseconds per event of one side's run: this process's, and the
// server's when it is measured (LocalPostmaster).
struct CpuPerEvent {
  double here = 0;
  std::optional<double> server;
};

struct Row {
  double cairn = 0;              // events per second
  double raw = 0;                // events per second
  double events_per_commit = 0;  // 0: not a write row
  double value_bytes = 0;        // mean payload size
  // Recovery rows: the CPU of each side's best run.
  std::optional<CpuPerEvent> cairn_cpu;
  std::optional<CpuPerEvent> raw_cpu;
};

CpuPerEvent PerEvent(const CpuMeter& meter, int64_t events) {
  CpuPerEvent cpu;
  cpu.here = meter.process_seconds() * 1e6 / events;
  if (std::optional<double> server = meter.server_seconds()) {
    cpu.server = *server * 1e6 / events;
  }
  return cpu;
}

struct Case {
  std::string name;
  Anchor anchor;
  std::function<absl::StatusOr<Row>()> run;
};

Flags ReadFlags() {
  return {.quick = Quick(),
          .filter = absl::GetFlag(FLAGS_filter),
          .url = absl::GetFlag(FLAGS_url)};
}

const char* ModeName(PersistMode mode) {
  switch (mode) {
    case PersistMode::kPersist:
      return "Persist";
    case PersistMode::kPersistAsync:
      return "PersistAsync";
    case PersistMode::kPersistAll:
      return "PersistAll(10)";
  }
  return "?";
}

// The same events for all three modes: a multiple of the PersistAll batch
// per actor.
WriteLoad MakeLoad(PersistMode mode, int actors, const Plan& plan) {
  const int64_t total =
      std::min(plan.write_events, actors * plan.events_per_actor);
  const int64_t each = std::max<int64_t>(total / actors, kPersistAllBatch) /
                       kPersistAllBatch * kPersistAllBatch;
  return WriteLoad{
      mode,           actors,
      each,           mode == PersistMode::kPersistAll ? kPersistAllBatch : 1,
      /*fsync=*/true,
      /*tags=*/{}};
}

// A schema of its own for each run, dropped when it ends.
class Schema {
 public:
  Schema(std::string url, std::string name)
      : url_(std::move(url)), name_(std::move(name)) {}
  ~Schema() {
    if (absl::Status s = DropSchema(url_, name_); !s.ok()) {
      std::fprintf(stderr, "dropping schema %s: %s\n", name_.c_str(),
                   s.ToString().c_str());
    }
  }
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  const std::string& name() const { return name_; }

 private:
  std::string url_;
  std::string name_;
};

std::string NewSchemaName() {
  static std::atomic<int> next{0};
  return absl::StrCat("cairn_bench_", getpid(), "_", next++);
}

// `text` as a HOCON quoted string.
std::string Quoted(std::string_view text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// The plugins chosen and configured as a user does (persistence/
// reference.conf).
std::string PostgresConfig(const std::string& url, const std::string& schema) {
  return absl::StrCat(
      "akka.persistence.journal.plugin = "
      "\"akka.persistence.journal.postgresql\"\n",
      "akka.persistence.snapshot-store.plugin = "
      "\"akka.persistence.snapshot-store.postgresql\"\n",
      "akka.persistence.journal.postgresql { connection-string = ", Quoted(url),
      ", schema = ", Quoted(schema), " }\n");
}

// Keeps the better rate of each side with that run's CPU, and the commits
// and value size of the run whose cairn rate is kept.
void KeepBest(const Row& run, Row& best) {
  if (run.cairn > best.cairn) {
    best.cairn = run.cairn;
    best.events_per_commit = run.events_per_commit;
    best.value_bytes = run.value_bytes;
    best.cairn_cpu = run.cairn_cpu;
  }
  if (run.raw > best.raw) {
    best.raw = run.raw;
    best.raw_cpu = run.raw_cpu;
  }
}

// cairn writes `load` into a new schema; raw libpq then empties its tables
// and writes the transactions cairn committed again.
absl::StatusOr<Row> PersistOnce(const std::string& url, const WriteLoad& load) {
  Schema schema(url, NewSchemaName());
  Row row;
  absl::StatusOr<double> cairn =
      CairnWriteWithConfig(PostgresConfig(url, schema.name()), load);
  if (!cairn.ok()) return cairn.status();
  row.cairn = *cairn;

  absl::StatusOr<std::vector<Transaction>> transactions =
      ReadTransactions(url, schema.name());
  if (!transactions.ok()) return transactions.status();
  int64_t events = 0;
  int64_t value_bytes = 0;
  for (const Transaction& transaction : *transactions) {
    for (const StoredEvent& event : transaction) {
      value_bytes += static_cast<int64_t>(event.payload.size());
    }
    events += static_cast<int64_t>(transaction.size());
  }
  const int64_t expected = load.actors * load.events_per_actor;
  if (events != expected) {
    return absl::DataLossError(absl::StrCat(
        "the journal holds ", events, " of the ", expected,
        " events written: the raw side would not do the same work"));
  }
  row.events_per_commit = static_cast<double>(events) / transactions->size();
  row.value_bytes = static_cast<double>(value_bytes) / events;

  if (absl::Status s = TruncateJournal(url, schema.name()); !s.ok()) return s;
  absl::StatusOr<double> raw = RawWrite(url, schema.name(), *transactions);
  if (!raw.ok()) return raw.status();
  absl::StatusOr<std::vector<Transaction>> rewritten =
      ReadTransactions(url, schema.name());
  if (!rewritten.ok()) return rewritten.status();
  if (rewritten->size() != transactions->size()) {
    return absl::InternalError(
        absl::StrCat("raw libpq made ", rewritten->size(),
                     " transactions of cairn's ", transactions->size()));
  }
  row.raw = *raw;
  return row;
}

absl::StatusOr<Row> PersistRow(const std::string& url, const WriteLoad& load,
                               int runs) {
  Row best;
  for (int i = 0; i < runs; ++i) {
    absl::StatusOr<Row> run = PersistOnce(url, load);
    if (!run.ok()) return run.status();
    KeepBest(*run, best);
  }
  return best;
}

// Writes `actors` streams of `events_each` events into a new schema (not
// timed), then measures their recovery `runs` times, cairn's and raw
// libpq's taking turns.
absl::StatusOr<Row> RecoveryRow(const std::string& url, int actors,
                                int64_t events_each, int fill_batch, int runs) {
  Schema schema(url, NewSchemaName());
  const std::string config = PostgresConfig(url, schema.name());
  const WriteLoad fill{
      PersistMode::kPersistAll, actors,     events_each, fill_batch,
      /*fsync=*/true,           /*tags=*/{}};
  if (absl::StatusOr<double> s = CairnWriteWithConfig(config, fill); !s.ok()) {
    return s.status();
  }
  if (absl::Status s = VacuumForReads(url, schema.name()); !s.ok()) return s;
  std::vector<std::string> ids;
  ids.reserve(actors);
  for (int i = 0; i < actors; ++i) ids.push_back(BenchPersistenceId(i));

  const int64_t expected = actors * events_each;
  const pid_t postmaster = LocalPostmaster(url);
  Row best;
  for (int i = 0; i < runs; ++i) {
    Row run;
    CpuMeter cairn_meter(postmaster);
    absl::StatusOr<double> cairn = CairnRecoverWithConfig(
        config, actors, events_each,
        {[&] { cairn_meter.Start(); }, [&] { cairn_meter.Stop(); }});
    if (!cairn.ok()) return cairn.status();
    run.cairn = *cairn;
    run.cairn_cpu = PerEvent(cairn_meter, expected);
    CpuMeter raw_meter(postmaster);
    absl::StatusOr<RawReadResult> raw =
        RawRead(url, schema.name(), ids, std::min(kReaderConnections, actors),
                kReplayPageRows,
                {[&] { raw_meter.Start(); }, [&] { raw_meter.Stop(); }});
    if (!raw.ok()) return raw.status();
    if (raw->events != expected) {
      return absl::DataLossError(absl::StrCat("raw libpq read ", raw->events,
                                              " of ", expected, " events"));
    }
    run.raw = static_cast<double>(raw->events) / raw->seconds;
    run.raw_cpu = PerEvent(raw_meter, raw->events);
    run.value_bytes = static_cast<double>(raw->payload_bytes) / raw->events;
    KeepBest(run, best);
  }
  return best;
}

std::vector<Case> Cases(const std::string& url, const Plan& plan) {
  std::vector<Case> cases;
  for (PersistMode mode : {PersistMode::kPersist, PersistMode::kPersistAsync,
                           PersistMode::kPersistAll}) {
    for (int actors : {1, 10, 100, 1000}) {
      const WriteLoad load = MakeLoad(mode, actors, plan);
      cases.push_back({absl::StrCat(ModeName(mode), ", ", actors,
                                    actors == 1 ? " actor" : " actors"),
                       mode == PersistMode::kPersistAsync
                           ? Anchor::kPersistAsync
                           : Anchor::kNone,
                       [url, load, runs = plan.runs] {
                         return PersistRow(url, load, runs);
                       }});
    }
  }
  cases.push_back({absl::StrCat("recovery, ", kRecoveryActors, " actors x ",
                                kRecoveryEventsEach, " events"),
                   Anchor::kRecovery, [url, plan] {
                     return RecoveryRow(url, kRecoveryActors,
                                        kRecoveryEventsEach,
                                        kRecoveryEventsEach, plan.runs);
                   }});
  cases.push_back(
      {absl::StrCat("recovery, 1 stream of ", plan.stream_events, " events"),
       Anchor::kRecovery, [url, plan] {
         return RecoveryRow(url, 1, plan.stream_events, kStreamFillBatch,
                            plan.runs);
       }});
  return cases;
}

void PrintHeader(const std::string& url, const std::string& version,
                 const std::string& server_dir, const Plan& plan) {
  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  absl::StatusOr<std::string> fsync = QueryText(url, "SHOW fsync");
  absl::StatusOr<std::string> commit =
      QueryText(url, "SHOW synchronous_commit");
  std::printf(
      "PostgreSQL: %s, fsync %s, synchronous_commit %s, %s\n", version.c_str(),
      fsync.ok() ? fsync->c_str() : "?", commit.ok() ? commit->c_str() : "?",
      server_dir.empty() ? "the server given by --url"
                         : absl::StrCat("started in ", server_dir).c_str());
  std::printf(
      "runs per side: %d, best shown; ev/commit: cairn's mean (raw: the "
      "same transactions)\n",
      plan.runs);
  PrintRatioHeader();
}

void PrintRow(const std::string& name, const Row& row) {
  PrintRatioRow(name, row.cairn, row.raw, row.events_per_commit,
                row.value_bytes);
}

// The published figure next to a row: not a row itself (no two rates
// before its ratio), so report.sh and bench_chart.sh pass over it.
void PrintAnchor(Anchor anchor, const Row& row) {
  if (anchor == Anchor::kNone) return;
  const bool persist = anchor == Anchor::kPersistAsync;
  const double top = persist ? kAkkaPersistAsyncTop : kAkkaRecoveryTop;
  std::printf(
      "  %s: %s; cairn = %.1fx its top (goal >= %.0fx)\n", kAkkaName,
      persist ? "PersistAsync 4.5-12.7 k ev/s" : "recovery 78-115 k ev/s",
      row.cairn / top, kAkkaGoal);
}

// A recovery row's CPU per event, each side's best run: this process's
// and the server's, and the rate the server's alone allows on this
// machine's cores (a client sending cairn's statements could go no faster
// however little it cost). Not a row either.
void PrintCpu(const Row& row) {
  if (!row.cairn_cpu.has_value() || !row.raw_cpu.has_value()) return;
  auto side = [](const CpuPerEvent& cpu) {
    return absl::StrFormat("%.2f us here + %s", cpu.here,
                           cpu.server.has_value()
                               ? absl::StrFormat("%.2f us server", *cpu.server)
                               : std::string("server not measured"));
  };
  const unsigned cores = std::thread::hardware_concurrency();
  std::string bound;
  if (cores > 0 && row.cairn_cpu->server.has_value() &&
      *row.cairn_cpu->server > 0) {
    bound = absl::StrFormat(
        "; at cairn's server CPU per event, %u cores serve at most %.0fk ev/s",
        cores, cores * 1e3 / *row.cairn_cpu->server);
  }
  std::printf("  CPU per event: cairn %s; raw %s%s\n",
              side(*row.cairn_cpu).c_str(), side(*row.raw_cpu).c_str(),
              bound.c_str());
}

// Runs every selected case, also after one fails; 1 if any failed.
int Run(const Flags& flags) {
  const Plan& plan = flags.quick ? kQuickPlan : kFullPlan;
  std::unique_ptr<BenchServer> server;
  std::string url = flags.url;
  if (url.empty()) {
    absl::StatusOr<std::unique_ptr<BenchServer>> started = BenchServer::Start();
    if (absl::IsNotFound(started.status())) {
      std::printf("skipped: PostgreSQL is not installed: %s",
                  std::string(started.status().message()).c_str());
      return 0;
    }
    if (!started.ok()) {
      std::fprintf(stderr, "%s\n", started.status().ToString().c_str());
      return 1;
    }
    server = *std::move(started);
    url = server->url();
  }
  // One clear failure for a server that does not answer, not one per row.
  absl::StatusOr<std::string> version = QueryText(url, "SHOW server_version");
  if (!version.ok()) {
    std::fprintf(stderr, "%s\n", version.status().ToString().c_str());
    return 1;
  }
  PrintHeader(url, *version, server == nullptr ? "" : server->dir(), plan);
  std::fflush(stdout);
  int exit_code = 0;
  for (const Case& c : Cases(url, plan)) {
    if (c.name.find(flags.filter) == std::string::npos) continue;
    absl::StatusOr<Row> row = c.run();
    if (row.ok()) {
      PrintRow(c.name, *row);
      PrintAnchor(c.anchor, *row);
      PrintCpu(*row);
    } else {
      std::printf("%-40s FAILED: %s\n", c.name.c_str(),
                  row.status().ToString().c_str());
      exit_code = 1;
    }
    std::fflush(stdout);
  }
  return exit_code;
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  cairn::bench::InitBenchmark(
      argc, argv,
      "postgres_benchmark [--quick] [--filter SUBSTRING] [--url URL]");
  return cairn::bench::Run(cairn::bench::ReadFlags());
}
