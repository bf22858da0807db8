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
};
// Hosts the accounts for the commands on stdin ("ID VERB ACCOUNT
// [AMOUNT]" lines), answering each on stdout (args.h's usage says how),
// until the end of stdin. On PostgreSQL with leases: several processes
// may serve one bank.
[[nodiscard]] absl::Status RunServe(const StoreLocation& store,
                                    const ServeOptions& options);

// "total ACCOUNT DEPOSITED WITHDRAWN MOVEMENTS" lines, then "largest RANK
// KIND AMOUNT ACCOUNT" lines, from the read model, which a projection
// brings up to date first (how many movements, on stderr). The model and
// its offset are kept beside the events they follow: in DIR/report (the
// store opened read-only), or in the PostgreSQL schema
// (PostgresProjectionStore).
[[nodiscard]] absl::Status RunReport(const StoreLocation& store);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_COMMANDS_H_
