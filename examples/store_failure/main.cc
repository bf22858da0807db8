// The store-failure story, end to end, on real time: a persistent counter
// under a Backoff::OnStop supervisor; the journal starts failing; the
// counter stops on the persist failure; the supervisor restarts it at
// growing intervals; the store comes back; the counter recovers every
// acknowledged increment and goes on. Then 50 counters failing at once
// restart at spread-out times (the jitter). See README.md.
//
//   bazel run //examples/store_failure -- [--data DIR]
//
// Exit status: 0 if every counter recovered exactly its acknowledged
// count, 1 if not (or something failed), 2 for bad arguments or a data
// directory that cannot be created.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/future.h"
#include "actor/props.h"
#include "backoff/backoff_options.h"
#include "examples/store_failure/crowd_story.h"
#include "examples/store_failure/data_dir.h"
#include "examples/store_failure/flaky_store.h"
#include "examples/store_failure/histogram.h"
#include "examples/store_failure/outage_story.h"
#include "examples/store_failure/serialization.h"
#include "hocon/config.h"
#include "persistence/persistence.h"

namespace actor = cairn::actor;
namespace persistence = cairn::persistence;
namespace serialization = cairn::serialization;
namespace sf = cairn::examples::store_failure;

namespace {

constexpr int kCrowdSize = 50;
constexpr absl::Duration kBucket = absl::Milliseconds(20);
constexpr absl::Duration kPartTimeout = absl::Seconds(30);

// Routine INFO lines would drown the story; warnings still show. Every
// persistent actor uses the flaky store's plugins.
std::string ConfigText() {
  return absl::StrCat(
      "akka.loglevel = WARNING\n",
      "akka.coordinated-shutdown.run-by-process-exit-hook = off\n",
      "akka.persistence.journal.plugin = \"", sf::kJournalPluginId, "\"\n",
      "akka.persistence.snapshot-store.plugin = \"", sf::kSnapshotStorePluginId,
      "\"\n");
}

absl::StatusOr<std::unique_ptr<actor::ActorSystem>> StartSystem(
    std::shared_ptr<sf::FlakyStore> store) {
  absl::StatusOr<cairn::hocon::Config> config =
      cairn::hocon::Config::ParseString(ConfigText());
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      actor::ActorSystem::Create("store-failure", *config);
  if (!system.ok()) return system.status();
  absl::StatusOr<std::shared_ptr<const serialization::SerializationRegistry>>
      serialization = sf::NewSerialization();
  if (!serialization.ok()) return serialization.status();
  persistence::PersistenceSetup setup;
  setup.serialization = *std::move(serialization);
  setup.register_plugins = [store](persistence::PluginRegistry& plugins) {
    return store->RegisterPlugins(plugins);
  };
  absl::Status s =
      persistence::Persistence::Get(**system).Setup(std::move(setup));
  if (!s.ok()) return s;
  return system;
}

// The outcome of a part, or why there is none.
template <typename T>
absl::StatusOr<T> Await(const actor::Future<T>& future, const char* part) {
  if (!future.wait_for(kPartTimeout)) {
    return absl::DeadlineExceededError(absl::StrCat(
        part, " did not end within ", absl::FormatDuration(kPartTimeout)));
  }
  try {
    return future.get();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(part, " failed: ", e.what()));
  }
}

int64_t Ms(absl::Duration d) { return absl::ToInt64Milliseconds(d); }

std::string Milliseconds(const std::vector<absl::Duration>& durations) {
  return absl::StrJoin(durations, ", ", [](std::string* out, absl::Duration d) {
    absl::StrAppend(out, Ms(d));
  });
}

// The range of the first `restarts` back-off delays of part 1's
// supervisor: "100-120, 200-240, ...".
std::string OutageDelayRanges(size_t restarts) {
  std::vector<std::string> ranges;
  for (size_t n = 0; n < restarts; ++n) {
    auto delay = [n](double uniform01) {
      return Ms(cairn::backoff::CalculateDelay(
          static_cast<int>(n), sf::kOutageMinBackoff, sf::kOutageMaxBackoff,
          sf::kOutageRandomFactor, uniform01));
    };
    ranges.push_back(absl::StrCat(delay(0.0), "-", delay(1.0)));
  }
  return absl::StrJoin(ranges, ", ");
}

