#ifndef CAIRN_EXAMPLES_BANK_COMMANDS_H_
#define CAIRN_EXAMPLES_BANK_COMMANDS_H_

// The bank's subcommands. Each returns InvalidArgument for a problem with
// its input (the CLI's exit code 2) and another error when the work itself
// fails (exit code 1), with a message for the user.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "examples/bank/data_dir.h"

namespace cairn::examples::bank {

// Where the accounts are: the RocksDB store in `data`, or, given a
// postgres_url (libpq's connection string), `schema` of that PostgreSQL
// server, and `data` is not used.
struct StoreLocation {
  DataDir data;
  std::string postgres_url;  // never printed: it may hold a password
  std::string schema = "bank";
  bool on_postgres() const { return !postgres_url.empty(); }
};

// The scripted story, on stdout.
[[nodiscard]] absl::Status RunDemo(const StoreLocation& store);

struct LoadOptions {
  int64_t accounts = 1;
  int64_t ops = 0;
  bool fsync = false;
};
// Acks on stdout, the rate (and, on a terminal, a progress bar) on stderr.
[[nodiscard]] absl::Status RunLoad(const StoreLocation& store,
                                   const LoadOptions& options);

// "ACCOUNT BALANCE LAST_SEQ_NR" lines on stdout.
[[nodiscard]] absl::Status RunBalances(const StoreLocation& store);

struct ServeOptions {
  // On PostgreSQL: the lease holder's name (empty: unique to the process)
  // and how long a lease lasts without renewal (StoreOptions::lease_ttl).
  std::string owner;
  absl::Duration lease_ttl = absl::Seconds(10);
  // On PostgreSQL: a cluster member reachable at listen_host:listen_port
  // (ClusterOptions in bank_system.h; empty host: not a member), no owner.
  std::string listen_host;
  int listen_port = 0;
  absl::Duration member_ttl = absl::Seconds(10);
  // A command not answered in this long is answered "unknown".
  absl::Duration answer_timeout = absl::Seconds(60);
};
// Hosts the accounts for the commands on stdin ("ID VERB ACCOUNT
// [AMOUNT]" lines), answering each on stdout (args.h's usage says how),
// until the end of stdin. On PostgreSQL with leases: several processes
// may serve one bank; as cluster members, each takes commands for every
// account. A member removed from the cluster (paused past member-ttl)
// stops reading, answers what it has, and returns Unavailable saying so.
[[nodiscard]] absl::Status RunServe(const StoreLocation& store,
                                    const ServeOptions& options);

struct DepositsOptions {
  std::string name;  // the client's: its persistence id is deposits-<name>
  int64_t accounts = 1;
  int64_t ops = 0;
  std::string listen_host;
  int listen_port = 0;
  absl::Duration member_ttl = absl::Seconds(10);
  // A deposit not answered in this long is sent again
  // (akka.persistence.at-least-once-delivery.redeliver-interval).
  absl::Duration redeliver_interval = absl::Seconds(5);
};
// Opens accounts 0 to accounts-1, then deposits i+1 to account
// i % accounts for every i below ops, each delivered at least once (an
// AtLeastOnceDelivery actor, its state in the journal) through a proxy
// member of the cluster, and deduplicated by the accounts; prints
// "confirmed DELIVERY_ID ACCOUNT AMOUNT BALANCE" for each as its account
// confirms it. Run again with the same name, it goes on from where the
// last run stopped. README.md, "Several processes in a cluster".
[[nodiscard]] absl::Status RunDeposits(const StoreLocation& store,
                                       const DepositsOptions& options);

// "total ACCOUNT DEPOSITED WITHDRAWN MOVEMENTS" lines, then "largest RANK
// KIND AMOUNT ACCOUNT" lines, from the read model, which a projection
// brings up to date first (how many movements, on stderr). The model and
// its offset are kept beside the events they follow: in DIR/report (the
// store opened read-only), or in the PostgreSQL schema
// (PostgresProjectionStore).
[[nodiscard]] absl::Status RunReport(const StoreLocation& store);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_COMMANDS_H_
