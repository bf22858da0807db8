#include "persistence/testkit/persistence_test_kit.h"

#include <deque>
#include <iterator>
#include <map>
#include <optional>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/snapshot_store_wrapper.h"
#include "persistence/storage/testing/sync_calls.h"

namespace cairn::persistence::testkit {
namespace testkit_internal {

// The writer id of the events PersistForRecovery stores.
constexpr char kRecoveryWriter[] = "cairn-persistence-test-kit";

// What the kit's plugins stored, per persistence id, not yet expected.
// Shared by the kit and its plugins, which the system may keep longer.
struct Recordings {
  base::Mutex mu;
  base::CondVar changed;
  std::map<std::string, std::deque<serialization::Payload>, std::less<>> events
      ABSL_GUARDED_BY(mu);
  std::map<std::string, std::deque<SelectedSnapshot>, std::less<>> snapshots
      ABSL_GUARDED_BY(mu);

  void AddEvents(const std::vector<AtomicWrite>& writes,
                 const std::vector<absl::Status>& outcomes) {
    {
      base::MutexLock lock(&mu);
      for (size_t i = 0; i < writes.size() && i < outcomes.size(); ++i) {
        if (!outcomes[i].ok()) continue;
        for (const PersistentRepr& event : writes[i].events) {
          // Stored for recovery by the kit, not persisted by an actor.
          if (event.writer_uuid == kRecoveryWriter) continue;
          events[event.persistence_id].push_back(event.payload);
        }
      }
    }
    changed.SignalAll();
  }
  void AddSnapshot(SelectedSnapshot snapshot) {
    {
      base::MutexLock lock(&mu);
      std::string id = snapshot.metadata.persistence_id;
      snapshots[id].push_back(std::move(snapshot));
    }
    changed.SignalAll();
  }
  // The oldest event of `id`, waiting up to `timeout` for one.
  std::optional<serialization::Payload> TakeEvent(std::string_view id,
                                                  absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    base::MutexLock lock(&mu);
    return Take(events, id, deadline);
  }
  // The oldest snapshot of `id`, waiting up to `timeout` for one.
  std::optional<SelectedSnapshot> TakeSnapshot(std::string_view id,
                                               absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    base::MutexLock lock(&mu);
    return Take(snapshots, id, deadline);
  }

 private:
  // The oldest entry of `queues[id]`, waiting until `deadline` for one.
  template <typename T>
  std::optional<T> Take(
      std::map<std::string, std::deque<T>, std::less<>>& queues,
      std::string_view id, absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (;;) {
      auto it = queues.find(id);
      if (it != queues.end() && !it->second.empty()) {
        T value = std::move(it->second.front());
        it->second.pop_front();
        return value;
      }
      if (changed.WaitWithDeadline(&mu, deadline)) {
        it = queues.find(id);
        if (it == queues.end() || it->second.empty()) return std::nullopt;
      }
    }
  }
};

}  // namespace testkit_internal

namespace {

// Records what its target stored: the events of every AtomicWrite stored
// successfully, before the writer hears of it.
class RecordingJournal final : public JournalWrapper {
 public:
  RecordingJournal(std::unique_ptr<Journal> target,
                   std::shared_ptr<testkit_internal::Recordings> recordings)
      : JournalWrapper(std::move(target)), recordings_(std::move(recordings)) {}

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    // The events are kept (payloads are shared, not copied) to be recorded
    // once the outcome is known.
    std::vector<AtomicWrite> kept = writes;
    JournalWrapper::AsyncWriteMessages(
        std::move(writes),
        [recordings = recordings_, kept = std::move(kept),
         done = std::move(done)](absl::Status batch,
                                 std::vector<absl::Status> per_write) mutable {
          if (batch.ok()) recordings->AddEvents(kept, per_write);
          std::move(done)(std::move(batch), std::move(per_write));
        });
  }

