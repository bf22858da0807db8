#include "examples/bank/line_writer.h"

#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"

namespace cairn::examples::bank {

std::string OneLine(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"\r", " "}, {"\n", " "}, {"\t", " "}});
}

BatchedLineWriter::BatchedLineWriter(int fd, size_t max_lines,
                                     absl::Duration max_delay)
    : fd_(fd),
      max_lines_(max_lines),
      max_delay_(max_delay),
      flusher_([this] { RunFlusher(); }) {}

BatchedLineWriter::~BatchedLineWriter() {
  {
    base::MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  flusher_.join();
  Flush();
}

void BatchedLineWriter::Add(std::string_view line) {
  base::MutexLock lock(&mu_);
  pending_.append(line);
  pending_.push_back('\n');
  if (++pending_lines_ >= max_lines_) FlushLocked();
}

void BatchedLineWriter::Flush() {
  base::MutexLock lock(&mu_);
  FlushLocked();
}

void BatchedLineWriter::FlushLocked() {
  const char* data = pending_.data();
  size_t left = pending_.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the reader is gone: nobody to tell
    data += n;
    left -= static_cast<size_t>(n);
  }
  pending_.clear();
  pending_lines_ = 0;
}

void BatchedLineWriter::RunFlusher() {
  base::MutexLock lock(&mu_);
  while (!stopping_) {
    const absl::Time flush_at = absl::Now() + max_delay_;
    while (!stopping_) {
      if (wake_.WaitWithDeadline(&mu_, flush_at)) break;
    }
    FlushLocked();
  }
}

}  // namespace cairn::examples::bank
