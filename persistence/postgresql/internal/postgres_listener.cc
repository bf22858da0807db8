#include "persistence/postgresql/internal/postgres_listener.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/random/random.h"
#include "base/string_view.h"

namespace cairn::persistence::postgres_internal {

struct PgListener::State {
  State(PgListenerOptions options, std::function<void()> notified, int wake_fd)
      : options(std::move(options)),
        notified(std::move(notified)),
        wake_fd(wake_fd) {}
  ~State() { close(wake_fd); }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  // Sleeps for `delay` unless woken for the end first: whether woken.
  bool SleepUnlessStopped(absl::Duration delay);

  const PgListenerOptions options;
  const std::function<void()> notified;
  // An eventfd: written by the destructor to wake the thread from poll.
  const int wake_fd;
  std::atomic<bool> stopping{false};
};

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

// Enough failures for any backoff to reach its max (2^62 times 10 ms),
// and no more: a server down for ever does not overflow the count.
constexpr int kCountedFailures = 62;

}  // namespace

absl::Duration PgListenerReconnectDelay(const PgReconnectBackoff& backoff,
                                        int failures, double jitter) {
  const absl::Duration max =
      std::max(backoff.max, kMinPgListenerReconnectDelay);
  absl::Duration delay =
      std::min(std::max(backoff.min, kMinPgListenerReconnectDelay), max);
  for (int i = 0; i < failures && delay < max; ++i) {
    delay = std::min(delay * 2, max);
  }
  // NaN taken as 0, as below the range.
  const double fraction = jitter > 0 ? std::min(jitter, 1.0) : 0;
  return delay + delay * (fraction / 5);
}

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
  std::unique_ptr<PgListener> listener(new PgListener(std::make_shared<State>(
      std::move(options), std::move(notified), wake_fd)));
  try {
    listener->thread_ =
        std::thread(&PgListener::Run, listener->state_, *std::move(connection));
  } catch (const std::system_error& e) {
    return absl::InternalError(
        base::StrCat("PostgreSQL listener: no thread: ", e.what()));
  }
  return listener;
}

PgListener::PgListener(std::shared_ptr<State> state)
    : state_(std::move(state)) {}

PgListener::~PgListener() {
  state_->stopping.store(true);
  const uint64_t one = 1;
  // An eventfd's counter only fails to take a write when it would overflow,
  // which a single write after zero or more cannot make it do.
  while (write(state_->wake_fd, &one, sizeof(one)) < 0 && errno == EINTR) {
  }
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    // Destroyed by the callback: joining would wait for itself. The
    // thread holds the state, sees `stopping` once the callback returns,
    // and ends.
    thread_.detach();
  } else {
    thread_.join();
  }
}

bool PgListener::State::SleepUnlessStopped(absl::Duration delay) {
  const absl::Time until = absl::Now() + delay;
  while (!stopping.load()) {
    const absl::Duration left = until - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    pollfd wake{wake_fd, POLLIN, 0};
    poll(&wake, 1, PollTimeoutMs(left));
  }
  return true;
}

void PgListener::Run(std::shared_ptr<State> state,
                     std::unique_ptr<PgConnection> connection) {
  const PgListenerOptions& options = state->options;
  absl::BitGen random;
  // Attempts that failed (to connect, or to wait on a connection) since a
  // wait on a connection last worked: the backoff starts over only then.
  int failures = 0;
  // Whether to read before waiting: libpq may hold notifications already,
  // read with the answer to a statement (LISTEN, a check), and the socket
  // would not wake the poll for them.
  bool read_first = true;
  // Whether to call even without a notification: the connection was lost
  // and made again, so anything may have changed meanwhile.
  bool announce = false;
  while (!state->stopping.load()) {
    if (connection == nullptr) {
      if (state->SleepUnlessStopped(PgListenerReconnectDelay(
              options.backoff, failures, absl::Uniform(random, 0.0, 1.0)))) {
        return;
      }
      absl::StatusOr<std::unique_ptr<PgConnection>> made = Listen(options);
      if (!made.ok()) {
        // Not kept: the listener tries until the server is back or it is
        // destroyed, and its owner reads on a timer of its own meanwhile.
        failures = std::min(failures + 1, kCountedFailures);
        continue;
      }
      connection = *std::move(made);
      read_first = announce = true;
    }
    if (!read_first) {
      pollfd fds[2] = {{connection->socket(), POLLIN, 0},
                       {state->wake_fd, POLLIN, 0}};
      const int ready = poll(fds, 2, PollTimeoutMs(options.check_interval));
      if (ready < 0) {
        if (errno == EINTR) continue;
        // Out of memory, say: the connection cannot be waited on. Made
        // again after the backoff, longer each time this repeats.
        connection.reset();
        failures = std::min(failures + 1, kCountedFailures);
        continue;
      }
      failures = 0;
      if (fds[1].revents != 0) return;
      // Silent for check_interval: a round trip tells whether the
      // connection still works.
      if (ready == 0 && !connection->Execute("SELECT 1").ok()) {
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
    // A destructor that came during a reconnection or a check: no call
    // starts once it began.
    if (state->stopping.load()) return;
    if (*taken > 0 || announce) {
      announce = false;
      state->notified();
    }
  }
}

}  // namespace cairn::persistence::postgres_internal