 private:
  const std::shared_ptr<testkit_internal::Recordings> recordings_;
};

class RecordingSnapshotStore final : public SnapshotStoreWrapper {
 public:
  RecordingSnapshotStore(
      std::unique_ptr<SnapshotStore> target,
      std::shared_ptr<testkit_internal::Recordings> recordings)
      : SnapshotStoreWrapper(std::move(target)),
        recordings_(std::move(recordings)) {}

  void AsyncSave(SnapshotMetadata metadata, serialization::Payload snapshot,
                 std::optional<WriteFence> fence, DoneCallback done) override {
    SelectedSnapshot saved{metadata, snapshot};
    SnapshotStoreWrapper::AsyncSave(
        std::move(metadata), std::move(snapshot), std::move(fence),
        [recordings = recordings_, saved = std::move(saved),
         done = std::move(done)](absl::Status status) mutable {
          if (status.ok()) recordings->AddSnapshot(std::move(saved));
          std::move(done)(std::move(status));
        });
  }

 private:
  const std::shared_ptr<testkit_internal::Recordings> recordings_;
};

}  // namespace

hocon::Config PersistenceTestKit::Config() {
  return hocon::Config::ParseString(
             absl::StrCat("akka.persistence.journal.plugin = \"",
                          kJournalPluginId,
                          "\"\nakka.persistence.snapshot-store.plugin = \"",
                          kSnapshotStorePluginId, "\"\n"))
      .value()
      .WithFallback(actor::testkit::TestKit::TestConfig());
}

absl::StatusOr<std::unique_ptr<PersistenceTestKit>> PersistenceTestKit::Create(
    actor::ActorSystem& system, PersistenceSetup setup) {
  auto recordings = std::make_shared<testkit_internal::Recordings>();
  std::unique_ptr<PersistenceTestKit> kit(
      new PersistenceTestKit(system, recordings));
  auto user_plugins = std::move(setup.register_plugins);
  setup.register_plugins = [recordings, journal_faults = kit->journal_faults_,
                            snapshot_faults = kit->snapshot_faults_,
                            user_plugins = std::move(user_plugins)](
                               PluginRegistry& plugins) -> absl::Status {
    if (absl::Status s = plugins.RegisterJournal(
            kJournalPluginId,
            [recordings, journal_faults](const PluginContext& context)
                -> absl::StatusOr<std::unique_ptr<Journal>> {
              return std::unique_ptr<Journal>(
                  std::make_unique<RecordingJournal>(
                      std::make_unique<FaultInjectingJournal>(
                          NewInMemoryJournal(context.serialization),
                          journal_faults),
                      recordings));
            });
        !s.ok()) {
      return s;
    }
    if (absl::Status s = plugins.RegisterSnapshotStore(
            kSnapshotStorePluginId,
            [recordings, snapshot_faults](const PluginContext& context)
                -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
              return std::unique_ptr<SnapshotStore>(
                  std::make_unique<RecordingSnapshotStore>(
                      std::make_unique<FaultInjectingSnapshotStore>(
                          NewInMemorySnapshotStore(context.serialization),
                          snapshot_faults),
                      recordings));
            });
        !s.ok()) {
      return s;
    }
    return user_plugins ? user_plugins(plugins) : absl::OkStatus();
  };
  if (absl::Status s = Persistence::Get(system).Setup(std::move(setup));
      !s.ok()) {
    return s;
  }
  return kit;
}

PersistenceTestKit::PersistenceTestKit(
    actor::ActorSystem& system,
    std::shared_ptr<testkit_internal::Recordings> recordings)
    : system_(system),
      recordings_(std::move(recordings)),
      journal_faults_(std::make_shared<JournalFaults>()),
      snapshot_faults_(std::make_shared<SnapshotStoreFaults>()) {}

PersistenceTestKit::~PersistenceTestKit() = default;

