#ifndef CAIRN_PERSISTENCE_STORAGE_WRITE_FENCE_H_
#define CAIRN_PERSISTENCE_STORAGE_WRITE_FENCE_H_

#include <cstdint>
#include <string>

namespace cairn::persistence {

// A lease a writer holds, with the fencing token it was granted with
// (docs/POSTGRESQL.md, "Leases and fencing"). A write, delete or snapshot
// save carrying it is applied only while the lease is still held with that
// token: a writer that lost its lease (paused, partitioned, expired) and
// was replaced can never change the store again, whatever it believes.
// journal.h and snapshot_store.h say which plugins check it.
struct WriteFence {
  std::string lease;  // the lease's name
  std::string owner;  // who holds it
  int64_t token = 0;  // the fencing token of the holding; grows per holding
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_WRITE_FENCE_H_
