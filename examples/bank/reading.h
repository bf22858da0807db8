#ifndef CAIRN_EXAMPLES_BANK_READING_H_
#define CAIRN_EXAMPLES_BANK_READING_H_

// What the commands that only read the accounts (balances, report) share:
// they never change the store, and read it also while another process
// writes it.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/commands.h"

namespace cairn::examples::bank {

// BankSystem's options for reading a store, and what they need while it is
// open. Not copyable; destroy it after the BankSystem it started.
class StoreToRead {
 public:
  StoreToRead(StoreOptions options, std::string secondary_dir)
      : options_(std::move(options)),
        secondary_dir_(std::move(secondary_dir)) {}
  // Removes the secondary instance's directory, if one was made.
  ~StoreToRead();
  StoreToRead(const StoreToRead&) = delete;
  StoreToRead& operator=(const StoreToRead&) = delete;

  const StoreOptions& options() const { return options_; }

 private:
  const StoreOptions options_;
  const std::string secondary_dir_;
};

// On RocksDB: says which directory is read if it is the default one (on
// stderr, after `command`), then InvalidArgument unless it holds a store
// (CheckReadableStore). A store at rest is opened read-only (no file of it
// changes). One another process has open (a load, a serve: it holds the
// store's lock) is opened as a RocksDB secondary instance, with its state
// in a new directory under $TMPDIR (/tmp) removed at the end, and stderr
// says so: either way what is read is the store as it was at one moment,
// the open, while the writer goes on. On PostgreSQL: the schema, only
// read (Start makes its tables if they are missing); each account is read
// as it is when it is recovered. Unavailable if the directory for the
// secondary instance cannot be made.
[[nodiscard]] absl::StatusOr<std::unique_ptr<StoreToRead>> OpenStoreToRead(
    const StoreLocation& store, const char* command);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_READING_H_
