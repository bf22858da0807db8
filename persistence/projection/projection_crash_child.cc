// The process that projection_crash_test kills: runs one projection over
// the events tagged "t" of the RocksDB journal in --journal, with the
// projection store in --store, and exits 0 when the query completes.
//
//   projection_crash_child --journal DIR --store DIR
//       --mode exactly-once|at-least-once --log FILE
//
// Its handler writes a line "<id> <seq>" to stdout for every envelope,
// unbuffered: the test stops reading the pipe and kills the process while
// it is blocked mid-stream, so the kill lands inside the projection.
// At-least-once: each envelope is also appended to --log first (a write
// survives the kill). Exactly-once: the read model counts envelopes under
// "count", marks each under "seen/<id>/<seq>", and marks a second sight
// under "dup/<id>/<seq>".
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <future>
#include <map>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "hocon/config.h"
#include "persistence/persistence.h"
#include "persistence/projection/projection.h"
#include "persistence/rocksdb/rocksdb_projection_store.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

void WriteAll(int fd, const std::string& s) {
  for (std::size_t done = 0; done < s.size();) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0) {
      std::perror("write");
      std::_Exit(3);
    }
    done += static_cast<std::size_t>(n);
  }
}

std::string Line(const EventEnvelope& e) {
  return absl::StrCat(e.persistence_id, " ", e.sequence_nr, "\n");
}

class AppendingHandler : public ProjectionHandler {
 public:
  explicit AppendingHandler(int log) : log_(log) {}
  absl::Status Process(const EventEnvelope& e) override {
    WriteAll(log_, Line(e));
    WriteAll(STDOUT_FILENO, Line(e));
    return absl::OkStatus();
  }

 private:
  int log_;
};

class CountingHandler : public ExactlyOnceHandler {
 public:
  absl::Status Process(const EventEnvelope& e,
                       ProjectionTransaction& tx) override {
    const std::string key = absl::StrCat(e.persistence_id, "/", e.sequence_nr);
    absl::StatusOr<std::optional<std::string>> seen =
        tx.Get(absl::StrCat("seen/", key));
    if (!seen.ok()) return seen.status();
    if (seen->has_value()) tx.Put(absl::StrCat("dup/", key), "1");
    tx.Put(absl::StrCat("seen/", key), "1");
    absl::StatusOr<std::optional<std::string>> count = tx.Get("count");
    if (!count.ok()) return count.status();
    int64_t n = 0;
    if (count->has_value() && !absl::SimpleAtoi(**count, &n)) {
      return absl::DataLossError("count is not a number");
    }
    tx.Put("count", absl::StrCat(n + 1));
    WriteAll(STDOUT_FILENO, Line(e));
    return absl::OkStatus();
  }
};

// Ends the process's wait when the projection completes.
class Observer : public actor::Actor {
 public:
  explicit Observer(std::promise<void>* done) {
    Receive<ProjectionCompleted>(
        [done](const ProjectionCompleted&) { done->set_value(); });
    Receive<ProjectionFailed>([](const ProjectionFailed& f) {
      std::fprintf(stderr, "%s\n", f.cause.c_str());
    });
    Receive<ProjectionProgress>([](const ProjectionProgress&) {});
  }
};

int Run(int argc, char** argv) {
  std::map<std::string, std::string> args;
  for (int i = 1; i + 1 < argc; i += 2) args[argv[i]] = argv[i + 1];
  for (const char* key : {"--journal", "--store", "--mode", "--log"}) {
    if (!args.count(key)) {
      std::fprintf(stderr, "missing %s\n", key);
      return 2;
    }
  }
  absl::StatusOr<hocon::Config> config =
      hocon::Config::ParseString(absl::StrCat(
          "akka.persistence.journal.rocksdb { dir = \"", args["--journal"],
          "\", fsync = off }\n", "akka.projection.batch-size = 16\n"));
  if (!config.ok()) return 2;
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      actor::ActorSystem::Create("child", *config);
  if (!system.ok()) {
    std::fprintf(stderr, "%s\n", system.status().ToString().c_str());
    return 2;
  }
  PersistenceSetup setup;
  setup.serialization = testing::NewTestSerialization();
  if (!Persistence::Get(**system).Setup(std::move(setup)).ok()) return 2;
  absl::StatusOr<std::shared_ptr<ProjectionStore>> store =
      RocksDbProjectionStore::Open(args["--store"], {.sync = false});
  absl::StatusOr<ProjectionSettings> settings =
      ProjectionSettings::FromConfig((*system)->Settings());
  if (!store.ok() || !settings.ok()) return 2;
  const int log = ::open(args["--log"].c_str(),
                         O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (log < 0) return 2;
  SourceProvider source = EventSourcedProvider::CurrentEventsByTag("", "t");
  Projection projection =
      args["--mode"] == "exactly-once"
          ? Projection::ExactlyOnce(
                {"crash", "t"}, source, *store,
                [] { return std::make_unique<CountingHandler>(); })
          : Projection::AtLeastOnce({"crash", "t"}, source, *store, [log] {
              return std::make_unique<AppendingHandler>(log);
            });
  std::promise<void> done;
  actor::ActorRef observer =
      (*system)->ActorOf(actor::Props::Create<Observer>(&done));
  (*system)->ActorOf(
      projection.WithSettings(*settings).WithStatusObserver(observer).Props());
  done.get_future().wait();
  (*system)->Terminate().wait();
  return 0;
}

}  // namespace
}  // namespace cairn::persistence

int main(int argc, char** argv) { return cairn::persistence::Run(argc, argv); }
