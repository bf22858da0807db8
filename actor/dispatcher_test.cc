// Thread-pool dispatchers from config: `throughput` (messages an actor
// processes in one turn before its thread moves on to another actor), a
// second named pool beside the default one, and fairness between actors
// sharing a thread. Every wait is on a condition with a deadline; the
// one-thread pools make the order of turns exact.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "base/pinned_to_one_cpu.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

constexpr absl::Duration kDeadline = absl::Seconds(30);

// A gate actors wait at, on their dispatcher's thread, until the test
// opens it: a message sent meanwhile queues behind the blocked thread.
class Gate {
 public:
  void Open() {
    base::MutexLock lock(&mu_);
    open_ = true;
    cv_.SignalAll();
  }
  // Counts this arrival, then waits for the gate (or the deadline: a test
  // that fails must not hang its threads forever).
  void Wait() {
    const absl::Time deadline = absl::Now() + kDeadline;
    base::MutexLock lock(&mu_);
    ++arrived_;
    cv_.SignalAll();
    while (!open_) {
      if (cv_.WaitWithDeadline(&mu_, deadline)) return;
    }
  }
  // Waits until `n` actors are inside Wait() at once (or have been).
  bool AwaitArrivals(int n) {
    const absl::Time deadline = absl::Now() + kDeadline;
    base::MutexLock lock(&mu_);
    while (arrived_ < n) {
      if (cv_.WaitWithDeadline(&mu_, deadline)) return arrived_ >= n;
    }
    return true;
  }

 private:
  base::Mutex mu_;
  base::CondVar cv_;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  int arrived_ ABSL_GUARDED_BY(mu_) = 0;
};

struct Block {};

// Blocks its thread at the gate on Block; answers its thread's id to a
// string; appends its letter to a shared log for each int.
class Worker final : public Actor {
 public:
  Worker(Gate* gate, std::string* log, base::Mutex* log_mu, char letter)
      : gate_(gate), log_mu_(log_mu), log_(log), letter_(letter) {
    Receive<Block>([this](const Block&) { gate_->Wait(); });
    Receive<std::string>([this](const std::string&) {
      Sender().Tell(std::this_thread::get_id());
    });
    Receive<int>([this](int) {
      base::MutexLock lock(&*log_mu_);
      log_->push_back(letter_);
    });
  }

 private:
  Gate* gate_;
  base::Mutex* log_mu_;
  std::string* log_ ABSL_PT_GUARDED_BY(log_mu_);
  char letter_;
};

constexpr const char* kConfig = R"(
  akka.actor {
    default-dispatcher.fork-join-executor {
      parallelism-min = 1
      parallelism-max = 1
    }
    one-thread {
      type = Dispatcher
      throughput = 3
      fork-join-executor { parallelism-min = 1, parallelism-max = 1 }
    }
    # Only what differs from the default dispatcher: the rest is taken
    # from akka.actor.default-dispatcher.
    two-threads {
      fork-join-executor { parallelism-min = 2, parallelism-max = 2 }
    }
    # Idle threads sleep at once; a turn is one message.
    two-sleepy-threads {
      throughput = 1
      idle-policy = relaxed
      fork-join-executor { parallelism-min = 2, parallelism-max = 2 }
    }
  }
)";

class DispatcherTest : public ::testing::Test {
 protected:
  DispatcherTest() : kit_(kConfig) {}

  ActorRef Spawn(const std::string& dispatcher, char letter = '?') {
    Props props = Props::Create<Worker>(&gate_, &log_, &log_mu_, letter);
    if (!dispatcher.empty()) props = props.WithDispatcher(dispatcher);
    return kit_.Sys().ActorOf(props);
  }
  std::string Log() {
    base::MutexLock lock(&log_mu_);
    return log_;
  }

  // What the actors point at is declared before the kit, so it outlives
  // the actor system: an actor may still be running when a test body ends.
  Gate gate_;
  Gate hold_;
  base::Mutex log_mu_;
  std::string log_ ABSL_GUARDED_BY(log_mu_);
  std::atomic<bool> playing_{true};
  TestKit kit_;
};

TEST_F(DispatcherTest, AnActorProcessesThroughputMessagesPerTurnThenYields) {
  ActorRef blocker = Spawn("akka.actor.one-thread");
  ActorRef a = Spawn("akka.actor.one-thread", 'a');
  ActorRef b = Spawn("akka.actor.one-thread", 'b');
  blocker.Tell(Block{});
  ASSERT_TRUE(gate_.AwaitArrivals(1));
  // Both mailboxes fill while the pool's only thread is held.
  for (int i = 0; i < 7; ++i) a.Tell(i);
  for (int i = 0; i < 7; ++i) b.Tell(i);
  gate_.Open();
  kit_.AwaitCondition([&] { return Log().size() == 14; });
  // Three messages a turn (throughput = 3), then the other actor's turn.
  EXPECT_EQ(Log(), "aaabbbaaabbbab");
}

