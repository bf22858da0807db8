// PgListener against a real server (skipped without one): what is
// announced on its channel reaches the callback, never concurrently; a
// backend the server terminates is replaced, with a call for what may have
// been missed, and later notifications still arrive, also after attempts
// to connect again were refused for a while, which are never closer than
// the floor of the backoff; a destroyed listener calls no more, also when
// destroyed during a reconnection, its destructor waits for a call in
// progress, and a callback may destroy its own listener. Channel names,
// the reconnection delays and the refusals of Start need no server.

#include "persistence/postgresql/internal/postgres_listener.h"

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/testing/test_database.h"

namespace cairn::persistence::postgres_internal {
namespace {

using testing::TestDatabase;

constexpr char kNobodyListens[] = "postgresql://postgres@127.0.0.1:1/postgres";
const absl::Duration kPatience = absl::Seconds(30);

// The calls of a listener's callback, for a test to wait on. A call may be
// held at a gate, to act while it is in progress.
class Calls {
 public:
  std::function<void()> Callback() {
    return [this] { Record(); };
  }

  int count() {
    base::MutexLock lock(&mu_);
    return count_;
  }
  // Whether two calls ever overlapped.
  bool overlapped() {
    base::MutexLock lock(&mu_);
    return overlapped_;
  }
  bool in_progress() {
    base::MutexLock lock(&mu_);
    return inside_;
  }

  // Waits until more than `count` calls began; false at the deadline.
  bool AwaitMoreThan(int count) {
    const absl::Time deadline = absl::Now() + kPatience;
    base::MutexLock lock(&mu_);
    while (count_ <= count) {
      if (changed_.WaitWithDeadline(&mu_, deadline)) return count_ > count;
    }
    return true;
  }

  void CloseGate() {
    base::MutexLock lock(&mu_);
    gate_open_ = false;
  }
  void OpenGate() {
    base::MutexLock lock(&mu_);
    gate_open_ = true;
    changed_.SignalAll();
  }

 private:
  void Record() {
    base::MutexLock lock(&mu_);
    if (inside_) overlapped_ = true;
    inside_ = true;
    ++count_;
    changed_.SignalAll();
    while (!gate_open_) changed_.Wait(&mu_);
    inside_ = false;
    changed_.SignalAll();
  }

  base::Mutex mu_;
  base::CondVar changed_;
  int count_ ABSL_GUARDED_BY(mu_) = 0;
  bool inside_ ABSL_GUARDED_BY(mu_) = false;
  bool overlapped_ ABSL_GUARDED_BY(mu_) = false;
  bool gate_open_ ABSL_GUARDED_BY(mu_) = true;
};

class PgListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
    options_.settings.conninfo = db_->url();
    options_.settings.schema = db_->schema();
    // What the test finds the listener's backend by.
    options_.settings.application_name =
        absl::StrCat("listener test ", db_->schema());
    options_.channel = PgChannelName(db_->schema(), "test");
    options_.backoff = {absl::Milliseconds(10), absl::Milliseconds(200)};
  }

  void Notify() {
    ASSERT_OK(db_->Execute(
        absl::StrCat("SELECT pg_notify('", options_.channel, "', 'x')")));
  }

  // Terminates the listener's backends on the server: how many.
  int TerminateBackends() {
    absl::StatusOr<std::vector<std::vector<std::string>>> rows =
        db_->Query(absl::StrCat("SELECT count(pg_terminate_backend(pid)) FROM "
                                "pg_stat_activity WHERE application_name = '",
                                options_.settings.application_name, "'"));
    EXPECT_OK(rows);
    return rows.ok() ? std::stoi((*rows)[0][0]) : -1;
  }

  std::optional<TestDatabase> db_;
  PgListenerOptions options_;
};

TEST_F(PgListenerTest, NotificationsOnItsChannelReachTheCallback) {
  Calls calls;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> listener,
                       PgListener::Start(options_, calls.Callback()));
  EXPECT_EQ(calls.count(), 0);  // nothing announced yet
  Notify();
  ASSERT_TRUE(calls.AwaitMoreThan(0));
  // Sent after the first call began: another batch, another call.
  Notify();
  ASSERT_TRUE(calls.AwaitMoreThan(1));
  ASSERT_OK(db_->Execute(absl::StrCat("NOTIFY \"", options_.channel, "\"")));
  ASSERT_TRUE(calls.AwaitMoreThan(2));
  EXPECT_FALSE(calls.overlapped());
}

