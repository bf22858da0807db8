#ifndef CAIRN_PERSISTENCE_TESTKIT_PERSISTENCE_TEST_KIT_H_
#define CAIRN_PERSISTENCE_TESTKIT_PERSISTENCE_TEST_KIT_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_probe.h"
#include "base/demangle.h"
#include "hocon/config.h"
#include "persistence/persistence.h"
#include "persistence/storage/fault_injecting_journal.h"
#include "persistence/storage/fault_injecting_snapshot_store.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/payload.h"

namespace cairn::persistence::testkit {

namespace testkit_internal {
struct Recordings;
}  // namespace testkit_internal

// Akka's PersistenceTestKit and SnapshotTestKit in one: an in-memory
// journal and snapshot store, installed in an actor system's Persistence,
// that record what persistent actors persist, so that a test can expect it
// event by event, and that fail or reject on command.
//
//   TestKit kit(PersistenceTestKit::Config());
//   auto persistence = PersistenceTestKit::Create(kit.Sys()).value();
//   ActorRef a = kit.Sys().ActorOf(Props::Create<Account>("a"));
//   a.Tell(Deposit{5});
//   EXPECT_EQ(persistence->ExpectNextPersisted<Deposited>("account-a"),
//             Deposited{5});
//   persistence->FailNextPersisted();   // the next write fails:
//   a.Tell(Deposit{7});                 // OnPersistFailure, the actor stops
//
// Events and snapshots go through the system's SerializationRegistry (the
// setup given to Create), as with a real store, so a type nobody
// registered is rejected here too. Expectations see what was stored
// successfully only, in the order it was stored, one queue per persistence
// id; a failed or rejected write records nothing.
//
// A failed expectation throws actor::testkit::TestKitAssertion (GoogleTest
// reports it as a failure of the test).
//
// Ownership: the caller owns the kit; the plugins it installed may outlive
// it (the system owns them), and it may outlive the system.
// Thread safety: every method from any thread; the Expect* calls block the
// calling thread (not an actor's) until what they wait for arrives or the
// timeout passes.
class PersistenceTestKit {
 public:
  static constexpr char kJournalPluginId[] =
      "cairn.persistence.testkit.journal";
  static constexpr char kSnapshotStorePluginId[] =
      "cairn.persistence.testkit.snapshot-store";

  // The config that makes the kit's plugins the system's default ones, over
  // actor::testkit::TestKit::TestConfig() (Akka's PersistenceTestKitPlugin
  // config). Give it to the TestKit.
  static hocon::Config Config();

  // Installs the kit's plugins in `system`'s Persistence, through
  // Persistence::Setup with `setup` (its serialization registry and its own
  // plugins too). Call it before the first persistent actor starts. Fails
  // as Persistence::Setup does.
  static absl::StatusOr<std::unique_ptr<PersistenceTestKit>> Create(
      actor::ActorSystem& system, PersistenceSetup setup = {});

  ~PersistenceTestKit();
  PersistenceTestKit(const PersistenceTestKit&) = delete;
  PersistenceTestKit& operator=(const PersistenceTestKit&) = delete;

  // --- Events ---------------------------------------------------------------

  // The next event stored for `persistence_id` (in storage order), which
  // must be a T; waits up to `timeout` for it.
  template <typename T>
  T ExpectNextPersisted(
      std::string_view persistence_id,
      absl::Duration timeout = actor::testkit::kDefaultExpectTimeout) {
    serialization::Payload event = NextEvent(persistence_id, timeout);
    const T* value = event.As<T>();
    if (value == nullptr) {
      throw actor::testkit::TestKitAssertion(absl::StrCat(
          "expected the next event persisted for \"",
          std::string(persistence_id), "\" to be a ",
          base::DemangledTypeName(typeid(T)), ", got a ", event.TypeName()));
    }
    return *value;
  }
  // As above, and equal to `expected` (T's operator==).
  template <typename T>
  T ExpectNextPersisted(
      std::string_view persistence_id, const T& expected,
      absl::Duration timeout = actor::testkit::kDefaultExpectTimeout) {
    T value = ExpectNextPersisted<T>(persistence_id, timeout);
    if (!(value == expected)) {
      throw actor::testkit::TestKitAssertion(absl::StrCat(
          "the next event persisted for \"", std::string(persistence_id),
          "\" is a ", base::DemangledTypeName(typeid(T)),
          " that differs from the one expected"));
    }
    return value;
  }
  // Fails if an event not yet expected is stored for `persistence_id`
  // within `duration` (which it waits out, as Akka's).
  void ExpectNothingPersisted(
      std::string_view persistence_id,
      absl::Duration duration = absl::Milliseconds(100));
  // Drops what was recorded and not yet expected (storage keeps it).
  void ClearRecorded();
  // The events recorded for `persistence_id` and not yet expected, in
  // storage order, at once (none: empty); they count as expected after.
  std::vector<serialization::Payload> TakeRecordedEvents(
      std::string_view persistence_id);