serialization::Payload PersistenceTestKit::NextEvent(
    std::string_view persistence_id, absl::Duration timeout) {
  std::optional<serialization::Payload> event =
      recordings_->TakeEvent(persistence_id, timeout);
  if (!event.has_value()) {
    throw actor::testkit::TestKitAssertion(absl::StrCat(
        "expected an event persisted for \"", std::string(persistence_id),
        "\" within ", absl::FormatDuration(timeout), ", none was"));
  }
  return *std::move(event);
}

SelectedSnapshot PersistenceTestKit::NextSnapshot(
    std::string_view persistence_id, absl::Duration timeout) {
  std::optional<SelectedSnapshot> snapshot =
      recordings_->TakeSnapshot(persistence_id, timeout);
  if (!snapshot.has_value()) {
    throw actor::testkit::TestKitAssertion(absl::StrCat(
        "expected a snapshot saved for \"", std::string(persistence_id),
        "\" within ", absl::FormatDuration(timeout), ", none was"));
  }
  return *std::move(snapshot);
}

void PersistenceTestKit::ExpectNothingPersisted(std::string_view persistence_id,
                                                absl::Duration duration) {
  std::optional<serialization::Payload> event =
      recordings_->TakeEvent(persistence_id, duration);
  if (event.has_value()) {
    throw actor::testkit::TestKitAssertion(absl::StrCat(
        "expected nothing persisted for \"", std::string(persistence_id),
        "\" but a ", event->TypeName(), " was"));
  }
}

void PersistenceTestKit::ClearRecorded() {
  base::MutexLock lock(&recordings_->mu);
  recordings_->events.clear();
  recordings_->snapshots.clear();
}

std::vector<serialization::Payload> PersistenceTestKit::TakeRecordedEvents(
    std::string_view persistence_id) {
  base::MutexLock lock(&recordings_->mu);
  auto it = recordings_->events.find(persistence_id);
  if (it == recordings_->events.end()) return {};
  std::vector<serialization::Payload> events(
      std::make_move_iterator(it->second.begin()),
      std::make_move_iterator(it->second.end()));
  recordings_->events.erase(it);
  return events;
}

absl::StatusOr<Journal*> PersistenceTestKit::TheJournal() {
  return Persistence::Get(system_).JournalFor(kJournalPluginId);
}

absl::StatusOr<std::vector<serialization::Payload>>
PersistenceTestKit::PersistedInStorage(std::string_view persistence_id) {
  absl::StatusOr<Journal*> journal = TheJournal();
  if (!journal.ok()) return journal.status();
  testing::ReplayOutcome replay =
      testing::ReplayMessages(**journal, std::string(persistence_id), 1,
                              kMaxSequenceNr, kMaxSequenceNr);
  if (!replay.status.ok()) return replay.status;
  std::vector<serialization::Payload> events;
  events.reserve(replay.events.size());
  for (PersistentRepr& event : replay.events) {
    events.push_back(std::move(event.payload));
  }
  return events;
}

absl::Status PersistenceTestKit::PersistForRecovery(
    std::string_view persistence_id,
    std::vector<serialization::Payload> events) {
  if (events.empty()) return absl::OkStatus();
  absl::StatusOr<Journal*> journal = TheJournal();
  if (!journal.ok()) return journal.status();
  const std::string id(persistence_id);
  absl::StatusOr<int64_t> highest =
      testing::ReadHighestSequenceNr(**journal, id);
  if (!highest.ok()) return highest.status();
  AtomicWrite write;
  int64_t next = *highest + 1;
  for (serialization::Payload& event : events) {
    PersistentRepr repr;
    repr.persistence_id = id;
    repr.sequence_nr = next++;
    repr.payload = std::move(event);
    repr.writer_uuid = testkit_internal::kRecoveryWriter;
    write.events.push_back(std::move(repr));
  }
  testing::WriteOutcome written =
      testing::WriteMessages(**journal, {std::move(write)});
  if (!written.batch.ok()) return written.batch;
  return written.per_write.empty() ? absl::OkStatus() : written.per_write[0];
}

}  // namespace cairn::persistence::testkit
