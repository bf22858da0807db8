#ifndef CAIRN_PERSISTENCE_STORAGE_PROJECTION_STORE_H_
#define CAIRN_PERSISTENCE_STORAGE_PROJECTION_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cairn::persistence {

// Names one projection, and one instance of it when several run over
// parts of the events (Akka's ProjectionId: a name and a key, for example
// the tag). Offsets are stored under it.
struct ProjectionId {
  std::string name;
  std::string key;

  friend bool operator==(const ProjectionId&, const ProjectionId&) = default;
};

// Where a projection is in its query: every envelope below `offset` is
// handled, and the first `envelopes` with `offset` (an event that a
// read-side adapter split into several envelopes gives several with one
// offset). {0, 0}: nothing handled yet. A projection resumes at the
// envelope after it.
struct ProjectionOffset {
  int64_t offset = 0;
  int64_t envelopes = 0;

  friend bool operator==(const ProjectionOffset&,
                         const ProjectionOffset&) = default;
};

// Commit's refusal (Aborted) when the stored offset of `id` is `found`,
// not the `expected` one where the step began.
absl::Status ProjectionOffsetConflict(const ProjectionId& id,
                                      ProjectionOffset found,
                                      ProjectionOffset expected);

class ProjectionStore;

// The writes of one exactly-once step: what the handler writes to the read
// model, committed by the projection in one atomic write together with
// its offset (ProjectionStore::Commit). Reads see the transaction's own
// writes over what is committed. Nothing reaches the store before Commit.
//
// Thread safety: one thread at a time (the projection's). The store that
// began it must outlive it.
class ProjectionTransaction {
 public:
  // What a Put (a value) or a Delete (nullopt) left for each key.
  using Writes = std::map<std::string, std::optional<std::string>, std::less<>>;

  // For ProjectionStore implementations' Begin.
  explicit ProjectionTransaction(const ProjectionStore* store)
      : store_(store) {}

  // The value of `key` (nullopt if none); the store's error if it cannot
  // be read.
  absl::StatusOr<std::optional<std::string>> Get(std::string_view key) const;
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);

  // For ProjectionStore implementations' Commit.
  const Writes& writes() const { return writes_; }

 private:
  const ProjectionStore* store_;
  Writes writes_;
};

// Where projections keep their offsets, and a key-value read model that
// exactly-once handlers write in the same atomic write as the offset
// (Akka Projections' exactly-once with the offset in the read model's own
// database). Implementations: RocksDbProjectionStore
// (persistence/rocksdb/rocksdb_projection_store.h), a RocksDB database of its
// own.
//
// Thread safety: every method from any thread. Ownership: shared by the
// projections that use it and the readers of the read model.
class ProjectionStore {
 public:
  virtual ~ProjectionStore() = default;

  // The stored offset of `id` ({0, 0} if none). DataLoss naming the
  // projection if the stored value cannot be read; Unavailable if the
  // store cannot be read.
  virtual absl::StatusOr<ProjectionOffset> ReadOffset(
      const ProjectionId& id) const = 0;
  // Stores `offset` for `id` (at-least-once: the handler's effects are
  // elsewhere). Unavailable with the store's reason if the write fails.
  virtual absl::Status SaveOffset(const ProjectionId& id,
                                  ProjectionOffset offset) = 0;

  // A transaction over the read model (see ProjectionTransaction).
  ProjectionTransaction Begin() const { return ProjectionTransaction(this); }
  // Writes `tx` and `offset` for `id` in one atomic write: both or
  // neither, and only if the stored offset of `id` is still `expected`
  // (where the step began: what the projection read or last committed).
  // Otherwise Aborted, naming the offset found, and nothing is stored: two
  // runs of one projection at once (two processes, or two instances) would
  // each apply the same events to the read model; the check lets one
  // commit and fails the other, which a restart resumes after the
  // winner's offset. Unavailable with the store's reason if the write
  // fails: then nothing of it is stored, except when a store on a server
  // lost its connection during the commit, whose outcome is then unknown
  // (the check makes a retry from `expected` safe: it is refused if the
  // first one committed).
  virtual absl::Status Commit(ProjectionTransaction tx, const ProjectionId& id,
                              ProjectionOffset expected,
                              ProjectionOffset offset) = 0;

  // The read model, as committed.
  virtual absl::StatusOr<std::optional<std::string>> Get(
      std::string_view key) const = 0;
  // Calls `fn` for each committed key starting with `prefix`, ascending
  // (bytewise), until it returns false. Unavailable if the store cannot be
  // read.
  virtual absl::Status ForEach(
      std::string_view prefix,
      const std::function<bool(std::string_view key, std::string_view value)>&
          fn) const = 0;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_PROJECTION_STORE_H_
