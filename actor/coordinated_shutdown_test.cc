#include "actor/coordinated_shutdown.h"

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

// Records the phases tasks ran in.
struct Trace {
  base::Mutex mu;
  std::vector<std::string> phases ABSL_GUARDED_BY(mu);
  void Add(const std::string& p) {
    base::MutexLock lock(&mu);
    phases.push_back(p);
  }
  std::vector<std::string> Get() {
    base::MutexLock lock(&mu);
    return phases;
  }
};

std::unique_ptr<ActorSystem> NewSystem(const std::string& extra = "") {
  auto config = hocon::Config::ParseString(
      "akka.loglevel = OFF\n"
      "akka.coordinated-shutdown.run-by-process-exit-hook = off\n" +
      extra);
  return ActorSystem::Create("cs", config.value()).value();
}

TEST(CoordinatedShutdownTest, DefaultPhasesRunInTheSeedsOrder) {
  auto system = NewSystem();
  EXPECT_EQ(
      CoordinatedShutdown::Get(*system).OrderedPhases(),
      (std::vector<std::string>{
          "before-service-unbind", "service-unbind", "service-requests-done",
          "service-stop", "before-cluster-shutdown",
          "cluster-sharding-shutdown-region", "cluster-leave",
          "cluster-exiting", "cluster-exiting-done", "cluster-shutdown",
          "before-actor-system-terminate", "actor-system-terminate"}));
  EXPECT_EQ(CoordinatedShutdown::Get(*system).PhaseTimeout("cluster-exiting"),
            absl::Seconds(10));
  EXPECT_EQ(CoordinatedShutdown::Get(*system).PhaseTimeout("service-stop"),
            absl::Seconds(5));
}

TEST(CoordinatedShutdownTest, AnApplicationPhaseJoinsTheDag) {
  auto system = NewSystem(R"(
    akka.coordinated-shutdown.phases {
      before-cluster-shutdown.depends-on = [service-stop, my-phase]
      my-phase { timeout = 10s, recover = on, depends-on = [service-unbind] }
    })");
  auto& cs = CoordinatedShutdown::Get(*system);
  const auto& order = cs.OrderedPhases();
  auto pos = [&](const std::string& p) {
    return std::find(order.begin(), order.end(), p) - order.begin();
  };
  EXPECT_LT(pos("service-unbind"), pos("my-phase"));
  EXPECT_LT(pos("my-phase"), pos("before-cluster-shutdown"));
  Trace trace;
  for (const char* p :
       {"my-phase", "before-cluster-shutdown", "service-unbind"}) {
    ASSERT_OK(cs.AddTask(p, p, [&trace, p] { trace.Add(p); }));
  }
  cs.Run("test").get();
  EXPECT_EQ(trace.Get(), (std::vector<std::string>{"service-unbind", "my-phase",
                                                   "before-cluster-shutdown"}));
  EXPECT_TRUE(system->WhenTerminated().wait_for(absl::Seconds(10)));
}

TEST(CoordinatedShutdownTest, CyclesAndUnknownPhasesAreConfigurationErrors) {
  auto cyclic = hocon::Config::ParseString(R"(
    akka.coordinated-shutdown.phases.before-service-unbind.depends-on =
      [actor-system-terminate])")
                    .value();
  absl::StatusOr<std::unique_ptr<ActorSystem>> s =
      ActorSystem::Create("cs", cyclic);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("cycle"), std::string::npos)
      << s.status();
  EXPECT_NE(s.status().message().find("actor-system-terminate -> "),
            std::string::npos)
      << s.status();

  auto unknown =
      hocon::Config::ParseString(
          "akka.coordinated-shutdown.phases.service-stop.depends-on = [nope]")
          .value();
  s = ActorSystem::Create("cs", unknown);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("unknown phase 'nope'"),
            std::string::npos)
      << s.status();
}

