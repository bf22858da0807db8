#include "persistence/rocksdb/rocksdb_projection_store.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/mutex.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"

namespace cairn::persistence {
namespace {

constexpr char kOffsetsFamily[] = "projection_offsets";
constexpr char kOffsetVersion = 1;
constexpr std::size_t kOffsetValueSize = 1 + 8 + 8;

void AppendBigEndian(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

uint64_t ReadBigEndian(std::string_view in) {
  uint64_t v = 0;
  for (char c : in) v = (v << 8) | static_cast<unsigned char>(c);
  return v;
}

// The name's length first, so that no two (name, key) pairs share a key.
std::string OffsetKey(const ProjectionId& id) {
  std::string key;
  AppendBigEndian(key, id.name.size(), 4);
  key += id.name;
  key += id.key;
  return key;
}

std::string OffsetValue(ProjectionOffset offset) {
  std::string value(1, kOffsetVersion);
  AppendBigEndian(value, static_cast<uint64_t>(offset.offset), 8);
  AppendBigEndian(value, static_cast<uint64_t>(offset.envelopes), 8);
  return value;
}

std::string Describe(const ProjectionId& id) {
  return absl::StrCat("projection '", id.name, "' (key '", id.key, "')");
}

absl::Status Unavailable(const std::string& what, const rocksdb::Status& s) {
  return absl::UnavailableError(absl::StrCat(what, ": ", s.ToString()));
}

}  // namespace

absl::StatusOr<std::shared_ptr<ProjectionStore>> RocksDbProjectionStore::Open(
    const std::string& dir, Options options) {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options.create_if_missing;
  db_options.create_missing_column_families = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {kOffsetsFamily, rocksdb::ColumnFamilyOptions()}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s =
      rocksdb::DB::Open(db_options, dir, families, &handles, &raw);
  if (!s.ok()) {
    return Unavailable(
        absl::StrCat("cannot open the projection store in ", dir), s);
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  // The default family's handle is the database's own.
  db->DestroyColumnFamilyHandle(handles[0]).PermitUncheckedError();
  return std::shared_ptr<ProjectionStore>(
      new RocksDbProjectionStore(std::move(db), handles[1], options, dir));
}

RocksDbProjectionStore::RocksDbProjectionStore(
    std::unique_ptr<rocksdb::DB> db, rocksdb::ColumnFamilyHandle* offsets,
    Options options, std::string dir)
    : db_(std::move(db)),
      offsets_(offsets),
      options_(options),
      dir_(std::move(dir)) {}

RocksDbProjectionStore::~RocksDbProjectionStore() {
  db_->DestroyColumnFamilyHandle(offsets_).PermitUncheckedError();
  db_->Close().PermitUncheckedError();
}

absl::StatusOr<ProjectionOffset> RocksDbProjectionStore::ReadOffset(
    const ProjectionId& id) const {
  std::string value;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), offsets_, OffsetKey(id), &value);
  if (s.IsNotFound()) return ProjectionOffset{};
  if (!s.ok()) {
    return Unavailable(
        absl::StrCat("reading the offset of ", Describe(id), " in ", dir_), s);
  }
  if (value.size() != kOffsetValueSize || value[0] != kOffsetVersion) {
    return absl::DataLossError(
        absl::StrCat("the stored offset of ", Describe(id), " in ", dir_,
                     " cannot be read (", value.size(), " bytes, expected ",
                     kOffsetValueSize, " of version ",
                     static_cast<int>(kOffsetVersion), ")"));
  }
  std::string_view v(value);
  return ProjectionOffset{static_cast<int64_t>(ReadBigEndian(v.substr(1, 8))),
                          static_cast<int64_t>(ReadBigEndian(v.substr(9, 8)))};
}

absl::Status RocksDbProjectionStore::SaveOffset(const ProjectionId& id,
                                                ProjectionOffset offset) {
  rocksdb::WriteOptions write;
  write.sync = options_.sync;
  rocksdb::Status s =
      db_->Put(write, offsets_, OffsetKey(id), OffsetValue(offset));
  if (!s.ok()) {
    return Unavailable(
        absl::StrCat("saving the offset of ", Describe(id), " in ", dir_), s);
  }
  return absl::OkStatus();
}

absl::Status RocksDbProjectionStore::Commit(ProjectionTransaction tx,
                                            const ProjectionId& id,
                                            ProjectionOffset expected,
                                            ProjectionOffset offset) {
  // Commits of one id take turns: the offset checked is the one the write
  // replaces. (Of other ids they need not: a stripe per id's hash.)
  base::MutexLock lock(
      &commit_mu_[std::hash<std::string>()(OffsetKey(id)) % commit_mu_.size()]);
  absl::StatusOr<ProjectionOffset> stored = ReadOffset(id);
  if (!stored.ok()) return stored.status();
  if (*stored != expected)
    return ProjectionOffsetConflict(id, *stored, expected);
  rocksdb::WriteBatch batch;
  rocksdb::Status s;
  for (const auto& [key, value] : tx.writes()) {
    s = value.has_value() ? batch.Put(key, *value) : batch.Delete(key);
    if (!s.ok()) break;
  }
  if (s.ok()) s = batch.Put(offsets_, OffsetKey(id), OffsetValue(offset));
  rocksdb::WriteOptions write;
  write.sync = options_.sync;
  if (s.ok()) s = db_->Write(write, &batch);
  if (!s.ok()) {
    return Unavailable(absl::StrCat("committing ", Describe(id), " in ", dir_),
                       s);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> RocksDbProjectionStore::Get(
    std::string_view key) const {
  std::string value;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), db_->DefaultColumnFamily(),
               rocksdb::Slice(key.data(), key.size()), &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) {
    return Unavailable(absl::StrCat("reading the projection store in ", dir_),
                       s);
  }
  return value;
}

absl::Status RocksDbProjectionStore::ForEach(
    std::string_view prefix,
    const std::function<bool(std::string_view key, std::string_view value)>& fn)
    const {
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), db_->DefaultColumnFamily()));
  const rocksdb::Slice p(prefix.data(), prefix.size());
  for (it->Seek(p); it->Valid() && it->key().starts_with(p); it->Next()) {
    if (!fn(std::string_view(it->key().data(), it->key().size()),
            std::string_view(it->value().data(), it->value().size()))) {
      break;
    }
  }
  if (!it->status().ok()) {
    return Unavailable(absl::StrCat("reading the projection store in ", dir_),
                       it->status());
  }
  return absl::OkStatus();
}

}  // namespace cairn::persistence
