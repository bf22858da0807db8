#include "persistence/postgresql/internal/postgres_connection_pool.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/mutex.h"
#include "base/string_view.h"

namespace cairn::persistence::postgres_internal {

PgConnectionPool::PgConnectionPool(PgConnectionSettings settings, Setup setup,
                                   PgReconnectBackoff backoff, Now now)
    : settings_(std::move(settings)),
      setup_(std::move(setup)),
      backoff_(backoff),
      now_(std::move(now)) {}

absl::StatusOr<std::unique_ptr<PgConnection>> PgConnectionPool::Acquire() {
  {
    base::MutexLock lock(&mu_);
    if (!idle_.empty()) {
      std::unique_ptr<PgConnection> connection = std::move(idle_.back());
      idle_.pop_back();
      return connection;
    }
    const absl::Time now = now_();
    if (now < next_attempt_) {
      return absl::UnavailableError(
          base::StrCat("PostgreSQL: not connected; next attempt in ",
                       absl::FormatDuration(next_attempt_ - now),
                       " (last error: ", last_error_.message(), ")"));
    }
  }
  absl::StatusOr<std::unique_ptr<PgConnection>> made =
      PgConnection::Connect(settings_);
  if (made.ok() && setup_) {
    if (absl::Status s = setup_(**made); !s.ok()) made = s;
  }
  base::MutexLock lock(&mu_);
  if (made.ok()) {
    delay_ = absl::ZeroDuration();
    next_attempt_ = absl::InfinitePast();
    return made;
  }
  delay_ = delay_ == absl::ZeroDuration() ? backoff_.min
                                          : std::min(delay_ * 2, backoff_.max);
  next_attempt_ = now_() + delay_;
  last_error_ = absl::Status(made.status().code(), made.status().message());
  return made.status();
}

void PgConnectionPool::Release(std::unique_ptr<PgConnection> connection) {
  if (connection == nullptr) return;
  base::MutexLock lock(&mu_);
  if (connection->broken()) {
    idle_.clear();
    return;
  }
  idle_.push_back(std::move(connection));
}

absl::Status PgConnectionPool::Run(
    absl::FunctionRef<absl::Status(PgConnection&)> call,
    absl::FunctionRef<bool()> may_repeat) {
  absl::Status status;
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::StatusOr<std::unique_ptr<PgConnection>> connection = Acquire();
    if (!connection.ok()) return connection.status();
    status = call(**connection);
    const bool lost = !status.ok() && (*connection)->broken();
    Release(*std::move(connection));
    if (!lost || !may_repeat()) break;
  }
  return status;
}

}  // namespace cairn::persistence::postgres_internal