// A listener that checks its connection at every turn (a round trip each
// millisecond of silence) still hears every announcement: notifications
// read with the answer to a check are not left in libpq's queue. Some of
// the notifications arrive during a check (about one in a hundred, here):
// were those left there, their calls would not come.
TEST_F(PgListenerTest, ChecksOfTheConnectionLoseNoNotification) {
  options_.check_interval = absl::Milliseconds(1);
  Calls calls;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> listener,
                       PgListener::Start(options_, calls.Callback()));
  for (int i = 0; i < 400; ++i) {
    const int before = calls.count();
    Notify();
    ASSERT_TRUE(calls.AwaitMoreThan(before)) << "notification " << i;
  }
}

TEST_F(PgListenerTest, ATerminatedBackendIsReplacedAndCalledBack) {
  Calls calls;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> listener,
                       PgListener::Start(options_, calls.Callback()));
  ASSERT_EQ(TerminateBackends(), 1);
  // The call after reconnecting, with nothing announced: what was sent
  // meanwhile is lost, so anything may have changed.
  ASSERT_TRUE(calls.AwaitMoreThan(0));
  const int after_reconnect = calls.count();
  Notify();
  ASSERT_TRUE(calls.AwaitMoreThan(after_reconnect));
  EXPECT_FALSE(calls.overlapped());
}

// Connections made through it are refused while it refuses (as a server
// that is down, or refuses the role, does), counted with their times, or
// held while it holds (a connection attempt in progress).
class Doorman {
 public:
  PgListenerOptions::Connect Connect() {
    return [this](const PgConnectionSettings& settings)
               -> absl::StatusOr<std::unique_ptr<PgConnection>> {
      {
        base::MutexLock lock(&mu_);
        if (refusing_) {
          refused_at_.push_back(absl::Now());
          changed_.SignalAll();
          return absl::UnavailableError("refused by the test");
        }
        if (holding_) {
          ++held_;
          changed_.SignalAll();
          while (holding_) changed_.Wait(&mu_);
        }
      }
      return PgConnection::Connect(settings);
    };
  }
  void Refuse(bool refusing) {
    base::MutexLock lock(&mu_);
    refusing_ = refusing;
  }
  void Hold(bool holding) {
    base::MutexLock lock(&mu_);
    holding_ = holding;
    changed_.SignalAll();
  }
  // Waits until at least `count` attempts were refused; false at the
  // deadline.
  bool AwaitRefused(int count) {
    const absl::Time deadline = absl::Now() + kPatience;
    base::MutexLock lock(&mu_);
    while (static_cast<int>(refused_at_.size()) < count) {
      if (changed_.WaitWithDeadline(&mu_, deadline)) {
        return static_cast<int>(refused_at_.size()) >= count;
      }
    }
    return true;
  }
  // Waits until an attempt is held; false at the deadline.
  bool AwaitHeld() {
    const absl::Time deadline = absl::Now() + kPatience;
    base::MutexLock lock(&mu_);
    while (held_ == 0) {
      if (changed_.WaitWithDeadline(&mu_, deadline)) return held_ > 0;
    }
    return true;
  }
  std::vector<absl::Time> refused_at() {
    base::MutexLock lock(&mu_);
    return refused_at_;
  }

 private:
  base::Mutex mu_;
  base::CondVar changed_;
  bool refusing_ ABSL_GUARDED_BY(mu_) = false;
  bool holding_ ABSL_GUARDED_BY(mu_) = false;
  int held_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<absl::Time> refused_at_ ABSL_GUARDED_BY(mu_);
};

// Cut off, and then refused for a while (the server down, say), a listener
// keeps trying, with no call until it is back; then one call, and it
// hears again. Destroying a listener that keeps trying ends it too.
TEST_F(PgListenerTest, KeepsTryingWhileRefused) {
  Doorman doorman, given_up_doorman;  // a listener's refusals each
  options_.connect = doorman.Connect();
  options_.backoff = {absl::Milliseconds(1), absl::Milliseconds(20)};
  Calls calls;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> listener,
                       PgListener::Start(options_, calls.Callback()));
  PgListenerOptions given_up_options = options_;
  given_up_options.connect = given_up_doorman.Connect();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> given_up,
                       PgListener::Start(given_up_options, [] {}));

  doorman.Refuse(true);
  given_up_doorman.Refuse(true);
  ASSERT_EQ(TerminateBackends(), 2);
  // Several attempts each, all refused: no call.
  ASSERT_TRUE(doorman.AwaitRefused(2));
  ASSERT_TRUE(given_up_doorman.AwaitRefused(2));
  EXPECT_EQ(calls.count(), 0);
  given_up.reset();

  doorman.Refuse(false);
  ASSERT_TRUE(calls.AwaitMoreThan(0));  // back: anything may have changed
  const int after_reconnect = calls.count();
  Notify();
  ASSERT_TRUE(calls.AwaitMoreThan(after_reconnect));
}

