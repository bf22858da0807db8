#ifndef CAIRN_EXAMPLES_BANK_ARGS_H_
#define CAIRN_EXAMPLES_BANK_ARGS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cairn::examples::bank {

inline constexpr char kUsage[] =
    R"(usage: bank COMMAND [--data DIR | --journal URL [--schema NAME]] [options]

Event-sourced bank accounts on cairn's embedded RocksDB journal in DIR
(default: $TMPDIR/cairn-bank, /tmp/cairn-bank without TMPDIR), or, with
--journal URL, on a PostgreSQL server (URL:
postgresql://USER@HOST:PORT/DATABASE or postgres://..., as libpq takes it;
keep a password out of it: libpq reads PGPASSWORD and ~/.pgpass), in the
schema NAME (default: bank; a lowercase identifier), made on first use.
The URL is never printed.

commands:
  demo       a short story: open accounts, deposit, withdraw (a withdrawal
             beyond the balance is refused), snapshot, then a simulated
             crash and the balances recovered by replay; run it again and
             it continues from the stored state
  load       --accounts N --ops M [--fsync]
             deposit i (0 <= i < M) of amount i+1 to account i % N, each one
             persisted event; prints "ack ACCOUNT AMOUNT" on stdout for every
             stored deposit, "failed ACCOUNT AMOUNT REASON" for every other
             (the reason says whether it may still be stored), and
             "<rate> events/s" on stderr (fsync is off unless --fsync); a
             failed deposit does not stop the load (its account starts
             again on the next one; on PostgreSQL, on a new connection),
             but the load exits 1 at the end. N is at most 1000000000;
             at most 20000 accounts are kept in memory (the least recently
             used are passivated, and recover on their next deposit)
  balances   prints "ACCOUNT BALANCE LAST_SEQ_NR" for every open account,
             sorted by account number; never changes the store (it opens
             it read-only; on PostgreSQL it only reads, though it makes
             the schema's tables if they are missing). A RocksDB store
             another process is writing is read as it was when balances
             opened it (a RocksDB secondary instance, its files in a
             temporary directory), as stderr says; on PostgreSQL each
             account is read as it is when it is recovered
  serve      [--owner NAME] [--lease-ttl SECONDS]
             hosts accounts for commands read from stdin, one per line,
             each with an id of the sender's (a word) first:
               ID open ACCOUNT | ID deposit ACCOUNT AMOUNT |
               ID withdraw ACCOUNT AMOUNT | ID balance ACCOUNT
             and answers each on stdout, in the order they complete:
               ID done ACCOUNT BALANCE LAST_SEQ_NR (stored, for a change)
               ID refused ACCOUNT REASON  (nothing changed)
               ID unavailable ACCOUNT REASON  (hosted by another process
                                            now; nothing changed)
               ID failed ACCOUNT REASON   (not done; the reason says
                                           whether it may be stored)
               ID unknown ACCOUNT REASON  (no answer in time; may have been
                                           stored)
               ID bad REASON              (a line it cannot read)
             It prints "ready" once it takes commands, and at the end of
             stdin it answers what it has, stops, and exits.
             With --journal, several processes may serve one bank: each
             shard of accounts is held by one process at a time on a lease
             in the database, renewed every third of the lease's time
             (--lease-ttl, default 10 s); a process that dies keeps its
             shards from the others for at most that long; one that lost
             its lease (paused past it) can store nothing more. --owner
             names this process as a lease holder, and must be unique
             among the live processes (default: an id unique to it)
             [--listen HOST:PORT [--member-ttl SECONDS]] (with --journal)
             makes the process a member of a cluster at that address
             (port 0: a free one), its members and leases in the
             journal's database: any process then takes a command for
             any account and sends it where the account lives. A member
             silent for --member-ttl (default 10 s; keep --lease-ttl no
             longer) is removed and its shards taken over; one removed
             while it runs (paused past it) stops, exit 1. --owner
             cannot be given with it: the member holds the leases
             [--answer-timeout SECONDS] a command unanswered that long is
             answered "unknown" (default 60)
  report     a read model kept by a projection over the tagged deposits
             and withdrawals: "total ACCOUNT DEPOSITED WITHDRAWN MOVEMENTS"
             for every account with movements, then "largest RANK KIND
             AMOUNT ACCOUNT" for the ten largest movements; it is kept in
             DIR/report (with --journal: in the schema's projection
             tables) and brought up to date incrementally: each run
             handles only the movements stored since the last one (how
             many, on stderr); the accounts' store is opened read-only,
             or beside a writer read as it was at the open, as for
             balances (on PostgreSQL it only reads the events; of two
             reports at once on a schema, one may fail: run it again)
  deposits   --listen HOST:PORT --name NAME --accounts N --ops M
             [--member-ttl SECONDS] [--redeliver-interval DURATION]
             (with --journal) a client in the cluster of `serve --listen`
             processes, hosting no account: opens accounts 0 to N-1, then
             deposits i+1 to account i % N for every i below M, each one
             persisted in the journal (stream deposits-NAME) before it is
             sent, and sent again every --redeliver-interval (default 5s)
             until its account answers; each deposit carries an id the
             account stores once, so none is lost or counted twice.
             Prints "confirmed DELIVERY_ID ACCOUNT AMOUNT BALANCE" (or
             "refused DELIVERY_ID ACCOUNT AMOUNT REASON") per deposit, and
             exits 0 once all are confirmed; run again with the same
             NAME, it goes on from where it stopped (one run per NAME at
             a time)
  help       this text

Each flag may be given once. Recoveries show a progress bar on a terminal
and are waited for as long as they progress.

exit status: 0 done, 1 failed (e.g. a corrupt store, a recovery that
stopped, a load with failed deposits), 2 bad arguments or an unusable data directory (e.g. a
read-only store for demo and load)
)";

