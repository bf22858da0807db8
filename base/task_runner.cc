#include "base/task_runner.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

namespace cairn::base {

TaskRunner::TaskRunner(int threads, std::string name) {
  if (threads < 1) threads = 1;
  name.resize(std::min<size_t>(name.size(), 15));
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] { Run(); });
    pthread_setname_np(threads_.back().native_handle(), name.c_str());
  }
}

TaskRunner::~TaskRunner() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  ready_.SignalAll();
  for (std::thread& thread : threads_) thread.join();
}

void TaskRunner::Post(absl::AnyInvocable<void() &&> task) {
  {
    MutexLock lock(&mu_);
    tasks_.push_back(std::move(task));
  }
  ready_.Signal();
}

void TaskRunner::Run() {
  while (true) {
    absl::AnyInvocable<void() &&> task;
    {
      MutexLock lock(&mu_);
      while (!stopping_ && tasks_.empty()) ready_.Wait(&mu_);
      // Draining before stopping keeps the promise that every submitted
      // operation gets its callback.
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    std::move(task)();
  }
}

}  // namespace cairn::base
