#ifndef CAIRN_PERSISTENCE_ROCKSDB_TESTING_STORE_FAMILIES_H_
#define CAIRN_PERSISTENCE_ROCKSDB_TESTING_STORE_FAMILIES_H_

// The column families of a cairn store, in the order the plugin opens them
// (persistence/rocksdb/internal/db.cc), with default options: for tests and
// benchmarks that open a store with RocksDB alone, which must name every
// family to open it for writing. One list, so that a family added to the
// store is added here once.

#include <vector>

#include "rocksdb/db.h"

namespace cairn::persistence::testing {

inline std::vector<rocksdb::ColumnFamilyDescriptor> StoreColumnFamilies() {
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const char* name :
       {rocksdb::kDefaultColumnFamilyName.c_str(), "events", "snapshots",
        "metadata", "tags", "ids", "names", "state", "state-tags"}) {
    families.push_back({name, rocksdb::ColumnFamilyOptions()});
  }
  return families;
}

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_ROCKSDB_TESTING_STORE_FAMILIES_H_
