#ifndef CAIRN_BASE_TASK_RUNNER_H_
#define CAIRN_BASE_TASK_RUNNER_H_

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"

namespace cairn::base {

// A fixed set of threads running posted tasks. With one thread, tasks run
// one at a time in the order posted (a plugin's ordering guarantee rests on
// this); with more, they start in that order and may overlap.
//
// Thread safety: Post may be called from any thread, including from a
// task. The destructor runs every task posted before it returns (tasks that
// tasks post included), then joins the threads; posting from outside after
// the destructor started is undefined.
class TaskRunner {
 public:
  // `name` (at most 15 characters) names the threads for debuggers.
  TaskRunner(int threads, std::string name);
  ~TaskRunner();
  TaskRunner(const TaskRunner&) = delete;
  TaskRunner& operator=(const TaskRunner&) = delete;

  void Post(absl::AnyInvocable<void() &&> task);

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<absl::AnyInvocable<void() &&>> tasks_;  // guarded by mu_
  bool stopping_ = false;                            // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace cairn::base

#endif  // CAIRN_BASE_TASK_RUNNER_H_