// Part 1; OK if the counter recovered what was acknowledged.
absl::Status RunOutage(actor::ActorSystem& system,
                       std::shared_ptr<sf::FlakyStore> store) {
  absl::PrintF(
      "Part 1: a persistent counter under Backoff::OnStop (min %d ms, max "
      "%d ms, random_factor %.1f)\n",
      Ms(sf::kOutageMinBackoff), Ms(sf::kOutageMaxBackoff),
      sf::kOutageRandomFactor);
  actor::Promise<sf::OutageReport> done;
  system.ActorOf(actor::Props::Create<sf::OutageStory>(std::move(store), done),
                 "outage");
  absl::StatusOr<sf::OutageReport> report = Await(done.GetFuture(), "part 1");
  if (!report.ok()) return report.status();
  absl::PrintF(
      "  From each stop to the next start: %s ms\n"
      "  (the supervisor's delays: %s ms, then the time to start)\n",
      Milliseconds(report->restart_delays),
      OutageDelayRanges(report->restart_delays.size()));
  if (report->recovered != report->acknowledged) {
    return absl::DataLossError(
        absl::StrCat("the counter recovered count ", report->recovered, " but ",
                     report->acknowledged, " were acknowledged"));
  }
  absl::PrintF(
      "Check: recovered count %d == %d acknowledged before the outage: OK\n",
      report->recovered, report->acknowledged);
  return absl::OkStatus();
}

// Part 2; OK if every counter recovered what was acknowledged.
absl::Status RunCrowd(actor::ActorSystem& system,
                      std::shared_ptr<sf::FlakyStore> store) {
  absl::PrintF(
      "\nPart 2: %d counters, each under its own Backoff::OnStop (min %d ms, "
      "random_factor %.1f), fail at once\n",
      kCrowdSize, Ms(sf::kCrowdMinBackoff), sf::kCrowdRandomFactor);
  actor::Promise<sf::CrowdReport> done;
  system.ActorOf(
      actor::Props::Create<sf::CrowdStory>(std::move(store), kCrowdSize, done),
      "crowd");
  absl::StatusOr<sf::CrowdReport> report = Await(done.GetFuture(), "part 2");
  if (!report.ok()) return report.status();
  absl::PrintF(
      "  Restarts by time since the outage began (one # per counter):\n%s",
      sf::Histogram(report->restarted_after, kBucket));
  const auto [first, last] = std::minmax_element(
      report->restarted_after.begin(), report->restarted_after.end());
  absl::PrintF(
      "  First at %d ms, last at %d ms: spread over %d ms (with "
      "random_factor 0, all at %d ms)\n",
      Ms(*first), Ms(*last), Ms(*last - *first), Ms(sf::kCrowdMinBackoff));
  if (!report->mismatches.empty()) {
    return absl::DataLossError(
        absl::StrCat("counters recovered counts that were not acknowledged: ",
                     absl::StrJoin(report->mismatches, "; ")));
  }
  absl::PrintF(
      "Check: all %d counters recovered their acknowledged count: OK\n",
      kCrowdSize);
  return absl::OkStatus();
}

absl::Status Run(const sf::DataDir& dir) {
  absl::StatusOr<std::shared_ptr<sf::FlakyStore>> store =
      sf::FlakyStore::Open(dir.path);
  if (!store.ok()) return store.status();
  absl::PrintF(
      "Events go to RocksDB in %s%s, through a FaultInjectingJournal.\n\n",
      dir.path, dir.temporary ? " (temporary)" : "");
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      StartSystem(*store);
  if (!system.ok()) return system.status();
  absl::Status status = RunOutage(**system, *store);
  if (status.ok()) status = RunCrowd(**system, *store);
  (*system)->Terminate().wait();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<std::string> flag = sf::ParseArgs(argc, argv);
  absl::StatusOr<sf::DataDir> dir =
      flag.ok() ? sf::MakeDataDir(*flag) : flag.status();
  if (!dir.ok()) {
    std::fprintf(stderr, "store_failure: %s\n%s",
                 std::string(dir.status().message()).c_str(), sf::kUsage);
    return 2;
  }
  const absl::Status status = Run(*dir);
  sf::RemoveIfTemporary(*dir);
  if (!status.ok()) {
    std::fflush(stdout);
    std::fprintf(stderr, "store_failure: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
