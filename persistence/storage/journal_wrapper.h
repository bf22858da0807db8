#ifndef CAIRN_PERSISTENCE_STORAGE_JOURNAL_WRAPPER_H_
#define CAIRN_PERSISTENCE_STORAGE_JOURNAL_WRAPPER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "persistence/storage/journal.h"

namespace cairn::persistence {

// A Journal that passes every call, unchanged, to the journal it wraps (the
// target): the base of journal decorators (LevelDB's EnvWrapper). A
// decorator overrides only the calls it changes (fails, holds back, counts)
// and calls the target, or JournalWrapper's own method, for the rest; a
// method added to Journal is forwarded here once, not in every decorator.
// The exception is AsyncStartRecovery: the wrapper keeps Journal's default,
// which makes its calls through the wrapper, so a decorator sees every read
// of a recovery without overriding it.
//
// Ownership: the wrapper owns its target (Journal's owners hold a
// std::unique_ptr) and destroys it in its destructor, which completes what
// was submitted (the Journal contract). Members of a subclass are destroyed
// before that: a subclass whose callbacks still use its members calls
// DestroyTarget() in its own destructor.
//
// Thread safety and callbacks: the target's (the Journal contract), since
// every call runs on the target.
class JournalWrapper : public Journal {
 public:
  // `target` must not be null.
  explicit JournalWrapper(std::unique_ptr<Journal> target)
      : target_(std::move(target)) {}
  JournalWrapper(const JournalWrapper&) = delete;
  JournalWrapper& operator=(const JournalWrapper&) = delete;

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    target_->AsyncWriteMessages(std::move(writes), std::move(done));
  }
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event,
                           DoneCallback done) override {
    target_->AsyncReplayMessages(std::move(persistence_id), from_sequence_nr,
                                 to_sequence_nr, max, std::move(on_event),
                                 std::move(done));
  }
  void AsyncReadHighestSequenceNr(std::string persistence_id,
                                  int64_t from_sequence_nr,
                                  HighestCallback done) override {
    target_->AsyncReadHighestSequenceNr(std::move(persistence_id),
                                        from_sequence_nr, std::move(done));
  }
  void AsyncDeleteMessagesTo(std::string persistence_id, int64_t to_sequence_nr,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override {
    target_->AsyncDeleteMessagesTo(std::move(persistence_id), to_sequence_nr,
                                   std::move(fence), std::move(done));
  }
  absl::StatusOr<std::unique_ptr<ReadJournal>> NewReadJournal() override {
    return target_->NewReadJournal();
  }

 protected:
  // The wrapped journal; not valid after DestroyTarget().
  Journal& target() const { return *target_; }
  // Destroys the target now (completing what it was given); no call may
  // follow.
  void DestroyTarget() { target_.reset(); }

 private:
  std::unique_ptr<Journal> target_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_JOURNAL_WRAPPER_H_
