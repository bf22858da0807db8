// cairn's actor runtime next to CAF 0.17 (Debian's libcaf-dev), same
// patterns, same machine, same run. Prints one row per pattern with both
// rates and their ratio (higher is better for cairn).
//
//   bazel run -c opt //bench/actor:actor_vs_caf            (full run)
//   bazel run -c opt //bench/actor:actor_vs_caf -- --quick (smaller counts)
//   ... -- [--quick] --only fan-in                         (rows whose name
//                                                          contains the text)
//
// Both runtimes use as many worker threads as the machine has cores.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "actor/actor_system.h"
#include "base/mutex.h"
#include "bench/support/bench_main.h"
#include "bench/support/heap_in_use.h"
#include "caf/all.hpp"

ABSL_FLAG(std::string, only, "",
          "run only the rows whose name contains this text");

namespace {

namespace cactor = cairn::actor;

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One-shot latch for "the run is over".
class Done {
 public:
  void Set() {
    {
      cairn::base::MutexLock lock(&mu_);
      done_ = true;
    }
    cv_.SignalAll();
  }
  void Wait() {
    cairn::base::MutexLock lock(&mu_);
    while (!done_) cv_.Wait(&mu_);
  }

 private:
  cairn::base::Mutex mu_;
  cairn::base::CondVar cv_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
};

// Bytes the program has allocated with malloc/new and not freed: counts
// exactly what actors cost, unlike RSS, which reuses freed pages.
long AllocatedBytes() { return cairn::bench::HeapInUse(); }

// ---------------------------------------------------------------- cairn ---

struct Ball {
  int64_t remaining;
};

class CairnPong final : public cactor::Actor {
 public:
  CairnPong() {
    Receive<Ball>([this](const Ball& b) { Sender().Tell(b); });
  }
};

class CairnPing final : public cactor::Actor {
 public:
  CairnPing(cactor::ActorRef pong, int64_t total, Done* done)
      : pong_(std::move(pong)), left_(total), done_(done) {
    Receive<int>([this](int in_flight) {
      for (int i = 0; i < in_flight; ++i) pong_.Tell(Ball{0});
      outstanding_ = in_flight;
    });
    Receive<Ball>([this](const Ball&) {
      --left_;
      if (left_ >= outstanding_) {
        pong_.Tell(Ball{0});
      } else if (--outstanding_ == 0) {
        done_->Set();
      }
    });
  }

 private:
  cactor::ActorRef pong_;
  int64_t left_;
  int outstanding_ = 0;
  Done* done_;
};

std::unique_ptr<cactor::ActorSystem> NewCairn() {
  auto config =
      cairn::hocon::Config::ParseString("akka.loglevel = WARNING").value();
  return cactor::ActorSystem::Create("bench", config).value();
}

// Round trips per second with `in_flight` balls bouncing.
double CairnPingPong(int64_t round_trips, int in_flight) {
  auto system = NewCairn();
  Done done;
  auto pong = system->ActorOf(cactor::Props::Create<CairnPong>());
  auto ping = system->ActorOf(
      cactor::Props::Create<CairnPing>(pong, round_trips, &done));
  auto start = Clock::now();
  ping.Tell(in_flight);
  done.Wait();
  double s = Seconds(start);
  system->Terminate().wait();
  return 2.0 * round_trips / s;  // messages per second
}

class CairnSink final : public cactor::Actor {
 public:
  CairnSink(int64_t expected, Done* done) : left_(expected), done_(done) {
    Receive<int64_t>([this](int64_t) {
      if (--left_ == 0) done_->Set();
    });
  }