  // The events stored for `persistence_id` now, in order (a replay of the
  // journal from the calling thread; DeadlineExceeded after
  // testing::kCallDeadline).
  absl::StatusOr<std::vector<serialization::Payload>> PersistedInStorage(
      std::string_view persistence_id);
  // Stores `events` after the stream's highest sequence number, as if an
  // actor had persisted them earlier (they are not recorded as expected):
  // the next actor with this id recovers them.
  [[nodiscard]] absl::Status PersistForRecovery(
      std::string_view persistence_id,
      std::vector<serialization::Payload> events);

  // The next `n` writes fail (OnPersistFailure, then the actor stops); the
  // next `n` AtomicWrites are rejected (OnPersistRejected, the actor goes
  // on); the next `n` replays fail (OnRecoveryFailure). Akka's
  // failNextPersisted, rejectNextPersisted and failNextRead.
  void FailNextPersisted(int n = 1) { journal_faults_->FailNextWrites(n); }
  void RejectNextPersisted(int n = 1) { journal_faults_->RejectNextWrites(n); }
  void FailNextRead(int n = 1) { journal_faults_->FailNextReplays(n); }
  // Every setting of the journal's faults (e.g. SetFailWrites: store down).
  JournalFaults& journal_faults() { return *journal_faults_; }

  // --- Snapshots ------------------------------------------------------------

  // The next snapshot saved for `persistence_id`, which must be a T; waits
  // up to `timeout` for it.
  template <typename T>
  T ExpectNextSnapshot(
      std::string_view persistence_id,
      absl::Duration timeout = actor::testkit::kDefaultExpectTimeout) {
    SelectedSnapshot snapshot = NextSnapshot(persistence_id, timeout);
    const T* value = snapshot.snapshot.As<T>();
    if (value == nullptr) {
      throw actor::testkit::TestKitAssertion(
          absl::StrCat("expected the next snapshot saved for \"",
                       std::string(persistence_id), "\" to be a ",
                       base::DemangledTypeName(typeid(T)), ", got a ",
                       snapshot.snapshot.TypeName()));
    }
    return *value;
  }
  // Saves (SaveSnapshotFailure), loads (the recovery fails) and deletes
  // (Delete*Failure) fail on command: see SnapshotStoreFaults.
  SnapshotStoreFaults& snapshot_faults() { return *snapshot_faults_; }

 private:
  PersistenceTestKit(actor::ActorSystem& system,
                     std::shared_ptr<testkit_internal::Recordings> recordings);
  serialization::Payload NextEvent(std::string_view persistence_id,
                                   absl::Duration timeout);
  SelectedSnapshot NextSnapshot(std::string_view persistence_id,
                                absl::Duration timeout);
  absl::StatusOr<Journal*> TheJournal();

  actor::ActorSystem& system_;
  const std::shared_ptr<testkit_internal::Recordings> recordings_;
  const std::shared_ptr<JournalFaults> journal_faults_;
  const std::shared_ptr<SnapshotStoreFaults> snapshot_faults_;
};

}  // namespace cairn::persistence::testkit

#endif  // CAIRN_PERSISTENCE_TESTKIT_PERSISTENCE_TEST_KIT_H_