// A reconnect-min-backoff of 0 (which the config allows): a refusing
// server is still not tried again in a loop. Each wait is at least the
// floor, measured between the attempts, so this cannot fail spuriously.
TEST_F(PgListenerTest, ARefusingServerIsTriedNoSoonerThanTheFloor) {
  const absl::Duration floor = kMinPgListenerReconnectDelay;
  Doorman doorman;
  options_.connect = doorman.Connect();
  options_.backoff = {absl::ZeroDuration(), absl::ZeroDuration()};
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> listener,
                       PgListener::Start(options_, [] {}));
  doorman.Refuse(true);
  ASSERT_EQ(TerminateBackends(), 1);
  ASSERT_TRUE(doorman.AwaitRefused(4));
  listener.reset();
  const std::vector<absl::Time> refused_at = doorman.refused_at();
  for (size_t i = 1; i < refused_at.size(); ++i) {
    EXPECT_GE(refused_at[i] - refused_at[i - 1], floor) << "attempt " << i;
  }
}

TEST_F(PgListenerTest, ADestroyedListenerCallsNoMore) {
  Calls gone, witness;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> listener,
                       PgListener::Start(options_, gone.Callback()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> other,
                       PgListener::Start(options_, witness.Callback()));
  listener.reset();
  Notify();
  // The other listener heard it; the destroyed one's thread is gone.
  ASSERT_TRUE(witness.AwaitMoreThan(0));
  EXPECT_EQ(gone.count(), 0);
}

// How long a test gives a destructor that should be blocked to return
// anyway: one that returns within it did not wait. A correct destructor
// never does, so the test cannot fail spuriously.
const absl::Duration kBlockedFor = absl::Milliseconds(200);

TEST_F(PgListenerTest, TheDestructorWaitsForACallInProgress) {
  Calls calls;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> listener,
                       PgListener::Start(options_, calls.Callback()));
  calls.CloseGate();
  Notify();
  ASSERT_TRUE(calls.AwaitMoreThan(0));
  ASSERT_TRUE(calls.in_progress());
  absl::Notification destroying, destroyed;
  std::thread destroy([&] {
    destroying.Notify();
    listener.reset();
    destroyed.Notify();
  });
  destroying.WaitForNotification();
  EXPECT_FALSE(destroyed.WaitForNotificationWithTimeout(kBlockedFor));
  calls.OpenGate();
  destroy.join();
  EXPECT_FALSE(calls.in_progress());
}

// Destroyed while it connects again (the server restarted), the listener
// waits for the attempt, and does not call for it.
TEST_F(PgListenerTest, NoCallStartsOnceTheDestructorBeganDuringAReconnection) {
  Doorman doorman;
  options_.connect = doorman.Connect();
  Calls calls;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> listener,
                       PgListener::Start(options_, calls.Callback()));
  doorman.Hold(true);
  ASSERT_EQ(TerminateBackends(), 1);
  ASSERT_TRUE(doorman.AwaitHeld());
  absl::Notification destroying, destroyed;
  std::thread destroy([&] {
    destroying.Notify();
    listener.reset();
    destroyed.Notify();
  });
  destroying.WaitForNotification();
  EXPECT_FALSE(destroyed.WaitForNotificationWithTimeout(kBlockedFor));
  doorman.Hold(false);  // the attempt succeeds, after the destructor began
  destroy.join();
  EXPECT_EQ(calls.count(), 0);
}

