#include "persistence/postgresql/internal/postgres_listener.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <utility>

#include "base/string_view.h"

namespace cairn::persistence::postgres_internal {
namespace {

// FNV-1a, 64 bits: a hash every process computes alike (absl::Hash is
// seeded per process, so two processes would pick different channels).
uint64_t Fnv1a64(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

absl::Status CheckChannel(std::string_view channel) {
  if (channel.empty() || channel.size() > kMaxPgChannelBytes) {
    return absl::InvalidArgumentError(
        base::StrCat("PostgreSQL channel '", channel, "': must have 1 to ",
                     kMaxPgChannelBytes, " bytes"));
  }
  return CheckPgText(base::StrCat("PostgreSQL channel '", channel, "'"),
                     channel);
}

// A new connection that LISTENs on the channel.
absl::StatusOr<std::unique_ptr<PgConnection>> Listen(
    const PgListenerOptions& options) {
  absl::StatusOr<std::unique_ptr<PgConnection>> connection =
      options.connect(options.settings);
  if (!connection.ok()) return connection.status();
  absl::StatusOr<PgResult> listening =
      (*connection)
          ->Execute(base::StrCat("LISTEN ", QuoteIdentifier(options.channel)));
  if (!listening.ok()) return listening.status();
  return connection;
}

// poll's timeout for `duration`: whole milliseconds, rounded up (a
// positive wait never becomes a busy loop), at most a minute (the caller
// loops).
int PollTimeoutMs(absl::Duration duration) {
  if (duration <= absl::ZeroDuration()) return 0;
  return static_cast<int>(std::min<int64_t>(
      absl::ToInt64Milliseconds(duration + absl::Microseconds(999)), 60'000));
}

}  // namespace

std::string PgChannelName(std::string_view schema, std::string_view topic) {
  std::string name = base::StrCat(schema, ".", topic);
  if (name.size() <= kMaxPgChannelBytes) return name;
  constexpr size_t kHashBytes = 1 + 16;  // '#' and the hex digits
  const std::string hash =
      base::StrCat("#", absl::Hex(Fnv1a64(name), absl::kZeroPad16));
  name.resize(kMaxPgChannelBytes - kHashBytes);
  return name + hash;
}

absl::StatusOr<std::unique_ptr<PgListener>> PgListener::Start(
    PgListenerOptions options, std::function<void()> notified) {
  if (absl::Status s = CheckChannel(options.channel); !s.ok()) return s;
  if (!notified || !options.connect) {
    return absl::InvalidArgumentError(
        base::StrCat("PostgreSQL channel '", options.channel,
                     "': the listener needs a callback and a way to "
                     "connect"));
  }
  absl::StatusOr<std::unique_ptr<PgConnection>> connection = Listen(options);
  if (!connection.ok()) return connection.status();
  const int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) {
    return absl::InternalError(
        base::StrCat("PostgreSQL listener: eventfd: ", std::strerror(errno)));
  }
  std::unique_ptr<PgListener> listener(
      new PgListener(std::move(options), std::move(notified), wake_fd));
  try {
    listener->thread_ =
        std::thread(&PgListener::Run, listener.get(), *std::move(connection));
  } catch (const std::system_error& e) {
    return absl::InternalError(
        base::StrCat("PostgreSQL listener: no thread: ", e.what()));
  }
  return listener;
}

PgListener::PgListener(PgListenerOptions options,
                       std::function<void()> notified, int wake_fd)
    : options_(std::move(options)),
      notified_(std::move(notified)),
      wake_fd_(wake_fd) {}

PgListener::~PgListener() {
  stopping_.store(true);
  const uint64_t one = 1;
  // An eventfd's counter only fails to take a write when it would overflow,
  // which a single write after zero or more cannot make it do.
  while (write(wake_fd_, &one, sizeof(one)) < 0 && errno == EINTR) {
  }
  if (thread_.joinable()) thread_.join();
  close(wake_fd_);
}

bool PgListener::SleepUnlessStopped(absl::Duration delay) {
  const absl::Time until = absl::Now() + delay;
  while (!stopping_.load()) {
    const absl::Duration left = until - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    pollfd wake{wake_fd_, POLLIN, 0};
    poll(&wake, 1, PollTimeoutMs(left));
  }
  return true;
}

void PgListener::Run(std::unique_ptr<PgConnection> connection) {
  absl::Duration delay = options_.backoff.min;
  // Whether to read before waiting: libpq may hold notifications already,
  // read with the answer to a statement (LISTEN, a check), and the socket
  // would not wake the poll for them.
  bool read_first = true;
  // Whether to call even without a notification: the connection was lost
  // and made again, so anything may have changed meanwhile.
  bool announce = false;
  while (!stopping_.load()) {
    if (connection == nullptr) {
      if (SleepUnlessStopped(delay)) return;
      absl::StatusOr<std::unique_ptr<PgConnection>> made = Listen(options_);
      if (!made.ok()) {
        // Not kept: the listener tries until the server is back or it is
        // destroyed, and its owner reads on a timer of its own meanwhile.
        delay = std::min(delay * 2, options_.backoff.max);
        continue;
      }
      connection = *std::move(made);
      delay = options_.backoff.min;
      read_first = announce = true;
    }
    if (!read_first) {
      pollfd fds[2] = {{connection->socket(), POLLIN, 0},
                       {wake_fd_, POLLIN, 0}};
      const int ready = poll(fds, 2, PollTimeoutMs(options_.check_interval));
      if (ready < 0 && errno == EINTR) continue;
      if (ready > 0 && fds[1].revents != 0) return;
      // Silent for check_interval (or poll failed, which only a bad
      // descriptor makes it do): a round trip tells whether the
      // connection still works.
      if (ready <= 0 && !connection->Execute("SELECT 1").ok()) {
        connection.reset();
        continue;
      }
    }
    read_first = false;
    absl::StatusOr<int> taken = connection->TakeNotifications();
    if (!taken.ok()) {
      connection.reset();
      continue;
    }
    if (*taken > 0 || announce) {
      announce = false;
      notified_();
    }
  }
}

}  // namespace cairn::persistence::postgres_internal