TEST_F(DispatcherTest, ANamedDispatcherRunsOnThreadsOfItsOwn) {
  // The default dispatcher's only thread is held...
  ActorRef on_default = Spawn("");
  on_default.Tell(Block{});
  ASSERT_TRUE(gate_.AwaitArrivals(1));
  // ...yet two actors of the named pool both block at once (two threads,
  // as its section says), and a third still answers once they are
  // released.
  ActorRef x = Spawn("akka.actor.two-threads");
  ActorRef y = Spawn("akka.actor.two-threads");
  x.Tell(Block{});
  y.Tell(Block{});
  ASSERT_TRUE(gate_.AwaitArrivals(3));
  gate_.Open();
  x.Tell(std::string("thread?"));
  std::thread::id x_thread = kit_.ExpectMsg<std::thread::id>();
  on_default.Tell(std::string("thread?"));
  std::thread::id default_thread = kit_.ExpectMsg<std::thread::id>();
  EXPECT_NE(x_thread, default_thread);
}

// Two actors that answer each other forever: each Tell schedules the
// other on the same thread.
struct Ball {};
class Bouncer final : public Actor {
 public:
  explicit Bouncer(std::atomic<bool>* playing) : playing_(playing) {
    Receive<ActorRef>([](const ActorRef& other) { other.Tell(Ball{}); });
    Receive<Ball>([this](const Ball&) {
      if (playing_->load()) Sender().Tell(Ball{});
    });
  }

 private:
  std::atomic<bool>* playing_;
};

TEST_F(DispatcherTest, APingPongPairDoesNotStarveOtherActorsOfItsThread) {
  Props bouncer =
      Props::Create<Bouncer>(&playing_).WithDispatcher("akka.actor.one-thread");
  ActorRef ping = kit_.Sys().ActorOf(bouncer);
  ActorRef pong = kit_.Sys().ActorOf(bouncer);
  ping.Tell(pong);
  // Another actor of the same one-thread pool still gets its turns.
  ActorRef other = Spawn("akka.actor.one-thread");
  for (int i = 0; i < 3; ++i) {
    other.Tell(std::string("thread?"));
    kit_.ExpectMsg<std::thread::id>();
  }
  playing_ = false;
}

// Holds its thread at a gate on Hold; on Go, sends Block to `blocked`
// (which then runs next on this thread), then a question that `blocked`
// answers to `asker` once unblocked; on Open, opens `opens`.
struct Hold {};
struct Go {
  ActorRef blocked;
  ActorRef asker;
};
struct Open {};
class Opener final : public Actor {
 public:
  Opener(Gate* hold, Gate* opens) {
    Receive<Hold>([hold](const Hold&) { hold->Wait(); });
    Receive<Go>([](const Go& go) {
      go.blocked.Tell(Block{});
      go.blocked.Tell(std::string("thread?"), go.asker);
    });
    Receive<Open>([opens](const Open&) { opens->Open(); });
  }
};

// A cell put back after its turn wakes nobody (the thread goes on with
// it), so when the thread's next turn blocks on what that cell would do,
// a sleeping thread must come and take it: here the opener's Open waits
// behind the worker it blocked.
TEST_F(DispatcherTest, ACellBehindABlockedTurnIsTakenByAnotherThread) {
  constexpr char kPool[] = "akka.actor.two-sleepy-threads";
  ActorRef opener = kit_.Sys().ActorOf(
      Props::Create<Opener>(&hold_, &gate_).WithDispatcher(kPool));
  ActorRef blocked = Spawn(kPool);
  opener.Tell(Hold{});
  ASSERT_TRUE(hold_.AwaitArrivals(1));
  // Queued while the opener holds its thread: one turn each (throughput
  // 1), so after Go the opener goes back behind `blocked`, which blocks.
  opener.Tell(Go{blocked, kit_.TestActor()});
  opener.Tell(Open{});
  hold_.Open();
  // Answered once the gate is open (Worker blocks at gate_ on Block).
  kit_.ExpectMsg<std::thread::id>(absl::Seconds(10));
}

// The threads of this process whose name starts with `prefix` (the names
// dispatchers give their threads: ThreadNameOf).
int ThreadsNamed(const std::string& prefix) {
  int count = 0;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name.starts_with(prefix)) ++count;
  }
  return count;
}

// Akka sizes a pool by the JVM's available processors, which count only the
// CPUs the process may run on: under `taskset -c 0` one thread, not one per
// CPU online that would all share that core.
TEST(DispatcherSizeTest, ThePoolHasAThreadForEachCpuTheProcessMayRunOn) {
  cpu_set_t all;
  CPU_ZERO(&all);
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  {
    // Threads inherit their creator's mask, as under taskset.
    base::PinnedToOneCpu pinned;
    ASSERT_TRUE(pinned.ok());
    TestKit kit;
    EXPECT_EQ(ThreadsNamed("default-"), 1);
  }
  TestKit kit;
  EXPECT_EQ(ThreadsNamed("default-"), std::min(64, CPU_COUNT(&all)));
}

}  // namespace
}  // namespace cairn::actor
