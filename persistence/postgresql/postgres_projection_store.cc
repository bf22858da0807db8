#include "persistence/postgresql/postgres_projection_store.h"

#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/postgresql/internal/postgres_connection_pool.h"
#include "persistence/postgresql/internal/postgres_schema.h"
#include "persistence/postgresql/internal/postgres_settings.h"

namespace cairn::persistence {
namespace {

using postgres_internal::PgConnection;
using postgres_internal::PgParams;
using postgres_internal::PgResult;
using postgres_internal::PgStatement;

constexpr char kReadOffset[] = "read_offset";
constexpr char kSaveOffset[] = "save_offset";
constexpr char kAdvanceOffset[] = "advance_offset";
constexpr char kGet[] = "get";
constexpr char kPutAll[] = "put_all";
constexpr char kDeleteAll[] = "delete_all";
constexpr char kPageFrom[] = "page_from";
constexpr char kPageBetween[] = "page_between";

// ForEach reads the model in pages of this many rows, so a large model is
// never in memory at once.
constexpr int kPageRows = 1000;

constexpr PgStatement kStatements[] = {
    {kReadOffset,
     "SELECT last_offset, envelopes FROM projection_offset "
     "WHERE name = $1 AND key = $2"},
    {kSaveOffset,
     "INSERT INTO projection_offset (name, key, last_offset, envelopes) "
     "VALUES ($1, $2, $3, $4) ON CONFLICT (name, key) DO UPDATE SET "
     "last_offset = EXCLUDED.last_offset, envelopes = EXCLUDED.envelopes"},
    {kAdvanceOffset, "SELECT cairn_advance_projection($1, $2, $3, $4, $5, $6)"},
    {kGet, "SELECT value FROM projection_model WHERE key = $1"},
    // A transaction's keys are distinct (ProjectionTransaction::Writes).
    {kPutAll,
     "INSERT INTO projection_model (key, value) "
     "SELECT * FROM unnest($1::bytea[], $2::bytea[]) "
     "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"},
    {kDeleteAll, "DELETE FROM projection_model WHERE key = ANY($1::bytea[])"},
    {kPageFrom,
     "SELECT key, value FROM projection_model WHERE key >= $1 ORDER BY key "
     "LIMIT 1000"},
    {kPageBetween,
     "SELECT key, value FROM projection_model WHERE key >= $1 AND key < $2 "
     "ORDER BY key LIMIT 1000"},
};

std::string Describe(const ProjectionId& id) {
  return base::StrCat("projection '", id.name, "' (key '", id.key, "')");
}

// A failed read of the model, with its cause.
absl::Status ModelReadError(const absl::Status& cause) {
  return absl::Status(
      cause.code(),
      base::StrCat("reading the projection model: ", cause.message()));
}

// The first key after every key starting with `prefix`, bytewise; nullopt
// if there is none (an empty prefix, or one of 0xff bytes only).
std::optional<std::string> PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) {
    end.pop_back();
  }
  if (end.empty()) return std::nullopt;
  end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

}  // namespace

absl::StatusOr<std::shared_ptr<ProjectionStore>> PostgresProjectionStore::Open(
    const PostgresOptions& options) {
  absl::StatusOr<std::unique_ptr<postgres_internal::PgConnectionPool>> pool =
      postgres_internal::OpenPgPool(options, kStatements);
  if (!pool.ok()) return pool.status();
  return std::shared_ptr<ProjectionStore>(
      new PostgresProjectionStore(*std::move(pool)));
}

PostgresProjectionStore::PostgresProjectionStore(
    std::unique_ptr<postgres_internal::PgConnectionPool> pool)
    : pool_(std::move(pool)) {}

PostgresProjectionStore::~PostgresProjectionStore() = default;

absl::StatusOr<ProjectionOffset> PostgresProjectionStore::ReadOffset(
    const ProjectionId& id) const {
  ProjectionOffset offset;
  absl::Status status = pool_->Run(
      [&](PgConnection& connection) {
        absl::StatusOr<PgResult> row = connection.ExecutePrepared(
            kReadOffset, PgParams().Text(id.name).Text(id.key));
        if (!row.ok()) return row.status();
        if (row->rows() == 1) {
          offset = ProjectionOffset{row->Int64(0, 0), row->Int64(0, 1)};
        }
        return absl::OkStatus();
      },
      [] { return true; });
  if (!status.ok()) {
    return absl::Status(status.code(),
                        base::StrCat("reading the offset of ", Describe(id),
                                     ": ", status.message()));
  }
  return offset;
}

absl::Status PostgresProjectionStore::SaveOffset(const ProjectionId& id,
                                                 ProjectionOffset offset) {
  absl::Status status = pool_->Run(
      [&](PgConnection& connection) {
        return connection
            .ExecutePrepared(kSaveOffset, PgParams()
                                              .Text(id.name)
                                              .Text(id.key)
                                              .Int64(offset.offset)
                                              .Int64(offset.envelopes))
            .status();
      },
      // Storing the same offset again changes nothing.
      [] { return true; });
  if (!status.ok()) {
    return absl::Status(
        status.code(), base::StrCat("saving the offset of ", Describe(id), ": ",
                                    status.message()));
  }
  return absl::OkStatus();
}

