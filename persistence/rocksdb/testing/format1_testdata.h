#ifndef CAIRN_PERSISTENCE_ROCKSDB_TESTING_FORMAT1_TESTDATA_H_
#define CAIRN_PERSISTENCE_ROCKSDB_TESTING_FORMAT1_TESTDATA_H_

#include <string>

#include "absl/status/status.h"

namespace cairn::persistence::testing {

// Copies the store kept in persistence/rocksdb/testdata/format1 (written
// with event format version 1 by write_format1_store; its README says what
// it holds) to `to`, a directory that must not exist yet, for a test to
// open. The test data is never opened in place: RocksDB writes to the
// directory of a store it opens read-write. Found in the test's runfiles
// ($TEST_SRCDIR/$TEST_WORKSPACE, else the working directory, which is
// where `bazel test` starts a test). NotFound naming the place looked at
// if the data is not there; Unavailable if a copy fails.
absl::Status CopyFormat1Store(const std::string& to);

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_ROCKSDB_TESTING_FORMAT1_TESTDATA_H_
