#ifndef CAIRN_EXAMPLES_BANK_READING_H_
#define CAIRN_EXAMPLES_BANK_READING_H_

// What the commands that only read the accounts (balances, report) share:
// a store at rest, which they never change.

#include "absl/status/status.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/commands.h"

namespace cairn::examples::bank {

// On RocksDB: says which directory is read if it is the default one (on
// stderr, after `command`), then InvalidArgument unless it holds a store
// (CheckReadableStore) and FailedPrecondition if another process has it
// open (CheckNotInUse). On PostgreSQL: OK, nothing checked (a schema has
// no lock to test).
[[nodiscard]] absl::Status CheckStoreToRead(const StoreLocation& store,
                                            const char* command);

// BankSystem's options for `store` opened read-only (RocksDB: no file of
// it changes), or only read (PostgreSQL, which has no read-only open:
// Start makes the schema's tables if they are missing).
StoreOptions ReadOnlyStoreOptions(const StoreLocation& store);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_READING_H_