absl::Status PostgresProjectionStore::Commit(ProjectionTransaction tx,
                                             const ProjectionId& id,
                                             ProjectionOffset expected,
                                             ProjectionOffset offset) {
  // Checked before anything is sent, for a clear error.
  if (absl::Status s =
          postgres_internal::CheckPgText("a projection name", id.name);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          postgres_internal::CheckPgText("a projection key", id.key);
      !s.ok()) {
    return s;
  }
  std::vector<std::string_view> put_keys;
  std::vector<std::string_view> put_values;
  std::vector<std::string_view> deleted;
  for (const auto& [key, value] : tx.writes()) {
    if (value.has_value()) {
      put_keys.push_back(key);
      put_values.push_back(*value);
    } else {
      deleted.push_back(key);
    }
  }
  absl::Status status = pool_->Run(
      [&](PgConnection& connection) -> absl::Status {
        // One transaction in one round trip; on an error nothing of it is
        // stored (FlushTransaction rolls it back).
        absl::Status queued;
        auto keep = [&queued](absl::Status s) {
          if (queued.ok()) queued = std::move(s);
        };
        keep(connection.QueueStatement("BEGIN"));
        // First: its row lock makes commits of the projection take turns.
        keep(connection.QueuePrepared(kAdvanceOffset,
                                      PgParams()
                                          .Text(id.name)
                                          .Text(id.key)
                                          .Int64(expected.offset)
                                          .Int64(expected.envelopes)
                                          .Int64(offset.offset)
                                          .Int64(offset.envelopes)));
        if (!put_keys.empty()) {
          keep(connection.QueuePrepared(
              kPutAll, PgParams().BytesArray(put_keys).BytesArray(put_values)));
        }
        if (!deleted.empty()) {
          keep(connection.QueuePrepared(kDeleteAll,
                                        PgParams().BytesArray(deleted)));
        }
        keep(connection.QueueStatement("COMMIT"));
        absl::StatusOr<std::vector<absl::StatusOr<PgResult>>> results =
            connection.FlushTransaction(queued);
        if (!results.ok()) return results.status();
        for (const absl::StatusOr<PgResult>& r : *results) {
          if (!r.ok()) return r.status();
        }
        return absl::OkStatus();
      },
      // A commit whose connection was lost may have committed: not again.
      [] { return false; });
  if (postgres_internal::PgSqlState(status) ==
      postgres_internal::kProjectionMovedSqlState) {
    std::vector<std::string> found =
        absl::StrSplit(postgres_internal::PgPrimaryMessage(status), ' ');
    ProjectionOffset stored;
    if (found.size() == 2 && absl::SimpleAtoi(found[0], &stored.offset) &&
        absl::SimpleAtoi(found[1], &stored.envelopes)) {
      return ProjectionOffsetConflict(id, stored, expected);
    }
  }
  if (!status.ok()) {
    return absl::Status(status.code(), base::StrCat("committing ", Describe(id),
                                                    ": ", status.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> PostgresProjectionStore::Get(
    std::string_view key) const {
  std::optional<std::string> value;
  absl::Status status = pool_->Run(
      [&](PgConnection& connection) {
        absl::StatusOr<PgResult> row =
            connection.ExecutePrepared(kGet, PgParams().Bytes(key));
        if (!row.ok()) return row.status();
        if (row->rows() == 1) value = std::string(row->Bytes(0, 0));
        return absl::OkStatus();
      },
      [] { return true; });
  if (!status.ok()) return ModelReadError(status);
  return value;
}

absl::Status PostgresProjectionStore::ForEach(
    std::string_view prefix,
    const std::function<bool(std::string_view key, std::string_view value)>& fn)
    const {
  const std::optional<std::string> end = PrefixEnd(prefix);
  std::string from(prefix);
  while (true) {
    std::vector<std::pair<std::string, std::string>> page;
    absl::Status status = pool_->Run(
        [&](PgConnection& connection) {
          page.clear();
          PgParams params;
          params.Bytes(from);
          if (end.has_value()) params.Bytes(*end);
          absl::StatusOr<PgResult> rows = connection.ExecutePrepared(
              end.has_value() ? kPageBetween : kPageFrom, params);
          if (!rows.ok()) return rows.status();
          for (int i = 0; i < rows->rows(); ++i) {
            page.emplace_back(rows->Bytes(i, 0), rows->Bytes(i, 1));
          }
          return absl::OkStatus();
        },
        [] { return true; });
    if (!status.ok()) return ModelReadError(status);
    // Outside the connection: `fn` may call the store.
    for (const auto& [key, value] : page) {
      if (!fn(key, value)) return absl::OkStatus();
    }
    if (static_cast<int>(page.size()) < kPageRows) return absl::OkStatus();
    // The first key after the last one read, bytewise.
    from = page.back().first + std::string(1, '\0');
  }
}

}  // namespace cairn::persistence
