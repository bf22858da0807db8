#include "bench/persistence/raw_db.h"

#include "absl/strings/str_cat.h"
#include "persistence/rocksdb/testing/store_families.h"

namespace cairn::bench {
namespace {

constexpr char kLayoutVersionKey[] = "cairn.storage.layout-version";

}  // namespace

absl::Status RocksDbFailure(const rocksdb::Status& status,
                            const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", status.ToString()));
}

absl::StatusOr<std::unique_ptr<RawDb>> RawDb::Open(
    const std::string& dir, const rocksdb::DBOptions& options, bool read_only) {
  const std::vector<rocksdb::ColumnFamilyDescriptor> families =
      persistence::testing::StoreColumnFamilies();
  std::unique_ptr<RawDb> raw(new RawDb());
  rocksdb::DB* db = nullptr;
  rocksdb::Status status =
      read_only
          ? rocksdb::DB::OpenForReadOnly(options, dir, families, &raw->handles_,
                                         &db)
          : rocksdb::DB::Open(options, dir, families, &raw->handles_, &db);
  if (!status.ok())
    return RocksDbFailure(status, absl::StrCat("opening ", dir));
  raw->db_.reset(db);
  return raw;
}

absl::StatusOr<std::unique_ptr<RawDb>> RawDb::Create(const std::string& dir) {
  rocksdb::DBOptions options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  absl::StatusOr<std::unique_ptr<RawDb>> raw =
      Open(dir, options, /*read_only=*/false);
  if (!raw.ok()) return raw.status();
  rocksdb::WriteOptions sync;
  sync.sync = true;
  rocksdb::DB& db = (*raw)->db();
  rocksdb::Status layout =
      db.Put(sync, db.DefaultColumnFamily(), kLayoutVersionKey, "2");
  if (!layout.ok()) {
    return RocksDbFailure(layout, "writing the layout version");
  }
  return raw;
}

RawDb::~RawDb() {
  if (db_ == nullptr) return;  // the open failed
  for (rocksdb::ColumnFamilyHandle* handle : handles_) {
    db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  db_->Close().PermitUncheckedError();
}

}  // namespace cairn::bench