TEST(CoordinatedShutdownTest, TasksOfAPhaseRunInParallel) {
  auto system = NewSystem();
  auto& cs = CoordinatedShutdown::Get(*system);
  // A finishes only once B has started: run one after the other, the phase
  // would time out (5 s) instead of finishing at once.
  Promise<Done> b_started;
  ASSERT_OK(cs.AddTask("service-stop", "a", CoordinatedShutdown::Task([&] {
                         return b_started.GetFuture();
                       })));
  ASSERT_OK(cs.AddTask("service-stop", "b", [&] { b_started.TrySetValue(); }));
  const absl::Time start = absl::Now();
  cs.Run("test").get();
  EXPECT_LT(absl::Now() - start, absl::Seconds(4));
}

TEST(CoordinatedShutdownTest, APhaseThatTimesOutLetsTheNextOneRun) {
  auto system = NewSystem(
      "akka.coordinated-shutdown.phases.service-unbind.timeout = 100ms");
  auto& cs = CoordinatedShutdown::Get(*system);
  Promise<Done> never;
  Trace trace;
  ASSERT_OK(
      cs.AddTask("service-unbind", "hangs",
                 CoordinatedShutdown::Task([&] { return never.GetFuture(); })));
  ASSERT_OK(
      cs.AddTask("service-stop", "next", [&] { trace.Add("service-stop"); }));
  cs.Run("test").get();
  EXPECT_EQ(trace.Get(), std::vector<std::string>{"service-stop"});
}

TEST(CoordinatedShutdownTest, RecoverOffAbortsTheRemainingPhases) {
  auto system = NewSystem(
      "akka.coordinated-shutdown.phases.service-unbind.recover = off");
  auto& cs = CoordinatedShutdown::Get(*system);
  Trace trace;
  ASSERT_OK(cs.AddTask("service-unbind", "fails",
                       [] { throw std::runtime_error("unbind failed"); }));
  ASSERT_OK(
      cs.AddTask("service-stop", "later", [&] { trace.Add("service-stop"); }));
  EXPECT_THROW(cs.Run("test").get(), std::runtime_error);
  EXPECT_TRUE(trace.Get().empty());
  // Terminate still terminates.
  EXPECT_TRUE(system->Terminate().wait_for(absl::Seconds(10)));
}

TEST(CoordinatedShutdownTest, RecoverOnLogsAndGoesOn) {
  auto system = NewSystem();
  auto& cs = CoordinatedShutdown::Get(*system);
  Trace trace;
  ASSERT_OK(cs.AddTask("service-unbind", "fails",
                       [] { throw std::runtime_error("unbind failed"); }));
  ASSERT_OK(
      cs.AddTask("service-stop", "later", [&] { trace.Add("service-stop"); }));
  cs.Run("test").get();
  EXPECT_EQ(trace.Get(), std::vector<std::string>{"service-stop"});
}

TEST(CoordinatedShutdownTest, RunsOnceWhoeverCallsRun) {
  auto system = NewSystem();
  auto& cs = CoordinatedShutdown::Get(*system);
  std::atomic<int> runs{0};
  ASSERT_OK(cs.AddTask("service-stop", "count", [&] { ++runs; }));
  std::vector<std::thread> callers;
  for (int i = 0; i < 8; ++i) {
    callers.emplace_back(
        [&, i] { cs.Run("caller " + std::to_string(i)).get(); });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(runs.load(), 1);
  EXPECT_TRUE(cs.ShutdownReason().has_value());
  EXPECT_TRUE(system->WhenTerminated().wait_for(absl::Seconds(10)));
}

TEST(CoordinatedShutdownTest, TerminateGoesThroughThePhases) {
  auto system = NewSystem();
  std::atomic<bool> ran{false};
  ASSERT_OK(CoordinatedShutdown::Get(*system).AddTask(
      "before-service-unbind", "flag", [&] { ran = true; }));
  system->Terminate().wait();
  EXPECT_TRUE(ran.load());
  EXPECT_EQ(CoordinatedShutdown::Get(*system).ShutdownReason(),
            "ActorSystem::Terminate");
}

TEST(CoordinatedShutdownTest, UnknownPhaseInAddTaskIsAnError) {
  auto system = NewSystem();
  absl::Status s =
      CoordinatedShutdown::Get(*system).AddTask("no-such-phase", "x", [] {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("no-such-phase"), std::string::npos);
}

}  // namespace
}  // namespace cairn::actor
