// Memory per entity (issue 35): the heap an idle entity costs once it has
// recovered, at 100,000 and 1,000,000 entities. Rows:
//
//   idle actor           a plain actor that took one message (reference)
//   persistent actor     a persistent actor recovered from one event
//                        (stored_entity.h, made with ActorOf), idle
//                        after one command
//   region entity        the same actor hosted by an EntityRegion
//   bank account         the bank example's Account (examples/bank), an
//                        entity of the accounts' region, recovered from
//                        its OpenAccount event by a GetBalance
//
// Each figure is a slope: the heap in use (glibc's, mmapped blocks too)
// after the last entity answered, less that after the first tenth did, over
// the other nine tenths; so what is made once (the store's open files,
// thread caches, the region's shards) is not counted, and what grows with
// the entities (the runtime's tables too) is. The RocksDB block cache
// (8 MB by default) fills while the entities read their events: at
// 100,000 entities it may add up to ~60 B per entity; at 1,000,000 it is
// full before the slope starts. The entities' own state is 8 bytes.
//
//   bazel run -c opt //bench/persistence:entity_memory_benchmark
//       [-- --quick] [-- --only TEXT]

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/persistence/persistence_benchmark_system.h"
#include "bench/persistence/stored_entity.h"
#include "bench/support/bench_main.h"
#include "bench/support/heap_in_use.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/protocol.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/testing/temp_dir.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

ABSL_FLAG(std::string, only, "", "run only the rows whose name has this");

namespace cairn::bench {
namespace {

using actor::ActorRef;
using examples::bank::AccountReply;
using examples::bank::BankSystem;
using examples::bank::StoreOptions;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "entity_memory_benchmark: %s\n", what.c_str());
  std::exit(1);
}

long Allocated() { return bench::HeapInUse(); }

// What is freed once a message is handled (a mailbox node, a finished
// recovery's buffers) is returned by then.
void Settle() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }

class IdleActor final : public actor::Actor {
 public:
  explicit IdleActor(Countdown* done) {
    Receive<Ping>([done](const Ping&) { done->CountDown(); });
  }
};

// Bytes per entity: `start(from, to, done)` brings entities [from, to)
// up, each counting `done` down once it answered.
using Starter = std::function<void(int64_t from, int64_t to, Countdown& done)>;

double Slope(int64_t count, const Starter& start) {
  const int64_t first = count / 10;
  {
    Countdown done(first);
    start(0, first, done);
    if (absl::Status s = done.Wait(); !s.ok()) Die(s.ToString());
  }
  Settle();
  const long before = Allocated();
  {
    Countdown done(count - first);
    start(first, count, done);
    if (absl::Status s = done.Wait(); !s.ok()) Die(s.ToString());
  }
  Settle();
  const long after = Allocated();
  return static_cast<double>(after - before) /
         static_cast<double>(count - first);
}

double IdleActorBytes(const std::string& dir, int64_t count) {
  auto bench = BenchSystem::Start(dir, /*fsync=*/false);
  if (!bench.ok()) Die(bench.status().ToString());
  actor::ActorSystem& system = (*bench)->system();
  return Slope(count, [&](int64_t from, int64_t to, Countdown& done) {
    for (int64_t i = from; i < to; ++i) {
      system.ActorOf(actor::Props::Create<IdleActor>(&done)).Tell(Ping{});
    }
  });
}

double PersistentActorBytes(const std::string& dir, int64_t count) {
  auto bench = BenchSystem::Start(dir, /*fsync=*/false);
  if (!bench.ok()) Die(bench.status().ToString());
  actor::ActorSystem& system = (*bench)->system();
  return Slope(count, [&](int64_t from, int64_t to, Countdown& done) {
    for (int64_t i = from; i < to; ++i) {
      system
          .ActorOf(
              actor::Props::Create<StoredEntity>(BenchPersistenceId(i), &done))
          .Tell(Ping{});
    }
  });
}

double RegionEntityBytes(const std::string& dir, int64_t count) {
  auto bench = BenchSystem::Start(dir, /*fsync=*/false);
  if (!bench.ok()) Die(bench.status().ToString());
  actor::ActorSystem& system = (*bench)->system();
  // Which countdown the entities made now report to (read on the region's
  // thread).
  std::atomic<Countdown*> current{nullptr};
  sharding::EntityRegionSettings settings;
  settings.passivate_idle_entity_after = absl::ZeroDuration();
  settings.active_entity_limit = 0;
  const ActorRef region = sharding::EntityRegion::Start(
      system, "entities",
      [&current](const std::string& id) {
        return actor::Props::Create<StoredEntity>(id, current.load());
      },
      settings, std::make_shared<sharding::EnvelopeExtractor>());
  const actor::AnyMessage ping = actor::AnyMessage::Of(Ping{});
  return Slope(count, [&](int64_t from, int64_t to, Countdown& done) {
    // The region makes the entities on its own thread; the previous
    // phase's entities have all answered, so none is made meanwhile.
    current = &done;
    for (int64_t i = from; i < to; ++i) {
      region.Tell(sharding::ShardingEnvelope{BenchPersistenceId(i), ping});
    }
  });
}

