#ifndef CAIRN_EXAMPLES_BANK_TEST_SUPPORT_H_
#define CAIRN_EXAMPLES_BANK_TEST_SUPPORT_H_

// For the tests of the bank's actors: a TestKit on the in-memory plugins
// with the bank's serialization, and a way to put events in the journal
// behind the actors' backs (a store with a gap, or with a record that
// cannot be read), and a journal that holds a replay back event by event.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/journal_wrapper.h"
#include "serialization/payload.h"

namespace cairn::examples::bank::testing {

// Longer than the TestKit's default: sanitizer builds are slow.
inline constexpr absl::Duration kExpectTimeout = absl::Seconds(15);

// An event whose bytes the registry can write but never read back: stored,
// it is a corrupt record.
struct Unreadable {};

// Puts a journal of the test's between the actors and the in-memory one.
using WrapJournal = std::function<std::unique_ptr<persistence::Journal>(
    std::unique_ptr<persistence::Journal>)>;

// Lets replayed events through one at a time, as the test allows,
// holding the journal's thread meanwhile.
class ReplayGate {
 public:
  void Allow(int events);
  void AllowAll();
  // Waits until the next event may pass.
  void Pass();

 private:
  base::Mutex mu_;
  base::CondVar changed_;
  int allowed_ ABSL_GUARDED_BY(mu_) = 0;
  bool all_ ABSL_GUARDED_BY(mu_) = false;
};

// The replay of `persistence_id` goes through the gate; everything else
// straight on.
class GatedJournal final : public persistence::JournalWrapper {
 public:
  GatedJournal(std::unique_ptr<persistence::Journal> inner,
               std::string persistence_id, std::shared_ptr<ReplayGate> gate);

  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event, DoneCallback done) override;

 private:
  const std::string id_;
  const std::shared_ptr<ReplayGate> gate_;
};

// Opens the gate when a test ends, before what waits on it is waited for
// (declare it after that): a failed assertion must not leave a call
// waiting for a replay that never goes on.
struct OpenAtEnd {
  ReplayGate& gate;
  ~OpenAtEnd() { gate.AllowAll(); }
};

// A TestKit whose persistence uses an in-memory journal (seen through
// `wrap`, if given) and the in-memory snapshot store, with the bank's types
// and Unreadable registered.
class BankTestKit : public actor::testkit::TestKit {
 public:
  // `extra_config`: HOCON over the kit's own.
  explicit BankTestKit(WrapJournal wrap = nullptr,
                       std::string_view extra_config = "");

  // Writes `events` (sequence number, event) of `persistence_id` straight
  // to the journal (through the wrapper), one write each.
  absl::Status WriteEvents(
      const std::string& persistence_id,
      std::vector<std::pair<int64_t, serialization::Payload>> events);

  // The actors' journal (the wrapper, if one was given).
  persistence::Journal& Journal();
};

}  // namespace cairn::examples::bank::testing

#endif  // CAIRN_EXAMPLES_BANK_TEST_SUPPORT_H_
