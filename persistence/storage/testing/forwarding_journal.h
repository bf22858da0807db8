#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_FORWARDING_JOURNAL_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_FORWARDING_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "persistence/storage/journal.h"

namespace cairn::persistence::testing {

// A journal that passes every call to the one it owns. Tests derive from it
// and override only the calls they hold back, watch or fail.
//
// Thread safety: as the wrapped journal's.
class ForwardingJournal : public Journal {
 public:
  explicit ForwardingJournal(std::unique_ptr<Journal> inner)
      : inner_(std::move(inner)) {}

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    inner_->AsyncWriteMessages(std::move(writes), std::move(done));
  }
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event,
                           DoneCallback done) override {
    inner_->AsyncReplayMessages(std::move(persistence_id), from_sequence_nr,
                                to_sequence_nr, max, std::move(on_event),
                                std::move(done));
  }
  void AsyncReadHighestSequenceNr(std::string persistence_id,
                                  int64_t from_sequence_nr,
                                  HighestCallback done) override {
    inner_->AsyncReadHighestSequenceNr(std::move(persistence_id),
                                       from_sequence_nr, std::move(done));
  }
  void AsyncDeleteMessagesTo(std::string persistence_id, int64_t to_sequence_nr,
                             DoneCallback done) override {
    inner_->AsyncDeleteMessagesTo(std::move(persistence_id), to_sequence_nr,
                                  std::move(done));
  }

 protected:
  Journal& inner() { return *inner_; }
  // Destroys the wrapped journal now, for a subclass whose members its
  // pending callbacks still use (it must go before they do).
  void DestroyInner() { inner_.reset(); }

 private:
  std::unique_ptr<Journal> inner_;
};

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_FORWARDING_JOURNAL_H_