// A watcher done with the changes ends its watch from the callback: the
// destructor does not wait for its own thread, which then ends, freeing
// the callback, and calls no more.
TEST_F(PgListenerTest, ACallbackMayDestroyItsListener) {
  // Notified when the callback (and so what it holds) is freed.
  struct OnFreed {
    explicit OnFreed(absl::Notification* freed) : freed(freed) {}
    ~OnFreed() { freed->Notify(); }
    absl::Notification* const freed;
  };
  absl::Notification freed;
  base::Mutex mu;
  std::unique_ptr<PgListener> listener;
  int calls = 0;
  auto callback = [&, on_freed = std::make_shared<OnFreed>(&freed)] {
    std::unique_ptr<PgListener> self;
    {
      base::MutexLock lock(&mu);
      ++calls;
      self = std::move(listener);
    }
    self.reset();
  };
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgListener> started,
                         PgListener::Start(options_, std::move(callback)));
    base::MutexLock lock(&mu);
    listener = std::move(started);
  }
  Notify();
  ASSERT_TRUE(freed.WaitForNotificationWithTimeout(kPatience));
  base::MutexLock lock(&mu);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(listener, nullptr);
}

TEST(PgListenerStartTest, FailsWhenNoServerAnswers) {
  PgListenerOptions options;
  options.settings.conninfo = kNobodyListens;
  options.settings.connect_timeout = absl::Seconds(2);
  options.channel = "x.test";
  absl::StatusOr<std::unique_ptr<PgListener>> listener =
      PgListener::Start(options, [] {});
  EXPECT_EQ(listener.status().code(), absl::StatusCode::kUnavailable);
}

TEST(PgListenerStartTest, RefusesABadChannelOrNoCallback) {
  PgListenerOptions options;
  options.settings.conninfo = kNobodyListens;
  for (const std::string& channel :
       {std::string(), std::string(64, 'a'), std::string("a\0b", 3)}) {
    options.channel = channel;
    EXPECT_EQ(PgListener::Start(options, [] {}).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  options.channel = "x.test";
  EXPECT_EQ(PgListener::Start(options, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PgListenerReconnectDelayTest, DoublesPerFailureUpToTheMax) {
  const PgReconnectBackoff backoff{absl::Milliseconds(100), absl::Seconds(1)};
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 0, 0), absl::Milliseconds(100));
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 1, 0), absl::Milliseconds(200));
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 3, 0), absl::Milliseconds(800));
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 4, 0), absl::Seconds(1));
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 1'000'000, 0), absl::Seconds(1));
}

TEST(PgListenerReconnectDelayTest, IsNeverUnderTheFloor) {
  const absl::Duration floor = kMinPgListenerReconnectDelay;
  EXPECT_EQ(PgListenerReconnectDelay(
                {absl::ZeroDuration(), absl::ZeroDuration()}, 5, 0),
            floor);
  EXPECT_EQ(
      PgListenerReconnectDelay({absl::ZeroDuration(), absl::Seconds(1)}, 0, 0),
      floor);
  EXPECT_EQ(
      PgListenerReconnectDelay({absl::ZeroDuration(), absl::Seconds(1)}, 1, 0),
      2 * floor);
}

// Processes that lost their connections together draw their jitter each:
// up to a fifth more, so they do not connect again in lockstep.
TEST(PgListenerReconnectDelayTest, JitterAddsUpToAFifth) {
  const PgReconnectBackoff backoff{absl::Milliseconds(100), absl::Seconds(1)};
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 0, 0.5), absl::Milliseconds(110));
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 0, 1), absl::Milliseconds(120));
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 4, 1), absl::Milliseconds(1200));
  // Out of range: taken as its nearest end.
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 0, -1), absl::Milliseconds(100));
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 0, 7), absl::Milliseconds(120));
  EXPECT_EQ(PgListenerReconnectDelay(backoff, 0, std::nan("")),
            absl::Milliseconds(100));
}

TEST(PgChannelNameTest, IsTheSchemaAndTopicWhenTheyFit) {
  EXPECT_EQ(PgChannelName("public", "members"), "public.members");
  const std::string fits(kMaxPgChannelBytes - 8, 's');  // ".members": 8
  EXPECT_EQ(PgChannelName(fits, "members"), fits + ".members");
}

TEST(PgChannelNameTest, IsCutAndHashedWhenTooLong) {
  // Schemas of 63 bytes differing in their last byte only.
  const std::string a = std::string(62, 's') + "a";
  const std::string b = std::string(62, 's') + "b";
  const std::string channel = PgChannelName(a, "members");
  EXPECT_EQ(channel.size(), kMaxPgChannelBytes);
  EXPECT_NE(channel, PgChannelName(b, "members"));
  EXPECT_NE(channel, PgChannelName(a, "events"));
  // The same in every process and build: FNV-1a of "<schema>.members".
  EXPECT_EQ(channel, std::string(46, 's') + "#db1c13acd73f9797");
}

}  // namespace
}  // namespace cairn::persistence::postgres_internal
