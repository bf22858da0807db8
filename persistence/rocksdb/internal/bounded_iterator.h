#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_BOUNDED_ITERATOR_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_BOUNDED_ITERATOR_H_

#include <memory>
#include <string>
#include <utility>

#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"

namespace cairn::persistence::rocksdb_internal {

// An iterator of one column family whose bounds move: each read narrows
// them to its own key range before it positions the iterator, so that the
// reads of a visit (stream_read_queue.h) share one iterator, yet none
// sees, or makes RocksDB load a block of, a neighbouring stream: a
// damaged block of one stream fails only that stream's reads. RocksDB
// reads the bounds through the pointers in its ReadOptions at every
// positioning call; a table iterator may still judge a file by a bound it
// saw before, so a read also checks its keys against its range itself.
//
// Not copyable or movable (the iterator points at the bounds). Thread
// safety: one thread at a time, within one Db::Read visit.
class BoundedIterator {
 public:
  BoundedIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family) {
    options_.iterate_lower_bound = &lower_slice_;
    options_.iterate_upper_bound = &upper_slice_;
    it_.reset(db->NewIterator(options_, family));
  }
  BoundedIterator(const BoundedIterator&) = delete;
  BoundedIterator& operator=(const BoundedIterator&) = delete;

  // The iterator, bounded to [lower, upper) from its next positioning
  // call (Seek, SeekForPrev, SeekToFirst, SeekToLast) on.
  rocksdb::Iterator& Within(std::string lower, std::string upper) {
    lower_ = std::move(lower);
    upper_ = std::move(upper);
    lower_slice_ = rocksdb::Slice(lower_);
    upper_slice_ = rocksdb::Slice(upper_);
    return *it_;
  }

 private:
  std::string lower_;
  std::string upper_;
  rocksdb::Slice lower_slice_;
  rocksdb::Slice upper_slice_;
  rocksdb::ReadOptions options_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_BOUNDED_ITERATOR_H_
