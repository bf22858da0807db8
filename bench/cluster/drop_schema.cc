#include "bench/cluster/drop_schema.h"

#include <postgresql/libpq-fe.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace cairn::bench::cluster {

absl::Status DropSchema(const std::string& url, const std::string& schema) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> connection(
      PQconnectdb(url.c_str()), &PQfinish);
  if (connection == nullptr || PQstatus(connection.get()) != CONNECTION_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot connect to PostgreSQL: ",
                     connection == nullptr ? "out of memory"
                                           : PQerrorMessage(connection.get())));
  }
  // Notices ("... does not exist, skipping") would go to stderr.
  PQsetNoticeProcessor(
      connection.get(), [](void*, const char*) {}, nullptr);
  std::unique_ptr<PGresult, decltype(&PQclear)> result(
      PQexec(connection.get(),
             absl::StrCat("DROP SCHEMA IF EXISTS \"", schema, "\" CASCADE")
                 .c_str()),
      &PQclear);
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    return absl::InternalError(absl::StrCat("dropping schema ", schema, ": ",
                                            PQerrorMessage(connection.get())));
  }
  return absl::OkStatus();
}

}  // namespace cairn::bench::cluster