struct Args {
  enum class Command {
    kDemo,
    kLoad,
    kBalances,
    kServe,
    kReport,
    kDeposits,
    kHelp
  };
  Command command = Command::kHelp;
  std::string data;  // --data; empty if not given
  // --journal: a postgresql:// or postgres:// URL, empty if not given.
  // Never printed: it may hold a password.
  std::string journal;
  std::string schema;  // --schema; empty if not given
  int64_t accounts = 0;
  int64_t ops = 0;
  bool fsync = false;
  std::string owner;               // --owner; empty if not given
  int64_t lease_ttl_seconds = 10;  // --lease-ttl
  // --listen HOST:PORT; listen_host empty if not given.
  std::string listen_host;
  int listen_port = 0;
  int64_t member_ttl_seconds = 10;      // --member-ttl
  int64_t answer_timeout_seconds = 60;  // --answer-timeout
  std::string name;                     // --name; empty if not given
  absl::Duration redeliver_interval = absl::Seconds(5);  // --redeliver-interval
};

// The bounds of --accounts and --ops: account numbers are below
// kMaxAccounts (so at most nine digits in their persistence ids), and the
// amounts (up to --ops) must sum without overflow. The accounts in memory
// are bounded by the bank's active-account limit (bank_system.h): the
// least recently used are passivated (examples/bank/README.md, "Memory",
// says what a passivated account still costs).
inline constexpr int64_t kMaxAccounts = 1000000000;
inline constexpr int64_t kMaxOps = 1000000000;
inline constexpr int64_t kMaxLeaseTtlSeconds = 3600;

// Parses `bank COMMAND [flags]`; flags are `--name value` or
// `--name=value`. InvalidArgument, with a one-line message, for an unknown
// command or flag, a flag the command does not take, a missing or bad
// value, --data with --journal, --schema without it, --owner or
// --lease-ttl without --journal, --listen without --journal, --owner with
// --listen, --member-ttl without --listen, deposits without its flags. No
// message holds the --journal value.
[[nodiscard]] absl::StatusOr<Args> ParseArgs(int argc, const char* const* argv);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_ARGS_H_