std::vector<int64_t> Range(int64_t from, int64_t to) {
  std::vector<int64_t> r;
  r.reserve(static_cast<size_t>(to - from));
  for (int64_t i = from; i < to; ++i) r.push_back(i);
  return r;
}

absl::Status Expect(const AccountReply& r, const char* what) {
  if (r.outcome == AccountReply::Outcome::kDone) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat(what, " account ", r.account, ": ", r.reason));
}

double BankAccountBytes(const std::string& dir, int64_t count) {
  StoreOptions options{dir, /*fsync=*/false};
  options.active_accounts = 0;  // every account stays
  {
    absl::StatusOr<std::unique_ptr<BankSystem>> bank =
        BankSystem::Start(options);
    if (!bank.ok()) Die(bank.status().ToString());
    if (absl::Status s =
            (*bank)->client().CallEach<examples::bank::OpenAccount>(
                Range(0, count), /*window=*/1024,
                [](int64_t a) { return examples::bank::OpenAccount{a}; },
                [](const AccountReply& r) { return Expect(r, "opening"); });
        !s.ok()) {
      Die(s.ToString());
    }
  }
  absl::StatusOr<std::unique_ptr<BankSystem>> bank = BankSystem::Start(options);
  if (!bank.ok()) Die(bank.status().ToString());
  return Slope(count, [&](int64_t from, int64_t to, Countdown& done) {
    absl::Status s = (*bank)->client().CallEach<examples::bank::GetBalance>(
        Range(from, to), /*window=*/1024,
        [](int64_t a) { return examples::bank::GetBalance{a}; },
        [&done](const AccountReply& r) {
          absl::Status ok = Expect(r, "reading");
          if (ok.ok()) done.CountDown();
          return ok;
        });
    if (!s.ok()) done.Fail(s);
  });
}

persistence::testing::TempDir NewDir(const char* name) {
  absl::StatusOr<persistence::testing::TempDir> dir =
      persistence::testing::TempDir::Make(name);
  if (!dir.ok()) Die(dir.status().ToString());
  return *std::move(dir);
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  using namespace cairn::bench;
  InitBenchmark(argc, argv, "entity_memory_benchmark [--quick] [--only TEXT]");
  const std::string only = absl::GetFlag(FLAGS_only);
  const std::vector<int64_t> counts =
      Quick() ? std::vector<int64_t>{5'000}
              : std::vector<int64_t>{100'000, 1'000'000};
  struct RowSpec {
    const char* name;
    const char* target;
    double (*measure)(const std::string& dir, int64_t count);
    bool filled;  // needs one stored event per entity
  };
  const RowSpec rows[] = {
      {"idle actor", "", IdleActorBytes, false},
      {"persistent actor, recovered", "<= 1024", PersistentActorBytes, true},
      {"region entity, recovered", "<= 2048", RegionEntityBytes, true},
      {"bank account, recovered", "<= 2048", BankAccountBytes, false},
  };
  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  std::printf("%-30s %10s %14s %10s\n", "entity", "count", "bytes/entity",
              "target");
  for (const int64_t count : counts) {
    std::optional<cairn::persistence::testing::TempDir> filled;
    for (const RowSpec& row : rows) {
      if (std::string(row.name).find(only) == std::string::npos) continue;
      if (row.filled && !filled.has_value()) {
        filled.emplace(NewDir("cairn-bench-entities"));
        if (absl::Status s = FillStoredEntities(filled->path(), count, 1);
            !s.ok()) {
          Die(s.ToString());
        }
      }
      std::optional<cairn::persistence::testing::TempDir> own;
      if (!row.filled) own.emplace(NewDir("cairn-bench-entity-memory"));
      const double bytes =
          row.measure(row.filled ? filled->path() : own->path(), count);
      std::printf("%-30s %10lld %14.0f %10s\n", row.name,
                  static_cast<long long>(count), bytes, row.target);
      std::fflush(stdout);
    }
  }
  return 0;
}
