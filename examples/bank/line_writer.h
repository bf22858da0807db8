#ifndef CAIRN_EXAMPLES_BANK_LINE_WRITER_H_
#define CAIRN_EXAMPLES_BANK_LINE_WRITER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <thread>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/mutex.h"

namespace cairn::examples::bank {

// `text` fit for one line of output: line breaks and tabs become spaces
// (a message from a store or a library may hold them).
std::string OneLine(absl::string_view text);

// Writes lines to a file descriptor in batches, so that a program printing
// a line per event does not make a system call per line, yet a reader
// (a person, or a test waiting for acks) sees each line soon: a line is
// written once `max_lines` are pending, or by a flusher thread within
// `max_delay`. Lines reach the descriptor whole and in the order added; a
// line still pending when the process dies is lost, so a line on the
// descriptor is never one that was not added.
//
// Thread safety: Add and Flush from any thread. Add blocks while a batch
// is being written (a slow reader slows the writers down).
class BatchedLineWriter {
 public:
  explicit BatchedLineWriter(int fd, size_t max_lines = 1000,
                             absl::Duration max_delay = absl::Milliseconds(50));
  // Writes what is pending and stops the flusher.
  ~BatchedLineWriter();
  BatchedLineWriter(const BatchedLineWriter&) = delete;
  BatchedLineWriter& operator=(const BatchedLineWriter&) = delete;

  // `line` without its '\n'.
  void Add(std::string_view line);
  void Flush();

 private:
  void FlushLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RunFlusher();

  const int fd_;
  const size_t max_lines_;
  const absl::Duration max_delay_;
  base::Mutex mu_;
  base::CondVar wake_;
  std::string pending_ ABSL_GUARDED_BY(mu_);
  size_t pending_lines_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread flusher_;  // last: starts once the rest is ready
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_LINE_WRITER_H_
