#ifndef CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_PROJECTION_STORE_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_PROJECTION_STORE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/storage/projection_store.h"

namespace cairn::persistence {

namespace postgres_internal {
class PgConnectionPool;
}  // namespace postgres_internal

// A ProjectionStore (persistence/storage/projection_store.h) in the
// journal's database and schema (docs/POSTGRESQL.md, "Projections"): the
// offsets in projection_offset, the read model in projection_model (bytea
// keys and values, ordered bytewise), so that projections running in any
// process share them and an exactly-once handler's writes commit with the
// offset in one PostgreSQL transaction.
//
// Every call is one round trip on a pooled connection (a Commit: its
// transaction, pipelined), blocking the caller for at most the options'
// call timeout. Errors: InvalidArgument for a projection id holding a NUL
// character (PostgreSQL's text cannot); Aborted for a Commit whose
// expected offset is not the stored one (nothing stored); the
// connection's otherwise (Unavailable, DeadlineExceeded): a failed Commit
// stored nothing, unless its connection was lost during its COMMIT, when
// whether it did is unknown (a retry from the same expected offset is
// then refused if it did).
//
// Thread safety: every method may be called from any thread.
class PostgresProjectionStore final : public ProjectionStore {
 public:
  // Connects once to make the schema's tables if missing (as the journal
  // does); the errors of RegisterPostgresPlugins' Create.
  [[nodiscard]] static absl::StatusOr<std::shared_ptr<ProjectionStore>> Open(
      const PostgresOptions& options);
  ~PostgresProjectionStore() override;
  PostgresProjectionStore(const PostgresProjectionStore&) = delete;
  PostgresProjectionStore& operator=(const PostgresProjectionStore&) = delete;

  absl::StatusOr<ProjectionOffset> ReadOffset(
      const ProjectionId& id) const override;
  absl::Status SaveOffset(const ProjectionId& id,
                          ProjectionOffset offset) override;
  absl::Status Commit(ProjectionTransaction tx, const ProjectionId& id,
                      ProjectionOffset expected,
                      ProjectionOffset offset) override;
  absl::StatusOr<std::optional<std::string>> Get(
      std::string_view key) const override;
  absl::Status ForEach(
      std::string_view prefix,
      const std::function<bool(std::string_view key, std::string_view value)>&
          fn) const override;

 private:
  explicit PostgresProjectionStore(
      std::unique_ptr<postgres_internal::PgConnectionPool> pool);

  std::unique_ptr<postgres_internal::PgConnectionPool> pool_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_PROJECTION_STORE_H_
