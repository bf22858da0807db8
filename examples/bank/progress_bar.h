#ifndef CAIRN_EXAMPLES_BANK_PROGRESS_BAR_H_
#define CAIRN_EXAMPLES_BANK_PROGRESS_BAR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "base/mutex.h"

namespace cairn::examples::bank {

// A progress bar on stderr, "LABEL [#########-----------]  45%  45000/100000",
// redrawn in place every 100 ms by a thread of its own while the object
// exists. For people only: make one when stderr is a terminal
// (OnTerminal()), never in a log or a pipe.
//
// Thread safety: `done` is called from the drawing thread.
class ProgressBar {
 public:
  ProgressBar(int64_t total, std::function<int64_t()> done,
              std::string label = "");
  // Draws the final state and ends the line.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  static bool OnTerminal();

 private:
  void Draw();

  const int64_t total_;
  const std::function<int64_t()> done_;
  const std::string label_;  // with a space after it, if not empty
  base::Mutex mu_;
  base::CondVar wake_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread drawer_;  // last: starts once the rest is ready
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_PROGRESS_BAR_H_