 private:
  int64_t left_;
  Done* done_;
};

class CairnSource final : public cactor::Actor {
 public:
  CairnSource(cactor::ActorRef sink, int64_t count) {
    Receive<int>([sink, count](int) {
      for (int64_t i = 0; i < count; ++i) sink.Tell(i);
    });
  }
};

double CairnFanIn(int senders, int64_t each) {
  auto system = NewCairn();
  Done done;
  auto sink =
      system->ActorOf(cactor::Props::Create<CairnSink>(senders * each, &done));
  std::vector<cactor::ActorRef> sources;
  for (int i = 0; i < senders; ++i) {
    sources.push_back(
        system->ActorOf(cactor::Props::Create<CairnSource>(sink, each)));
  }
  auto start = Clock::now();
  for (auto& s : sources) s.Tell(0);
  done.Wait();
  double s = Seconds(start);
  system->Terminate().wait();
  return senders * each / s;
}

std::atomic<int64_t> cairn_stopped{0};

class CairnEphemeral final : public cactor::Actor {
 public:
  CairnEphemeral() {}
  void PreStart() override { Context().Stop(Self()); }
  void PostStop() override { cairn_stopped.fetch_add(1); }
};

double CairnSpawnStop(int64_t count) {
  auto system = NewCairn();
  cairn_stopped = 0;
  auto start = Clock::now();
  auto props = cactor::Props::Create<CairnEphemeral>();
  for (int64_t i = 0; i < count; ++i) system->ActorOf(props);
  while (cairn_stopped.load() < count) std::this_thread::yield();
  double s = Seconds(start);
  system->Terminate().wait();
  return count / s;
}

class CairnIdle final : public cactor::Actor {
 public:
  CairnIdle() {
    Receive<int>([](int) {});
  }
};

double CairnBytesPerIdleActor(int64_t count) {
  auto system = NewCairn();
  std::vector<cactor::ActorRef> refs;
  refs.reserve(count);
  long before = AllocatedBytes();
  auto props = cactor::Props::Create<CairnIdle>();
  for (int64_t i = 0; i < count; ++i) refs.push_back(system->ActorOf(props));
  // Every actor has run its Create.
  for (auto& r : refs) r.Tell(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  long after = AllocatedBytes();
  double per_actor =
      static_cast<double>(after - before) / static_cast<double>(count) -
      sizeof(cactor::ActorRef);
  refs.clear();
  system->Terminate().wait();
  return per_actor;
}

// ------------------------------------------------------------------ CAF ---

caf::behavior CafPong(caf::event_based_actor*) {
  return {[](int64_t x) { return x; }};
}

struct PingState {
  int64_t left = 0;
  int outstanding = 0;
};

caf::behavior CafPing(caf::stateful_actor<PingState>* self, caf::actor pong,
                      int64_t total, Done* done) {
  self->state.left = total;
  return {
      [=](int in_flight) {
        for (int i = 0; i < in_flight; ++i) self->send(pong, int64_t{0});
        self->state.outstanding = in_flight;
      },
      [=](int64_t) {
        auto& st = self->state;
        --st.left;
        if (st.left >= st.outstanding) {
          self->send(pong, int64_t{0});
        } else if (--st.outstanding == 0) {
          done->Set();
          self->quit();
        }
      },
  };
}

struct CafConfig : caf::actor_system_config {
  CafConfig() {
    set("scheduler.max-threads",
        static_cast<size_t>(std::thread::hardware_concurrency()));
  }
};

double CafPingPong(int64_t round_trips, int in_flight) {
  CafConfig cfg;
  caf::actor_system sys{cfg};
  Done done;
  auto pong = sys.spawn(CafPong);
  auto ping = sys.spawn(CafPing, pong, round_trips, &done);
  auto start = Clock::now();
  caf::anon_send(ping, in_flight);
  done.Wait();
  double s = Seconds(start);
  caf::anon_send_exit(pong, caf::exit_reason::user_shutdown);
  return 2.0 * round_trips / s;
}

struct SinkState {
  int64_t left = 0;
};

caf::behavior CafSink(caf::stateful_actor<SinkState>* self, int64_t expected,
                      Done* done) {
  self->state.left = expected;
  return {[=](int64_t) {
    if (--self->state.left == 0) {
      done->Set();
      self->quit();
    }
  }};
}

caf::behavior CafSource(caf::event_based_actor* self, caf::actor sink,
                        int64_t count) {
  return {[=](int) {
    for (int64_t i = 0; i < count; ++i) self->send(sink, i);
    self->quit();
  }};
}

double CafFanIn(int senders, int64_t each) {
  CafConfig cfg;
  caf::actor_system sys{cfg};
  Done done;
  auto sink = sys.spawn(CafSink, senders * each, &done);
  std::vector<caf::actor> sources;
  for (int i = 0; i < senders; ++i) {
    sources.push_back(sys.spawn(CafSource, sink, each));
  }
  auto start = Clock::now();
  for (auto& s : sources) caf::anon_send(s, 0);
  done.Wait();
  return senders * each / Seconds(start);
}

double CafSpawnStop(int64_t count) {
  CafConfig cfg;
  caf::actor_system sys{cfg};
  auto start = Clock::now();
  for (int64_t i = 0; i < count; ++i) {
    sys.spawn([](caf::event_based_actor* self) { self->quit(); });
  }
  sys.await_all_actors_done();
  return count / Seconds(start);
}

double CafBytesPerIdleActor(int64_t count) {
  CafConfig cfg;
  caf::actor_system sys{cfg};
  std::vector<caf::actor> refs;
  refs.reserve(count);
  long before = AllocatedBytes();
  for (int64_t i = 0; i < count; ++i) {
    refs.push_back(sys.spawn([]() -> caf::behavior { return {[](int) {}}; }));
  }
  for (auto& r : refs) caf::anon_send(r, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  long after = AllocatedBytes();
  double per_actor =
      static_cast<double>(after - before) / static_cast<double>(count) -
      sizeof(caf::actor);
  for (auto& r : refs) caf::anon_send_exit(r, caf::exit_reason::user_shutdown);
  refs.clear();
  return per_actor;
}

// ---------------------------------------------------------------- main ---

// Best of `runs`: the least disturbed run on a shared machine.
double Best(int runs, const std::function<double()>& f) {
  double best = f();
  for (int i = 1; i < runs; ++i) best = std::max(best, f());
  return best;
}

// Prints one row, measuring both sides only when `only` is in its name.
void Row(const std::string& only, const char* name, const char* unit,
         const std::function<double()>& cairn_run,
         const std::function<double()>& caf_run, bool lower_is_better = false) {
  if (std::string(name).find(only) == std::string::npos) return;
  const double cairn = cairn_run();
  const double caf = caf_run();
  double ratio = lower_is_better ? caf / cairn : cairn / caf;
  std::printf("%-34s %14.0f %14.0f %-12s %6.2fx\n", name, cairn, caf, unit,
              ratio);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  cairn::bench::InitBenchmark(argc, argv,
                              "actor_vs_caf [--quick] [--only TEXT]");
  const bool quick = cairn::bench::Quick();
  const std::string only = absl::GetFlag(FLAGS_only);
  const int runs = quick ? 1 : 3;
  const int64_t trips = quick ? 100'000 : 1'000'000;
  const int64_t fan_each = quick ? 100'000 : 1'000'000;
  const int64_t spawns = quick ? 20'000 : 200'000;
  const int64_t idle = quick ? 100'000 : 1'000'000;

  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  std::printf("%-34s %14s %14s %-12s %7s\n", "pattern", "cairn", "CAF 0.17",
              "unit", "ratio");
  Row(
      only, "ping-pong, 1 in flight", "msg/s",
      [&] { return Best(runs, [&] { return CairnPingPong(trips, 1); }); },
      [&] { return Best(runs, [&] { return CafPingPong(trips, 1); }); });
  Row(
      only, "ping-pong, 1000 in flight", "msg/s",
      [&] { return Best(runs, [&] { return CairnPingPong(trips, 1000); }); },
      [&] { return Best(runs, [&] { return CafPingPong(trips, 1000); }); });
  Row(
      only, "fan-in, 8 senders", "msg/s",
      [&] { return Best(runs, [&] { return CairnFanIn(8, fan_each); }); },
      [&] { return Best(runs, [&] { return CafFanIn(8, fan_each); }); });
  Row(
      only, "spawn + stop", "actors/s",
      [&] { return Best(runs, [&] { return CairnSpawnStop(spawns); }); },
      [&] { return Best(runs, [&] { return CafSpawnStop(spawns); }); });
  Row(
      only, "memory per idle actor", "bytes",
      [&] { return CairnBytesPerIdleActor(idle); },
      [&] { return CafBytesPerIdleActor(idle); },
      /*lower_is_better=*/true);
  return 0;
}
