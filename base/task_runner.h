#ifndef CAIRN_BASE_TASK_RUNNER_H_
#define CAIRN_BASE_TASK_RUNNER_H_

#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "base/mutex.h"

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

  Mutex mu_;
  CondVar ready_;
  std::deque<absl::AnyInvocable<void() &&>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace cairn::base

#endif  // CAIRN_BASE_TASK_RUNNER_H_
