#include "examples/bank/reading.h"

#include <cstdio>

#include "examples/bank/data_dir.h"

namespace cairn::examples::bank {

absl::Status CheckStoreToRead(const StoreLocation& store, const char* command) {
  if (store.on_postgres()) return absl::OkStatus();
  const DataDir& data = store.data;
  if (data.is_default) {
    std::fprintf(stderr, "%s: no --data given, using %s\n", command,
                 data.path.c_str());
  }
  if (absl::Status s = CheckReadableStore(data.path); !s.ok()) return s;
  // A read-only open would work beside a writer, but show the store as it
  // was at that moment, while deposits go on: the readers promise what a
  // store at rest holds. (PostgreSQL has no such check: beside a writer,
  // each account is read as it is when it is recovered, and a report
  // counts the movements committed when it runs.)
  return CheckNotInUse(data.path);
}

StoreOptions ReadOnlyStoreOptions(const StoreLocation& store) {
  return StoreOptions{store.data.path,
                      /*fsync=*/false,
                      /*create_if_missing=*/false,
                      /*read_only=*/true,
                      store.postgres_url,
                      store.schema};
}

}  // namespace cairn::examples::bank
