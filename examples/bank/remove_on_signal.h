#ifndef CAIRN_EXAMPLES_BANK_REMOVE_ON_SIGNAL_H_
#define CAIRN_EXAMPLES_BANK_REMOVE_ON_SIGNAL_H_

#include <signal.h>

#include <string>
#include <thread>

namespace cairn::examples::bank {

// While it exists, SIGINT, SIGTERM and SIGHUP first remove `path` (and
// everything under it), then end the process as the signal would have
// without it, so that whoever started the process still sees it killed by
// that signal. For a temporary directory a command must not leave behind
// when it is interrupted. A signal the process ignored when this was made
// (a background job's SIGINT) stays ignored.
//
// The signal handler only writes the signal number to a pipe; a thread of
// this object reads it and does the work. At most one exists at a time in
// a process (they would take each other's handlers); making a second one
// aborts.
//
// Thread safety: make and destroy on one thread; signals may arrive on any.
class RemoveOnSignal {
 public:
  explicit RemoveOnSignal(std::string path);
  // Restores the dispositions it replaced. Does not remove `path`.
  ~RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;

 private:
  void Watch();

  const std::string path_;
  int pipe_[2] = {-1, -1};
  struct sigaction previous_[3] = {};
  std::thread watcher_;
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_REMOVE_ON_SIGNAL_H_
